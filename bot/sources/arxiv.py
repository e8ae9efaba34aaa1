"""arXiv's Atom API (https://info.arxiv.org/help/api/user-manual.html): a paper by id, and title search; one
request per 3 s per address (https://info.arxiv.org/help/api/tou.html); its throttle may be a 200 saying
"Rate exceeded." (lukasschwab/arxiv.py#203)."""

from __future__ import annotations

import logging
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace
from typing import Unpack

from bot.sources import clean
from bot.sources.http import Candidate, ClientOptions, Reply, SourceClient
from bot.sources.pace import RateLimit, StoreTurns

log = logging.getLogger("paperclub.sources")

SOURCE = "arxiv"
API_ROOT = "https://export.arxiv.org/api/query"
RATE_LIMIT = RateLimit(1, 3.0)
BARE_THROTTLE_WAIT = 15.0  # five of arXiv's turns: it said "too fast" without saying how long
ATOM = "{http://www.w3.org/2005/Atom}"
ERROR_ID_PREFIX = "http://arxiv.org/api/errors"
SEARCH_MAX = 20
ABSTRACT_MAX = 5000  # arXiv caps abstracts at 1,920 characters; old ones run a little longer
_QUERY_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class ArxivMetadata:
    """A paper's metadata as arXiv's API gives it."""

    arxiv_id: str
    title: str
    authors: tuple[str, ...]
    abstract: str
    published: str  # ISO date, e.g. "2024-01-22"


def rate_exceeded(reply: Reply) -> bool:
    """arXiv's throttle without a 429: a 200 whose body is "Rate exceeded."."""
    return reply.status == 200 and reply.text.strip().rstrip(".").casefold() == "rate exceeded"


def bare_id(entry_id: str) -> str:
    """'http://arxiv.org/abs/2401.12345v2' -> '2401.12345' (old-style ids keep their archive)."""
    tail = entry_id.split("/abs/", 1)[-1]
    head, _, version = tail.rpartition("v")
    return head if head and version.isdigit() else tail


def _line(text: str | None) -> str:
    return " ".join((text or "").split())


class ArxivClient(SourceClient):
    """arXiv's API, one request per 3 s across every process on the store."""

    source = SOURCE

    def __init__(
        self,
        base_url: str = API_ROOT,
        *,
        turns: StoreTurns | None = None,
        limit: RateLimit = RATE_LIMIT,
        **options: Unpack[ClientOptions],
    ) -> None:
        super().__init__(
            base_url,
            limit,
            headers={"Accept": "application/atom+xml"},
            throttled=rate_exceeded,
            default_retry_after=BARE_THROTTLE_WAIT,
            turns=turns,
            **options,
        )

    async def fetch(self, arxiv_id: str, *, max_wait: float | None = None) -> ArxivMetadata | None:
        """Metadata for ``arxiv_id``; None when arXiv knows no such paper; SourceUnavailable otherwise."""
        found = _entries(await self._feed({"id_list": arxiv_id, "max_results": "1"}, max_wait))
        paper = next((p for p in found if p.arxiv_id.lower() == arxiv_id.lower()), None)
        return None if paper is None else replace(paper, arxiv_id=arxiv_id)

    async def search_titles(
        self, query: str, limit: int = 5, *, max_wait: float | None = None
    ) -> list[Candidate]:
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
        return [
            Candidate(
                source=SOURCE,
                source_id=paper.arxiv_id,
                title=paper.title,
                authors=paper.authors,
                year=clean.year(paper.published[:4]),
                arxiv_id=paper.arxiv_id,
                url=f"https://arxiv.org/abs/{paper.arxiv_id}",
            )
            for paper in _entries(await self._feed(params, max_wait))
        ][:limit]

    async def _feed(self, params: dict[str, str], max_wait: float | None) -> ET.Element | None:
        """The answer's Atom feed; None for a 400; SourceUnavailable otherwise or for an error entry."""
        reply = await self.get("", params, max_wait=max_wait)
        if reply.status == 400:
            return None
        if reply.status != 200:
            raise self.unavailable(f"answered HTTP {reply.status}")
        try:
            root = ET.fromstring(reply.text)
        except ET.ParseError:
            raise self.unavailable("answered something that is not XML") from None
        if root.tag != f"{ATOM}feed":
            raise self.unavailable("answered XML that is not an Atom feed")
        for entry in root.findall(f"{ATOM}entry"):
            if _line(entry.findtext(f"{ATOM}id")).startswith(ERROR_ID_PREFIX):
                said = clean.text(entry.findtext(f"{ATOM}summary"), 200)
                log.warning("arXiv answered with an error entry; nothing read")  # not the query: typed
                log.debug("arXiv's error entry for %r: %s", params, said)
                raise self.unavailable(f"answered with an error entry: {said}")
        return root


def _entries(root: ET.Element | None) -> list[ArxivMetadata]:
    """The feed's entries with an id and a title (none for no feed)."""
    found = []
    for entry in [] if root is None else root.findall(f"{ATOM}entry"):
        arxiv_id = clean.ident(bare_id(_line(entry.findtext(f"{ATOM}id"))), 64)
        title = clean.text(entry.findtext(f"{ATOM}title"), clean.TITLE_MAX)
        if arxiv_id is None or title is None:
            continue
        authors = clean.names(author.findtext(f"{ATOM}name") for author in entry.findall(f"{ATOM}author"))
        abstract = clean.text(entry.findtext(f"{ATOM}summary"), ABSTRACT_MAX) or ""
        published = _line(entry.findtext(f"{ATOM}published"))[:10]
        found.append(ArxivMetadata(arxiv_id, title, authors, abstract, published))
    return found
