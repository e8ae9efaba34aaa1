"""A small client for the arXiv Atom API (title, authors, abstract, date of one paper; title search).

arXiv asks for "no more than one request every three seconds" on a single connection (API Terms of Use,
https://info.arxiv.org/help/api/tou.html), so the client sends one request at a time, ``min_interval`` after
the last, and honours ``Retry-After``. :meth:`ArxivClient.fetch` returns ``None`` for an id arXiv does not
know and raises :class:`ArxivUnavailable` when arXiv could not be asked; :meth:`ArxivClient.search_titles`
returns cleaned, capped candidates (:mod:`bot.sources.clean`), still untrusted text.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
import xml.etree.ElementTree as ET
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import aiohttp

from bot.sources import clean
from bot.sources.http import SourceUnavailable
from bot.sources.records import Candidate

log = logging.getLogger("paperclub.arxiv")

ATOM = "{http://www.w3.org/2005/Atom}"
ERROR_ID_PREFIX = "http://arxiv.org/api/errors"
USER_AGENT = "paperclub-bot/0.1 (Discord paper club; metadata lookups)"
MIN_INTERVAL = 3.0  # seconds between requests, arXiv's terms of use
SEARCH_MAX = 20
_QUERY_WORD = re.compile(r"[^\W_]+")


class ArxivUnavailable(SourceUnavailable):
    """arXiv did not answer usefully (timeout, connection error, 5xx, or rate-limited)."""

    def __init__(self, reason: str) -> None:
        super().__init__("arxiv", reason)


@dataclass(frozen=True)
class ArxivMetadata:
    """A paper's metadata as arXiv's API gives it."""

    arxiv_id: str
    title: str
    authors: tuple[str, ...]
    abstract: str
    published: str  # ISO date, e.g. "2024-01-22"

    @property
    def authors_text(self) -> str:
        """The authors as one comma-separated line."""
        return ", ".join(self.authors)


def _clean(text: str | None) -> str:
    return " ".join((text or "").split())


def _bare_id(entry_id: str) -> str:
    """'http://arxiv.org/abs/2401.12345v2' -> '2401.12345' (old-style ids keep their archive)."""
    tail = entry_id.split("/abs/", 1)[-1]
    head, _, version = tail.rpartition("v")
    return head if head and version.isdigit() else tail


def _feed_root(body: str) -> ET.Element:
    try:
        root = ET.fromstring(body)
    except ET.ParseError as exc:
        raise ArxivUnavailable(f"arXiv sent something that is not XML ({exc})") from exc
    if root.tag != f"{ATOM}feed":
        raise ArxivUnavailable("arXiv sent XML that is not an Atom feed")
    return root


def parse_atom(body: str, arxiv_id: str) -> ArxivMetadata | None:
    """The entry for ``arxiv_id`` in an Atom feed, or None when arXiv reports it unknown.

    arXiv answers an unknown or malformed id with an entry whose id is under
    ``http://arxiv.org/api/errors`` or with an empty feed. A feed that is not Atom raises
    ArxivUnavailable (a proxy's error page, say).
    """
    root = _feed_root(body)
    for entry in root.findall(f"{ATOM}entry"):
        entry_id = _clean(entry.findtext(f"{ATOM}id"))
        if not entry_id or entry_id.startswith(ERROR_ID_PREFIX):
            return None
        if _bare_id(entry_id).lower() != arxiv_id.lower():
            continue
        title = _clean(entry.findtext(f"{ATOM}title"))
        if not title:
            return None
        authors = tuple(
            name
            for author in entry.findall(f"{ATOM}author")
            if (name := _clean(author.findtext(f"{ATOM}name")))
        )
        published = _clean(entry.findtext(f"{ATOM}published"))[:10]
        abstract = _clean(entry.findtext(f"{ATOM}summary"))
        return ArxivMetadata(arxiv_id, title, authors, abstract, published)
    return None


def parse_search(body: str) -> list[Candidate]:
    """The entries of an Atom search answer as candidates, in arXiv's order (arXiv gives no score).

    An error entry (a query arXiv could not read) or an empty feed is no candidates; a feed that is not
    Atom raises ArxivUnavailable.
    """
    root = _feed_root(body)
    found: list[Candidate] = []
    for entry in root.findall(f"{ATOM}entry"):
        entry_id = _clean(entry.findtext(f"{ATOM}id"))
        if not entry_id or entry_id.startswith(ERROR_ID_PREFIX):
            return []
        arxiv_id = clean.ident(_bare_id(entry_id), 64)
        title = clean.text(entry.findtext(f"{ATOM}title"), clean.TITLE_MAX)
        if arxiv_id is None or title is None:
            continue
        authors = clean.names(author.findtext(f"{ATOM}name") for author in entry.findall(f"{ATOM}author"))
        published = _clean(entry.findtext(f"{ATOM}published"))
        found.append(
            Candidate(
                source="arxiv",
                source_id=arxiv_id,
                title=title,
                authors=authors,
                year=clean.year(published[:4]),
                arxiv_id=arxiv_id,
                url=f"https://arxiv.org/abs/{arxiv_id}",
            )
        )
    return found


Sleeper = Callable[[float], Awaitable[None]]


class ArxivClient:
    """One shared aiohttp session; requests go out one at a time."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = 5.0,
        retries: int = 1,
        max_retry_after: float = 10.0,
        sleep: Sleeper = asyncio.sleep,
        min_interval: float = MIN_INTERVAL,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.base_url = base_url
        self.timeout = timeout
        self.retries = retries
        self.max_retry_after = max_retry_after
        self.min_interval = min_interval
        self._sleep = sleep
        self._monotonic = monotonic
        self._session: aiohttp.ClientSession | None = None
        self._lock = asyncio.Lock()
        self._blocked_until = 0.0  # monotonic() before which arXiv asked us not to call
        self._last_ended = -float("inf")  # monotonic() when the last request ended

    async def close(self) -> None:
        """Close the HTTP session, if one is open."""
        if self._session is not None:
            await self._session.close()
            self._session = None

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(headers={"User-Agent": USER_AGENT})
        return self._session

    @property
    def blocked_for(self) -> float:
        """Seconds until arXiv's last Retry-After runs out (0 when we may call)."""
        return max(0.0, self._blocked_until - self._monotonic())

    async def fetch(self, arxiv_id: str) -> ArxivMetadata | None:
        """Metadata for ``arxiv_id``; None if arXiv reports it unknown; ArxivUnavailable otherwise."""
        body = await self._ask({"id_list": arxiv_id, "max_results": "1"}, arxiv_id)
        return None if body is None else parse_atom(body, arxiv_id)

    async def search_titles(self, query: str, limit: int = 5) -> list[Candidate]:
        """Papers whose titles hold the words of ``query`` (``ti:"…"``), arXiv's best first; at most ``limit``."""
        words = _QUERY_WORD.findall(clean.query(query))
        if not words or limit < 1:
            return []
        params = {
            "search_query": 'ti:"' + " ".join(words) + '"',
            "start": "0",
            "max_results": str(min(limit, SEARCH_MAX)),
            "sortBy": "relevance",
        }
        body = await self._ask(params, "a title search")  # the title is what someone typed: not logged
        return [] if body is None else parse_search(body)[:limit]

    async def _ask(self, params: dict[str, str], what: str) -> str | None:
        """One paced request (retried); the feed's text, or None when arXiv answers 400."""
        async with self._lock:
            attempts = self.retries + 1
            last_error = "no attempt"
            for attempt in range(attempts):
                wait = self.blocked_for
                if wait > self.max_retry_after:
                    raise ArxivUnavailable(f"arXiv asked us to wait {wait:.0f}s")
                wait = max(wait, self._last_ended + self.min_interval - self._monotonic())
                if wait > 0:
                    await self._sleep(wait)
                try:
                    return await self._get(params)
                except _RetryableError as exc:
                    last_error = str(exc)
                    log.info(
                        "arXiv lookup of %s failed (attempt %d/%d): %s", what, attempt + 1, attempts, exc
                    )
                finally:
                    self._last_ended = self._monotonic()
            raise ArxivUnavailable(last_error)

    async def _get(self, params: dict[str, str]) -> str | None:
        try:
            async with self._client().get(
                self.base_url, params=params, timeout=aiohttp.ClientTimeout(total=self.timeout)
            ) as response:
                if response.status == 429:
                    self._blocked_until = self._monotonic() + _retry_after(
                        response.headers.get("Retry-After")
                    )
                    raise _RetryableError("rate-limited (429)")
                if response.status >= 500:
                    raise _RetryableError(f"HTTP {response.status}")
                if response.status == 400:
                    return None  # arXiv answers some malformed ids with 400
                if response.status != 200:
                    raise ArxivUnavailable(f"HTTP {response.status}")
                return await response.text()
        except TimeoutError as exc:
            raise _RetryableError(f"no answer within {self.timeout:g}s") from exc
        except aiohttp.ClientError as exc:
            raise _RetryableError(f"{type(exc).__name__}: {exc}") from exc


class _RetryableError(Exception):
    pass


def _retry_after(value: str | None) -> float:
    """Seconds from a Retry-After header (seconds form; anything else counts as 30 s)."""
    try:
        return max(0.0, min(float(value or ""), 3600.0))
    except ValueError:
        return 30.0
