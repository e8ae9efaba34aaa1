"""A local stand-in for the arXiv Atom API (``/api/query``), for tests and the demo.

Papers registered with :meth:`ArxivStandin.add` are answered by ``id_list`` or by title ``search_query``
with arXiv's full entry: ``<id>``, ``<updated>``, ``<published>``, title, summary, authors, ``<link>``s
(abstract page, PDF, DOI), ``<category>``s and ``arxiv:primary_category`` (the user manual's "Details of
Atom Results Returned", https://info.arxiv.org/help/api/user-manual.html). An old-style id given with its
subject class (``math.GT/0309136``) is answered under the id arXiv writes (``math/0309136``); an id it cannot
read gets arXiv's error entry. Throttling is arXiv's own: a bare 429 whose body is ``Rate exceeded.``, with
no Retry-After, or at times a 200 with that body (lukasschwab/arxiv.py#203, ultimatile/arxiv-skills#25).
``enforce_rate_limit`` models "no more than one request every three seconds" on "a single connection"
(https://info.arxiv.org/help/api/tou.html), keeping refusals in ``refused_too_fast`` and overlapping
requests in ``overlapped``; ``clock`` times requests, so a test can share a virtual clock with the client.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal
from xml.sax.saxutils import escape, quoteattr

from aiohttp import web

Mode = Literal["ok", "down", "slow", "rate_limited", "error_entry"]

MIN_INTERVAL = 3.0  # arXiv's terms of use: one request every three seconds
ARXIV_NS = "http://arxiv.org/schemas/atom"
_TERM = re.compile(r'ti:(?:"(?P<phrase>[^"]*)"|(?P<word>[^\s"()]+))', re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+")
_ID_OK = re.compile(r"(\d{4}\.\d{4,5}|[a-z][a-z-]*(\.[A-Z]{2})?/\d{7})(v\d+)?")
_SUBJECT_CLASS = re.compile(r"^([a-z][a-z-]*)\.[A-Z]{2}/")


def canonical(arxiv_id: str) -> str:
    """An id as arXiv writes it: no version, no subject class (``math.GT/0309136v2`` -> ``math/0309136``)."""
    return _SUBJECT_CLASS.sub(r"\1/", re.sub(r"v\d+$", "", arxiv_id.strip()))


@dataclass
class StandinPaper:
    """A paper the arXiv stand-in knows, as its Atom feed shows it."""

    arxiv_id: str
    title: str
    authors: list[str] = field(default_factory=list)
    abstract: str = ""
    published: str = "2024-01-22T18:59:59Z"
    updated: str | None = None  # the latest version's date (the published one when None)
    categories: list[str] = field(default_factory=lambda: ["cs.LG"])
    doi: str | None = None
    comment: str | None = None
    version: int = 1


def _feed(entries: list[str], total: int, start: int = 0, query: str = "") -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom">\n'
        f'  <link href={quoteattr("http://arxiv.org/api/query?" + query)} rel="self" type="application/atom+xml"/>\n'
        f'  <title type="html">ArXiv Query: {escape(query)}</title>\n'
        "  <id>http://arxiv.org/api/stand-in</id>\n"
        "  <updated>2026-12-01T00:00:00-05:00</updated>\n"
        '  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">'
        f"{total}</opensearch:totalResults>\n"
        '  <opensearch:startIndex xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">'
        f"{start}</opensearch:startIndex>\n"
        '  <opensearch:itemsPerPage xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">'
        f"{len(entries)}</opensearch:itemsPerPage>\n" + "".join(entries) + "</feed>\n"
    )


def paper_entry(paper: StandinPaper) -> str:
    """Render one paper as an arXiv Atom ``<entry>``."""
    versioned = f"{paper.arxiv_id}v{paper.version}"
    authors = "".join(f"    <author>\n      <name>{escape(a)}</name>\n    </author>\n" for a in paper.authors)
    # arXiv wraps long titles over lines with double spaces; the client must cope.
    title = escape(paper.title).replace(" ", "\n  ", 1) if len(paper.title) > 40 else escape(paper.title)
    doi = (
        f'    <arxiv:doi xmlns:arxiv="{ARXIV_NS}">{escape(paper.doi)}</arxiv:doi>\n'
        f'    <link title="doi" href={quoteattr("http://dx.doi.org/" + paper.doi)} rel="related"/>\n'
        if paper.doi
        else ""
    )
    comment = (
        f'    <arxiv:comment xmlns:arxiv="{ARXIV_NS}">{escape(paper.comment)}</arxiv:comment>\n'
        if paper.comment
        else ""
    )
    categories = "".join(
        f'    <category term={quoteattr(c)} scheme="{ARXIV_NS}"/>\n' for c in paper.categories
    )
    primary = paper.categories[0] if paper.categories else "cs.LG"
    return (
        "  <entry>\n"
        f"    <id>http://arxiv.org/abs/{escape(versioned)}</id>\n"
        f"    <updated>{escape(paper.updated or paper.published)}</updated>\n"
        f"    <published>{escape(paper.published)}</published>\n"
        f"    <title>{title}</title>\n"
        f"    <summary>  {escape(paper.abstract)}\n</summary>\n"
        f"{authors}{doi}{comment}"
        f'    <link href={quoteattr("http://arxiv.org/abs/" + versioned)} rel="alternate" type="text/html"/>\n'
        f'    <link title="pdf" href={quoteattr("http://arxiv.org/pdf/" + versioned)} rel="related" '
        'type="application/pdf"/>\n'
        f'    <arxiv:primary_category xmlns:arxiv="{ARXIV_NS}" term={quoteattr(primary)} scheme="{ARXIV_NS}"/>\n'
        f"{categories}"
        "  </entry>\n"
    )


def error_entry(arxiv_id: str) -> str:
    """Render the error entry arXiv returns for an id it cannot parse."""
    error_id = f"http://arxiv.org/api/errors#incorrect_id_format_for_{arxiv_id}"
    return (
        "  <entry>\n"
        f"    <id>{escape(error_id)}</id>\n"
        "    <title>Error</title>\n"
        f"    <summary>incorrect id format for {escape(arxiv_id)}</summary>\n"
        "    <updated>2026-12-01T00:00:00-05:00</updated>\n"
        f'    <link href={quoteattr(error_id)} rel="alternate" type="text/html"/>\n'
        "    <author>\n      <name>arXiv api core</name>\n    </author>\n"
        "  </entry>\n"
    )


class ArxivStandin:
    """An aiohttp server on 127.0.0.1 answering like export.arxiv.org/api/query."""

    def __init__(self, *, clock: Callable[[], float] | None = None) -> None:
        self.papers: dict[str, StandinPaper] = {}
        self.mode: Mode = "ok"
        self.delay = 10.0
        self.requests: list[str] = []  # the id_list (or search_query) of each request, in order
        self.request_times: list[float] = []  # clock() when each arrived
        self.clock = clock or time.monotonic
        self.enforce_rate_limit = False
        self.min_interval = MIN_INTERVAL
        self.refused_too_fast: list[float] = []  # arrival times of requests sooner than min_interval
        self.overlapped: list[float] = []  # arrival times of requests made while another was in flight
        self._in_flight = 0
        self._last_admitted = -float("inf")
        self._throttle_next: list[int] = []  # statuses of the next throttled answers (429 or 200)
        self._runner: web.AppRunner | None = None
        self.url = ""

    def add(
        self,
        arxiv_id: str,
        title: str,
        authors: list[str] | None = None,
        abstract: str = "",
        published: str = "2024-01-22T18:59:59Z",
        *,
        updated: str | None = None,
        categories: list[str] | None = None,
        doi: str | None = None,
    ) -> StandinPaper:
        """Add a paper the stand-in will answer for (under the id arXiv writes), and return it."""
        paper = StandinPaper(canonical(arxiv_id), title, list(authors or []), abstract, published, updated)
        paper.categories = list(categories or paper.categories)
        paper.doi = doi
        self.papers[paper.arxiv_id.lower()] = paper
        return paper

    def rate_limit_next(self, count: int, status: int = 429) -> None:
        """Throttle the next ``count`` queries as arXiv does: ``Rate exceeded.`` with HTTP ``status`` (429,
        or at times 200), and no Retry-After."""
        self._throttle_next = [status] * count

    async def start(self, port: int = 0) -> str:
        """Start serving on ``port`` (0: any free one) and return the base URL."""
        app = web.Application()
        app.router.add_get("/api/query", self._query)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        sock_port = self._runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{sock_port}/api/query"
        return self.url

    async def stop(self) -> None:
        """Stop serving."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def search(self, search_query: str) -> list[StandinPaper]:
        """The papers whose titles hold every ``ti:`` phrase of ``search_query``, in the order added."""
        phrases = [
            [w.lower() for w in _WORD.findall(m["phrase"] if m["phrase"] is not None else m["word"])]
            for m in _TERM.finditer(search_query)
        ]
        phrases = [p for p in phrases if p]
        if not phrases:
            return []
        found = []
        for paper in self.papers.values():
            words = [w.lower() for w in _WORD.findall(paper.title)]
            if all(_holds(words, phrase) for phrase in phrases):
                found.append(paper)
        return found

    async def _query(self, request: web.Request) -> web.Response:
        now = self.clock()
        if self._in_flight:
            self.overlapped.append(now)
        self._in_flight += 1
        try:
            return await self._answer(request, now)
        finally:
            self._in_flight -= 1

    async def _answer(self, request: web.Request, now: float) -> web.Response:
        id_list = request.query.get("id_list", "")
        search_query = request.query.get("search_query") or None  # the arxiv client sends it empty
        self.requests.append(id_list if search_query is None else search_query)
        self.request_times.append(now)
        if self.enforce_rate_limit:
            if now - self._last_admitted < self.min_interval:
                self.refused_too_fast.append(now)
                return web.Response(status=429, text="Rate exceeded.")
            self._last_admitted = now
        if self._throttle_next or self.mode == "rate_limited":
            status = self._throttle_next.pop(0) if self._throttle_next else 429
            return web.Response(status=status, text="Rate exceeded.")
        if self.mode == "down":
            return web.Response(status=503, text="Service Unavailable")
        if self.mode == "slow":
            await asyncio.sleep(self.delay)
        if self.mode == "error_entry":  # arXiv failing to read a query it should read
            return self._atom(_feed([error_entry(id_list or "query")], 1, query=request.query_string))
        if search_query is not None:
            return self._search_feed(request, search_query)
        entries: list[str] = []
        for arxiv_id in filter(None, (part.strip() for part in id_list.split(","))):
            if not _ID_OK.fullmatch(arxiv_id):
                entries.append(error_entry(arxiv_id))
            elif paper := self.papers.get(canonical(arxiv_id).lower()):
                entries.append(paper_entry(paper))
        total = sum(1 for entry in entries if "api/errors" not in entry)
        return self._atom(_feed(entries, total, query=request.query_string))

    def _search_feed(self, request: web.Request, search_query: str) -> web.Response:
        try:
            start = int(request.query.get("start", "0"))
            max_results = int(request.query.get("max_results", "10"))
        except ValueError:
            return web.Response(status=400, text="start and max_results must be numbers")
        found = self.search(search_query)
        entries = [paper_entry(paper) for paper in found[start : start + max(0, max_results)]]
        return self._atom(_feed(entries, len(found), start, request.query_string))

    @staticmethod
    def _atom(body: str) -> web.Response:
        return web.Response(text=body, content_type="application/atom+xml")


def _holds(words: list[str], phrase: list[str]) -> bool:
    """True when ``phrase`` appears, in order, in ``words``."""
    n = len(phrase)
    return any(words[i : i + n] == phrase for i in range(len(words) - n + 1))
