"""Semantic Scholar's Graph API (https://api.semanticscholar.org/api-docs/graph): papers by id, title match
and search; 1 request/s with a key; attribution links back (https://www.semanticscholar.org/product/api/license)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Unpack
from urllib.parse import urlsplit, urlunsplit

from bot.sources import clean
from bot.sources.http import Candidate, ClientOptions, SourceClient
from bot.sources.pace import RateLimit

SOURCE = "semantic_scholar"
API_ROOT = "https://api.semanticscholar.org/graph/v1"
RATE_LIMIT = RateLimit(1, 1.0)
BATCH_MAX = 500
SEARCH_MAX = 100  # /paper/search's largest page

ATTRIBUTION_TEXT = "Data from Semantic Scholar"
ATTRIBUTION_URL = "https://www.semanticscholar.org/?utm_source=api"

PAPER_FIELDS = (
    "paperId,externalIds,url,title,venue,publicationVenue,year,authors,citationCount,"
    "influentialCitationCount,openAccessPdf,tldr"
)
CANDIDATE_FIELDS = "paperId,externalIds,url,title,venue,year,authors"


@dataclass(frozen=True)
class ScholarPaper:
    """What Semantic Scholar knows about one paper (text cleaned and capped, but untrusted)."""

    paper_id: str
    title: str | None
    authors: tuple[str, ...]
    year: int | None
    venue: str | None  # its normalised venue's name ("publicationVenue"), else the venue as given
    tldr: str | None
    citation_count: int | None
    influential_citation_count: int | None
    open_access_pdf: str | None
    arxiv_id: str | None
    doi: str | None  # lower-cased (Semantic Scholar upper-cases them; DOIs are case-insensitive)
    url: str | None  # the paper's page on semanticscholar.org


def paper_page_url(paper: ScholarPaper) -> str | None:
    """The paper's Semantic Scholar page with ``utm_source=api``, the link back the attribution asks for."""
    if paper.url is None:
        return None
    parts = urlsplit(paper.url)
    query = f"{parts.query}&utm_source=api" if parts.query else "utm_source=api"
    return urlunsplit(parts._replace(query=query))


def _external_id(entry: dict[str, Any], kind: str) -> str | None:
    """One of the paper's ids by Semantic Scholar's name for it ("ArXiv", "DOI"), any case."""
    ids = clean.mapping(entry.get("externalIds")).items()
    return next((v for k, raw in ids if str(k).lower() == kind.lower() and (v := clean.ident(raw))), None)


class SemanticScholarClient(SourceClient):
    """The Academic Graph API, paced to 1 request per second."""

    source = SOURCE

    def __init__(
        self, base_url: str = API_ROOT, *, api_key: str | None = None, **options: Unpack[ClientOptions]
    ) -> None:
        # The key is never logged: SourceClient logs paths and reasons only, and bot.logs redacts it.
        super().__init__(base_url, RATE_LIMIT, headers={"x-api-key": api_key} if api_key else None, **options)

    async def papers(
        self, paper_ids: Sequence[str], *, max_wait: float | None = None
    ) -> list[ScholarPaper | None]:
        """Papers by ``ARXIV:…``, ``DOI:…``, ``CorpusId:…`` or S2 id, one per id in order (None: unknown)."""
        found: list[ScholarPaper | None] = []
        for start in range(0, len(paper_ids), BATCH_MAX):
            chunk = list(paper_ids[start : start + BATCH_MAX])
            params = {"fields": PAPER_FIELDS}
            reply = await self.get("/paper/batch", params, max_wait=max_wait, body={"ids": chunk})
            body = self.answer(reply, "a batch", unknown=())
            if not isinstance(body, list) or len(body) != len(chunk):
                raise self.unavailable("answered a batch with something other than one entry per id")
            found.extend(None if entry is None else self._paper(entry) for entry in body)
        return found

    async def match_title(self, query: str, *, max_wait: float | None = None) -> Candidate | None:
        """The paper whose title best matches ``query`` (``/paper/search/match``); None when none does."""
        text = clean.query(query)
        if not text:
            return None
        reply = await self.get(
            "/paper/search/match", {"query": text, "fields": CANDIDATE_FIELDS}, max_wait=max_wait
        )
        # 404: "Title match not found"; 400: a query it cannot use.
        body = self.answer(reply, "a title match", unknown=(400, 404))
        data = clean.items(clean.mapping(body).get("data"))
        candidates = [c for c in map(self._candidate, data) if c is not None]
        return candidates[0] if candidates else None

    async def search(self, query: str, limit: int = 5, *, max_wait: float | None = None) -> list[Candidate]:
        """Relevance-ranked papers for ``query`` (``/paper/search``), at most ``limit`` (≤ 100)."""
        text = clean.query(query)
        if not text or limit < 1:
            return []
        params = {"query": text, "limit": str(min(limit, SEARCH_MAX)), "fields": CANDIDATE_FIELDS}
        reply = await self.get("/paper/search", params, max_wait=max_wait)
        body = self.answer(reply, "a search", unknown=(400,))
        if body is None:
            return []
        if not isinstance(body, dict):
            raise self.unavailable("answered a search with something other than an object")
        return [c for c in map(self._candidate, clean.items(body.get("data"))) if c is not None][:limit]

    def _paper(self, value: Any) -> ScholarPaper:
        entry = clean.mapping(value)
        paper_id = clean.ident(entry.get("paperId"), 64)
        if paper_id is None:
            raise self.unavailable("answered a paper without a paperId")
        return ScholarPaper(
            paper_id=paper_id,
            title=clean.text(entry.get("title"), clean.TITLE_MAX),
            authors=clean.authors(entry.get("authors")),
            year=clean.year(entry.get("year")),
            venue=clean.text(clean.mapping(entry.get("publicationVenue")).get("name"), clean.VENUE_MAX)
            or clean.text(entry.get("venue"), clean.VENUE_MAX),
            tldr=clean.text(clean.mapping(entry.get("tldr")).get("text"), clean.TLDR_MAX),
            citation_count=clean.count(entry.get("citationCount")),
            influential_citation_count=clean.count(entry.get("influentialCitationCount")),
            open_access_pdf=clean.url(clean.mapping(entry.get("openAccessPdf")).get("url")),
            arxiv_id=_external_id(entry, "ArXiv"),
            doi=doi.lower() if (doi := _external_id(entry, "DOI")) else None,
            url=clean.url(entry.get("url")),
        )

    def _candidate(self, value: Any) -> Candidate | None:
        entry = clean.mapping(value)
        if clean.ident(entry.get("paperId"), 64) is None or (paper := self._paper(entry)).title is None:
            return None
        return Candidate(
            source=SOURCE,
            source_id=paper.paper_id,
            title=paper.title,
            authors=paper.authors,
            year=paper.year,
            venue=paper.venue,
            arxiv_id=paper.arxiv_id,
            doi=paper.doi,
            url=paper.url,
        )
