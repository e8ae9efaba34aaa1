"""A local stand-in for the Semantic Scholar Academic Graph API (``/graph/v1``), for tests and the demo.

Answers paper lookup, batch, title match and search as the Academic Graph OpenAPI description has them
(https://api.semanticscholar.org/api-docs/graph), every documented paper field and its documented subfields
accepted (``citationStyles``, ``publicationTypes``, ``s2FieldsOfStudy``, ``authors.hIndex``,
``citations.title``, ...; anything else is a 400); DOIs come back upper-cased, as Semantic Scholar writes
them. Rate limits (https://www.semanticscholar.org/product/api):
a keyed request (``x-api-key`` in ``api_keys``) is held to its key's limit, a wrong key is 403; unkeyed ones
share the anonymous pool, where 429s come at random (``anonymous_refusals``, seeded) or on request
(``rate_limit_next``), with no Retry-After unless ``send_retry_after``.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from standin.http_service import Clock, ServiceStandin, SlidingWindow

BATCH_MAX = 500
SEARCH_MAX = 100
KEYED_RATE = (1, 1.0)  # requests per seconds, per key
TOO_MANY = {
    "message": "Too Many Requests. Please wait and try again or apply for a key for higher rate limits. "
    "https://www.semanticscholar.org/product/api#api-key-form",
    "code": "429",
}
#: The Graph API's paper fields, and the subfields a dotted field may ask for ("authors.name").
FIELDS = {
    "paperId",
    "corpusId",
    "externalIds",
    "url",
    "title",
    "abstract",
    "venue",
    "publicationVenue",
    "year",
    "referenceCount",
    "citationCount",
    "influentialCitationCount",
    "isOpenAccess",
    "openAccessPdf",
    "fieldsOfStudy",
    "s2FieldsOfStudy",
    "publicationTypes",
    "publicationDate",
    "journal",
    "citationStyles",
    "authors",
    "citations",
    "references",
    "embedding",
    "tldr",
    "textAvailability",
}
AUTHOR_FIELDS = {
    "authorId",
    "externalIds",
    "url",
    "name",
    "affiliations",
    "homepage",
    "paperCount",
    "citationCount",
    "hIndex",
}
SUBFIELDS = {
    "authors": AUTHOR_FIELDS,
    "citations": FIELDS - {"citations", "references", "embedding", "tldr", "textAvailability"},
    "references": FIELDS - {"citations", "references", "embedding", "tldr", "textAvailability"},
    "embedding": {"specter_v1", "specter_v2"},
}
EMBEDDING_SIZE = 768  # SPECTER's
_WORD = re.compile(r"\w+")


def _known(field: str) -> bool:
    top, dot, sub = field.partition(".")
    return top in FIELDS and (not dot or sub in SUBFIELDS.get(top, ()))


def _author(author: Any, field: str, shaped: Any) -> Any:
    """An author with one more subfield filled in, as a dotted ``authors.<field>`` asks."""
    if not isinstance(author, dict):
        return author
    known = next(
        (a for a in shaped or [] if isinstance(a, dict) and a.get("authorId") == author.get("authorId")), {}
    )
    filled: dict[str, Any] = {
        "authorId": author.get("authorId"),
        "externalIds": {},
        "url": f"https://www.semanticscholar.org/author/{author.get('authorId')}",
        "name": author.get("name"),
        "affiliations": [],
        "homepage": None,
        "paperCount": 1,
        "citationCount": 0,
        "hIndex": 0,
    }
    return {**known, "authorId": author.get("authorId"), field: filled.get(field)}


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


@dataclass
class S2Paper:
    """One paper the stand-in knows, in the API's own field names (see :meth:`SemanticScholarStandin.add`)."""

    paper_id: str
    record: dict[str, Any] = field(default_factory=dict)


