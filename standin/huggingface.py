"""A local stand-in for Hugging Face Papers and the Hub's repo lists, for tests and the demo.

Answers the paper page (with the totals ``numTotalModels``, ``numTotalDatasets``, ``numTotalSpaces``), paper
search (``q`` at most 250 characters, a longer one refused with 400) and the documented repo lists filtered
by paper (``/api/models?filter=arxiv:<id>&sort=likes&limit=N``, datasets and Spaces alike) in the shapes
huggingface_hub's ``HfApi`` reads; a paper's ``publishedAt`` is its own (by default the month its arXiv id
names). Rate limit as hub-docs ``docs/hub/rate-limits.md`` has it for an anonymous caller: a fixed window
per IP, every answer with ``RateLimit`` and ``RateLimit-Policy`` headers, and a 429 that says when the window
resets in ``RateLimit``'s ``t=``, with no Retry-After.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from standin.http_service import Clock, FixedWindow, ServiceStandin

ANONYMOUS_QUOTA = 500
WINDOW = 300.0
QUERY_MAX = 250
KINDS = ("models", "datasets", "spaces")
_WORD = re.compile(r"\w+")
_NEW_ID = re.compile(r"(\d\d)(\d\d)\.(\d{4,5})")
_OLD_ID = re.compile(r"[a-z-]+(?:\.[A-Z]{2})?/(\d\d)(\d\d)(\d{3})")


def first_version_date(arxiv_id: str) -> str:
    """A paper's first-version date in the month its arXiv id names (2406.12045: June 2024)."""
    if found := _NEW_ID.fullmatch(arxiv_id):
        year, month, number = 2000 + int(found[1]), int(found[2]), int(found[3])
    elif found := _OLD_ID.fullmatch(arxiv_id):
        yy, month, number = int(found[1]), int(found[2]), int(found[3])
        year = 1900 + yy if yy > 90 else 2000 + yy
    else:
        return "2024-06-17T17:59:59.000Z"
    return f"{year}-{month:02d}-{number % 28 + 1:02d}T17:59:59.000Z"


@dataclass
class HubStandinPaper:
    """One indexed paper and the repos that cite it."""

    arxiv_id: str
    page: dict[str, Any]
    models: list[dict[str, Any]] = field(default_factory=list)
    datasets: list[dict[str, Any]] = field(default_factory=list)
    spaces: list[dict[str, Any]] = field(default_factory=list)


def _likes(entry: Any) -> int:
    likes = entry.get("likes") if isinstance(entry, dict) else None
    return likes if isinstance(likes, int) else 0


def repo(repo_id: Any, likes: Any = 0, downloads: Any = 0) -> dict[str, Any]:
    """A repo as the Hub lists it."""
    return {
        "id": repo_id,
        "_id": f"id-{repo_id}",
        "likes": likes,
        "downloads": downloads,
        "private": False,
        "tags": [],
        "createdAt": "2024-06-20T09:00:00.000Z",
    }


