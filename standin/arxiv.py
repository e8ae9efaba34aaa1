"""A local stand-in for the arXiv Atom API (``/api/query``), for tests and the demo.

Papers registered with :meth:`ArxivStandin.add` are answered by ``id_list`` or by title ``search_query``
(https://info.arxiv.org/help/api/user-manual.html); unknown ids get arXiv's answers for them. ``mode`` and
``rate_limit_next`` simulate trouble; ``enforce_rate_limit`` models arXiv's "no more than one request every
three seconds" (https://info.arxiv.org/help/api/tou.html), keeping refusals in ``refused_too_fast``. ``clock``
times requests, so a test can share a virtual clock with the client.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal
from xml.sax.saxutils import escape

from aiohttp import web

Mode = Literal["ok", "down", "slow", "rate_limited"]

MIN_INTERVAL = 3.0  # arXiv's terms of use: one request every three seconds
_TERM = re.compile(r'ti:(?:"(?P<phrase>[^"]*)"|(?P<word>[^\s"()]+))', re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+")
_ID_OK = re.compile(r"(\d{4}\.\d{4,5}|[a-z][a-z-]*(\.[A-Z]{2})?/\d{7})(v\d+)?")


@dataclass
class StandinPaper:
    """A paper the arXiv stand-in knows, as its Atom feed shows it."""

    arxiv_id: str
    title: str
    authors: list[str] = field(default_factory=list)
    abstract: str = ""
    published: str = "2024-01-22T18:59:59Z"


def _feed(entries: list[str], total: int) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">\n'
        '  <title type="html">ArXiv Query</title>\n'
        f"  <opensearch:totalResults>{total}</opensearch:totalResults>\n" + "".join(entries) + "</feed>\n"
    )


def paper_entry(paper: StandinPaper) -> str:
    """Render one paper as an arXiv Atom ``<entry>``."""
    authors = "".join(f"    <author><name>{escape(a)}</name></author>\n" for a in paper.authors)
    # arXiv wraps long titles over lines with double spaces; the client must cope.
    title = escape(paper.title).replace(" ", "\n  ", 1) if len(paper.title) > 40 else escape(paper.title)
    return (
        "  <entry>\n"
        f"    <id>http://arxiv.org/abs/{escape(paper.arxiv_id)}v1</id>\n"
        f"    <published>{escape(paper.published)}</published>\n"
        f"    <title>{title}</title>\n"
        f"    <summary>  {escape(paper.abstract)}\n</summary>\n"
        f"{authors}"
        "  </entry>\n"
    )


def error_entry(arxiv_id: str) -> str:
    """Render the error entry arXiv returns for an id it cannot parse."""
    return (
        "  <entry>\n"
        f"    <id>http://arxiv.org/api/errors#incorrect_id_format_for_{escape(arxiv_id)}</id>\n"
        "    <title>Error</title>\n"
        f"    <summary>incorrect id format for {escape(arxiv_id)}</summary>\n"
        "  </entry>\n"
    )


class ArxivStandin:
    """An aiohttp server on 127.0.0.1 answering like export.arxiv.org/api/query."""

    def __init__(self, *, clock: Callable[[], float] | None = None) -> None:
        self.papers: dict[str, StandinPaper] = {}
        self.mode: Mode = "ok"
        self.delay = 10.0
        self.retry_after = 1
        self.requests: list[str] = []  # the id_list (or search_query) of each request, in order
        self.request_times: list[float] = []  # clock() when each arrived
        self.clock = clock or time.monotonic
        self.enforce_rate_limit = False
        self.refused_too_fast: list[float] = []  # arrival times of requests sooner than MIN_INTERVAL
        self._last_admitted = -float("inf")
        self._rate_limit_next = 0
        self._runner: web.AppRunner | None = None
        self.url = ""

    def add(
        self,
        arxiv_id: str,
        title: str,
        authors: list[str] | None = None,
        abstract: str = "",
        published: str = "2024-01-22T18:59:59Z",
    ) -> StandinPaper:
        """Add a paper the stand-in will answer for, and return it."""
        paper = StandinPaper(arxiv_id, title, list(authors or []), abstract, published)
        self.papers[arxiv_id.lower()] = paper
        return paper

    def rate_limit_next(self, count: int, retry_after: int = 1) -> None:
        """Answer the next ``count`` queries with a 429 asking to retry after ``retry_after`` seconds."""
        self._rate_limit_next = count
        self.retry_after = retry_after

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
        id_list = request.query.get("id_list", "")
        search_query = request.query.get("search_query")
        self.requests.append(id_list if search_query is None else search_query)
        now = self.clock()
        self.request_times.append(now)
        if self.enforce_rate_limit:
            if now - self._last_admitted < MIN_INTERVAL:
                self.refused_too_fast.append(now)
                return web.Response(
                    status=429, text="Rate exceeded.", headers={"Retry-After": str(int(MIN_INTERVAL))}
                )
            self._last_admitted = now
        if self._rate_limit_next > 0 or self.mode == "rate_limited":
            self._rate_limit_next = max(0, self._rate_limit_next - 1)
            return web.Response(
                status=429, text="Rate exceeded.", headers={"Retry-After": str(self.retry_after)}
            )
        if self.mode == "down":
            return web.Response(status=503, text="Service Unavailable")
        if self.mode == "slow":
            await asyncio.sleep(self.delay)
        if search_query is not None:
            return self._search_feed(request, search_query)
        entries: list[str] = []
        for arxiv_id in filter(None, (part.strip() for part in id_list.split(","))):
            if not _ID_OK.fullmatch(arxiv_id):
                entries.append(error_entry(arxiv_id))
            elif paper := self.papers.get(re.sub(r"v\d+$", "", arxiv_id).lower()):
                entries.append(paper_entry(paper))
        total = sum(1 for entry in entries if "api/errors" not in entry)
        return web.Response(text=_feed(entries, total), content_type="application/atom+xml")

    def _search_feed(self, request: web.Request, search_query: str) -> web.Response:
        try:
            start = int(request.query.get("start", "0"))
            max_results = int(request.query.get("max_results", "10"))
        except ValueError:
            return web.Response(status=400, text="start and max_results must be numbers")
        found = self.search(search_query)
        entries = [paper_entry(paper) for paper in found[start : start + max(0, max_results)]]
        return web.Response(text=_feed(entries, len(found)), content_type="application/atom+xml")


def _holds(words: list[str], phrase: list[str]) -> bool:
    """True when ``phrase`` appears, in order, in ``words``."""
    n = len(phrase)
    return any(words[i : i + n] == phrase for i in range(len(words) - n + 1))