class SemanticScholarStandin(ServiceStandin):
    """An aiohttp server on 127.0.0.1 answering like api.semanticscholar.org/graph/v1."""

    name = "semantic_scholar"
    keep_types = frozenset({"paperId"})

    def __init__(
        self,
        *,
        clock: Clock | None = None,
        api_keys: set[str] | None = None,
        anonymous_refusals: float = 0.0,
        seed: int = 20,
    ) -> None:
        super().__init__(clock=clock)
        self.papers: dict[str, S2Paper] = {}
        self._aliases: dict[
            str, str
        ] = {}  # "ARXIV:2106.15928" / "DOI:10.x" (upper-cased) / "CORPUSID:1" -> id
        self.api_keys = set(api_keys or ())
        self.anonymous_refusals = anonymous_refusals
        self.send_retry_after = False
        self._random = random.Random(seed)
        self._per_key: dict[str, SlidingWindow] = {}

    @property
    def base(self) -> str:
        """The API root to give a client (``…/graph/v1``)."""
        return f"{self.url}/graph/v1"

    def add(
        self,
        paper_id: str,
        title: Any,
        *,
        arxiv_id: str | None = None,
        doi: str | None = None,
        corpus_id: int | None = None,
        authors: list[Any] | None = None,
        year: Any = None,
        venue: Any = "",
        publication_venue: Any = None,
        tldr: Any = None,
        citation_count: Any = 0,
        influential_citation_count: Any = 0,
        open_access_pdf: Any = None,
        **extra: Any,
    ) -> S2Paper:
        """Know a paper. Values go out as given (a test may pass hostile or wrongly typed ones)."""
        external: dict[str, Any] = {}
        if arxiv_id:
            external["ArXiv"] = arxiv_id
        if doi:
            external["DOI"] = doi.upper()  # as Semantic Scholar writes them
        corpus = corpus_id if corpus_id is not None else 200_000_000 + len(self.papers)
        external["CorpusId"] = corpus
        names = [name for name in authors or [] if isinstance(name, str)]
        record = {
            "paperId": paper_id,
            "corpusId": corpus,
            "externalIds": external,
            "url": f"https://www.semanticscholar.org/paper/{paper_id}",
            "title": title,
            "abstract": None,
            "venue": venue,
            "publicationVenue": publication_venue,
            "year": year,
            "referenceCount": 0,
            "citationCount": citation_count,
            "influentialCitationCount": influential_citation_count,
            "isOpenAccess": bool(open_access_pdf),
            "openAccessPdf": {"url": open_access_pdf, "status": "GREEN", "license": None}
            if open_access_pdf
            else None,
            "fieldsOfStudy": ["Computer Science"],
            "s2FieldsOfStudy": [
                {"category": "Computer Science", "source": "external"},
                {"category": "Computer Science", "source": "s2-fos-model"},
            ],
            "publicationTypes": ["JournalArticle"] if arxiv_id else ["Conference"],
            "publicationDate": f"{year}-06-17"
            if isinstance(year, int) and not isinstance(year, bool)
            else None,
            "journal": {"name": "ArXiv", "volume": arxiv_id} if arxiv_id else None,
            "citationStyles": {
                "bibtex": f"@Article{{{paper_id},\n title = {{{title}}},\n author = {{{' and '.join(names)}}}\n}}"
            },
            "authors": [
                {"authorId": str(1000 + i), "name": name} if isinstance(name, str) else name
                for i, name in enumerate(authors or [])
            ],
            "citations": [],
            "references": [],
            "embedding": {"model": "specter_v1", "vector": [0.0] * EMBEDDING_SIZE},
            "tldr": {"model": "tldr@v2.0.0", "text": tldr} if tldr is not None else None,
            "textAvailability": "abstract",
            **extra,
        }
        paper = S2Paper(paper_id, record)
        self.papers[paper_id] = paper
        for alias in (
            f"ARXIV:{arxiv_id}" if arxiv_id else None,
            f"DOI:{doi}" if doi else None,
            f"CORPUSID:{corpus_id}" if corpus_id is not None else None,
        ):
            if alias:
                self._aliases[alias.upper()] = paper_id
        return paper

    def find(self, ref: str) -> S2Paper | None:
        """The paper an id of any accepted form names."""
        if ref in self.papers:
            return self.papers[ref]
        paper_id = self._aliases.get(re.sub(r"v\d+$", "", ref).upper()) or self._aliases.get(ref.upper())
        return self.papers.get(paper_id) if paper_id else None

    # -- limits ----------------------------------------------------------------------------------------
    def refuse(self, request: web.Request) -> web.Response | None:
        """Semantic Scholar's 403 for an unknown API key, or None."""
        key = request.headers.get("x-api-key")
        if key is not None and key not in self.api_keys:
            return web.json_response({"message": "Forbidden"}, status=403)
        return None

    def over_limit(self, request: web.Request, now: float) -> float | None:
        """Seconds to wait before this keyed request fits its key's limit, or None when it is admitted."""
        key = request.headers.get("x-api-key")
        if key is None:
            return None  # the shared pool: no per-client limit, see busy()
        return self._per_key.setdefault(key, SlidingWindow(*KEYED_RATE)).admit(now)

    def busy(self, request: web.Request) -> bool:
        """Whether to refuse this unkeyed request because the shared pool is busy."""
        return "x-api-key" not in request.headers and self._random.random() < self.anonymous_refusals

    def too_fast(self, request: web.Request, wait: float | None, told: bool = False) -> web.Response:
        """Semantic Scholar's 429 answer."""
        headers = {}
        if (told or self.send_retry_after) and wait is not None:
            headers["Retry-After"] = str(max(1, round(wait + 0.499)))
        return web.json_response(TOO_MANY, status=429, headers=headers)

    # -- routes ----------------------------------------------------------------------------------------
    def add_routes(self, router: web.UrlDispatcher) -> None:
        """Register the paper batch, match, search and lookup routes."""
        router.add_post("/graph/v1/paper/batch", self._batch)
        router.add_get("/graph/v1/paper/search/match", self._match)
        router.add_get("/graph/v1/paper/search", self._search)
        router.add_get("/graph/v1/paper/{paper_id:.+}", self._paper)

    def _fields(
        self, request: web.Request, default: tuple[str, ...] = ("title",)
    ) -> list[str] | web.Response:
        raw = request.query.get("fields")
        if raw is None:
            return list(default)
        asked = [f.strip() for f in raw.split(",") if f.strip()]
        unknown = [f for f in asked if not _known(f)]
        if unknown:
            return web.json_response({"error": f"Unrecognized or unsupported fields: {unknown}"}, status=400)
        return asked

    @staticmethod
    def _shape(paper: S2Paper, fields: list[str], **more: Any) -> dict[str, Any]:
        out = {"paperId": paper.paper_id, **more}
        for name in fields:
            top, _, sub = name.partition(".")
            if top not in paper.record:
                continue
            value = paper.record[top]
            if top == "authors" and sub and isinstance(value, list):
                value = [_author(a, sub, out.get("authors")) for a in value]
            out[top] = value
        return out

    async def _paper(self, request: web.Request) -> web.Response:
        fields = self._fields(request)
        if isinstance(fields, web.Response):
            return fields
        ref = request.match_info["paper_id"]
        paper = self.find(ref)
        if paper is None:
            return web.json_response({"error": f"Paper with id {ref} not found"}, status=404)
        return web.json_response(self._shape(paper, fields))

    async def _batch(self, request: web.Request) -> web.Response:
        fields = self._fields(request)
        if isinstance(fields, web.Response):
            return fields
        try:
            body = await request.json()
        except ValueError:
            return web.json_response({"error": "Unacceptable body"}, status=400)
        ids = body.get("ids") if isinstance(body, dict) else None
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            return web.json_response({"error": "ids must be a list of strings"}, status=400)
        if len(ids) > BATCH_MAX:
            return web.json_response(
                {"error": f"Cannot process more than {BATCH_MAX} ids at a time"}, status=400
            )
        return web.json_response(
            [None if (paper := self.find(ref)) is None else self._shape(paper, fields) for ref in ids]
        )

    def _ranked(self, query: str) -> list[tuple[float, S2Paper]]:
        asked = _words(query)
        ranked = []
        for paper in self.papers.values():
            title = paper.record.get("title")
            words = _words(title) if isinstance(title, str) else set()
            if asked and words and (shared := asked & words):
                ranked.append((len(shared) / len(asked | words), paper))
        ranked.sort(key=lambda pair: (-pair[0], pair[1].paper_id))
        return ranked

    async def _match(self, request: web.Request) -> web.Response:
        fields = self._fields(request)
        if isinstance(fields, web.Response):
            return fields
        query = request.query.get("query", "")
        if not query.strip():
            return web.json_response({"error": "Missing required parameter: query"}, status=400)
        ranked = [(score, paper) for score, paper in self._ranked(query) if score >= 0.5]
        if not ranked:
            return web.json_response({"error": "Title match not found"}, status=404)
        score, paper = ranked[0]
        return web.json_response(
            {"data": [self._shape(paper, fields, matchScore=round(100 + 100 * score, 4))]}
        )

    async def _search(self, request: web.Request) -> web.Response:
        fields = self._fields(request)
        if isinstance(fields, web.Response):
            return fields
        query = request.query.get("query", "")
        try:
            offset = int(request.query.get("offset", "0"))
            limit = int(request.query.get("limit", "10"))
        except ValueError:
            return web.json_response({"error": "offset and limit must be numbers"}, status=400)
        if not query.strip() or not 0 < limit <= SEARCH_MAX or offset < 0:
            return web.json_response({"error": "Unacceptable query params"}, status=400)
        ranked = self._ranked(query)
        page = ranked[offset : offset + limit]
        answer: dict[str, Any] = {
            "total": len(ranked),
            "offset": offset,
            "data": [self._shape(paper, fields) for _, paper in page],
        }
        if offset + limit < len(ranked):
            answer["next"] = offset + limit
        return web.json_response(answer)