class HuggingFaceStandin(ServiceStandin):
    """An aiohttp server on 127.0.0.1 answering like huggingface.co's paper APIs."""

    name = "huggingface"
    keep_types = frozenset({"id"})

    def __init__(self, *, clock: Clock | None = None) -> None:
        super().__init__(clock=clock)
        self.papers: dict[str, HubStandinPaper] = {}
        self.citing: dict[str, dict[str, list[dict[str, Any]]]] = {}  # repos citing papers not indexed
        self.window = FixedWindow(ANONYMOUS_QUOTA, WINDOW, start=self.clock())

    def add(
        self,
        arxiv_id: str,
        title: Any,
        *,
        authors: list[Any] | None = None,
        summary: Any = "",
        upvotes: Any = 0,
        github_repo: Any = None,
        github_stars: Any = None,
        project_page: Any = None,
        published_at: str | None = None,
        models: list[dict[str, Any]] | None = None,
        datasets: list[dict[str, Any]] | None = None,
        spaces: list[dict[str, Any]] | None = None,
        totals: dict[str, Any] | None = None,
    ) -> HubStandinPaper:
        """Index a paper. Values go out as given (a test may pass hostile or wrongly typed ones); ``totals``
        ("models", "datasets", "spaces") overrides the counts of the lists given."""
        paper = HubStandinPaper(arxiv_id, {}, list(models or []), list(datasets or []), list(spaces or []))
        for kind in KINDS:
            for entry in getattr(paper, kind):
                if isinstance(entry, dict) and isinstance(entry.get("tags"), list):
                    entry["tags"].append(f"arxiv:{arxiv_id}")
        counts = {kind: len(getattr(paper, kind)) for kind in KINDS} | dict(totals or {})
        paper.page = {
            "id": arxiv_id,
            "authors": [
                {"_id": f"a{i}", "name": name, "hidden": False} for i, name in enumerate(authors or [])
            ],
            "publishedAt": published_at or first_version_date(arxiv_id),
            "title": title,
            "summary": summary,
            "upvotes": upvotes,
            "discussionId": f"d-{arxiv_id}",
            "githubRepo": github_repo,
            "githubStars": github_stars,
            "projectPage": project_page,
            "numTotalModels": counts["models"],
            "numTotalDatasets": counts["datasets"],
            "numTotalSpaces": counts["spaces"],
        }
        self.papers[arxiv_id] = paper
        return paper

    def over_limit(self, request: web.Request, now: float) -> float | None:
        """Seconds to wait before this request fits the hourly limit, or None when it is admitted."""
        return self.window.admit(now)

    def _headers(self) -> dict[str, str]:
        now = self.clock()
        left = max(0, ANONYMOUS_QUOTA - self.window.used)
        return {
            "RateLimit": f'"api";r={left};t={int(self.window.reset_in(now) + 0.999)}',
            "RateLimit-Policy": f'"fixed window";"api";q={ANONYMOUS_QUOTA};w={int(WINDOW)}',
        }

    def too_fast(self, request: web.Request, wait: float | None, told: bool = False) -> web.Response:
        """Hugging Face's 429 answer, with its ``RateLimit`` header."""
        headers = self._headers()
        if wait is not None:
            headers["RateLimit"] = f'"api";r=0;t={max(1, int(wait + 0.999))}'
        return web.json_response(
            {"error": "You have exceeded our hourly quotas for action: api. We invite you to retry later."},
            status=429,
            headers=headers,
        )

    def add_routes(self, router: web.UrlDispatcher) -> None:
        """Register the paper search, paper and repo list routes."""
        router.add_get("/api/papers/search", self._search)
        router.add_get("/api/papers/{arxiv_id:.+}", self._paper)
        for kind in KINDS:
            router.add_get(f"/api/{kind}", self._lister(kind))

    async def _paper(self, request: web.Request) -> web.Response:
        paper = self.papers.get(request.match_info["arxiv_id"])
        if paper is None:
            return web.json_response({"error": "Paper not found"}, status=404, headers=self._headers())
        return web.json_response(paper.page, headers=self._headers())

    def _lister(self, kind: str) -> Any:
        async def listed(request: web.Request) -> web.Response:
            """A kind's repos: those citing every ``arxiv:<id>`` filter, most liked first for sort=likes."""
            filters = request.query.getall("filter", [])
            papers = [f.removeprefix("arxiv:") for f in filters if f.startswith("arxiv:")]
            try:
                limit = int(request.query.get("limit", "1000"))
            except ValueError:
                return web.json_response({"error": "limit must be a number"}, status=400)
            found: list[dict[str, Any]] = []
            for arxiv_id in papers[:1]:
                paper = self.papers.get(arxiv_id)
                found = (
                    list(getattr(paper, kind)) if paper else list(self.citing.get(arxiv_id, {}).get(kind, []))
                )
            if request.query.get("sort") == "likes":
                found.sort(key=_likes, reverse=True)
            return web.json_response(found[: max(0, limit)], headers=self._headers())

        return listed

    async def _search(self, request: web.Request) -> web.Response:
        query = request.query.get("q", "")
        if len(query) > QUERY_MAX:
            return web.json_response({"error": f"q must be at most {QUERY_MAX} characters"}, status=400)
        asked = {w.lower() for w in _WORD.findall(query)}
        try:
            limit = int(request.query.get("limit", "50"))
        except ValueError:
            return web.json_response({"error": "limit must be a number"}, status=400)
        found = []
        for paper in self.papers.values():
            title = paper.page.get("title")
            words = {w.lower() for w in _WORD.findall(title)} if isinstance(title, str) else set()
            if asked and asked <= words:
                found.append(
                    {
                        "paper": paper.page,
                        "title": title,
                        "publishedAt": paper.page["publishedAt"],
                        "numComments": 0,
                        "thumbnail": f"https://cdn-thumbnails.huggingface.co/social-thumbnails/papers/{paper.arxiv_id}.png",
                    }
                )
        return web.json_response(found[: max(0, limit)], headers=self._headers())
