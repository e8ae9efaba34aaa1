"""A local stand-in for Hugging Face Papers and the Hub's paper links, for tests and the demo.

Answers the paper page, paper search and repos-by-paper endpoints in the shapes huggingface_hub's ``HfApi``
reads. Rate limit as hub-docs ``docs/hub/rate-limits.md`` has it for an anonymous caller: a fixed window per
IP, every answer with ``RateLimit`` and ``RateLimit-Policy`` headers, and a 429 that says when the window
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
_WORD = re.compile(r"\w+")


@dataclass
class HubStandinPaper:
    """One indexed paper and the repos that cite it."""

    arxiv_id: str
    page: dict[str, Any]
    models: list[dict[str, Any]] = field(default_factory=list)
    datasets: list[dict[str, Any]] = field(default_factory=list)
    spaces: list[dict[str, Any]] = field(default_factory=list)


def repo(repo_id: Any, likes: Any = 0, downloads: Any = 0) -> dict[str, Any]:
    """A repo as the Hub lists it."""
    return {"id": repo_id, "_id": f"id-{repo_id}", "likes": likes, "downloads": downloads, "private": False}


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
        published_at: str = "2024-06-17T17:59:59.000Z",
        models: list[dict[str, Any]] | None = None,
        datasets: list[dict[str, Any]] | None = None,
        spaces: list[dict[str, Any]] | None = None,
    ) -> HubStandinPaper:
        """Index a paper. Values go out as given (a test may pass hostile or wrongly typed ones)."""
        page = {
            "id": arxiv_id,
            "authors": [
                {"_id": f"a{i}", "name": name, "hidden": False} for i, name in enumerate(authors or [])
            ],
            "publishedAt": published_at,
            "title": title,
            "summary": summary,
            "upvotes": upvotes,
            "discussionId": f"d-{arxiv_id}",
            "githubRepo": github_repo,
            "githubStars": github_stars,
            "projectPage": project_page,
        }
        paper = HubStandinPaper(arxiv_id, page, list(models or []), list(datasets or []), list(spaces or []))
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
        """Register the paper search, paper and repos routes."""
        router.add_get("/api/papers/search", self._search)
        router.add_get("/api/papers/{arxiv_id:.+}", self._paper)
        router.add_get("/api/arxiv/{arxiv_id:.+}/repos", self._repos)

    async def _paper(self, request: web.Request) -> web.Response:
        paper = self.papers.get(request.match_info["arxiv_id"])
        if paper is None:
            return web.json_response({"error": "Paper not found"}, status=404, headers=self._headers())
        return web.json_response(paper.page, headers=self._headers())

    async def _repos(self, request: web.Request) -> web.Response:
        arxiv_id = request.match_info["arxiv_id"]
        paper = self.papers.get(arxiv_id)
        links = (
            {"models": paper.models, "datasets": paper.datasets, "spaces": paper.spaces}
            if paper
            else self.citing.get(arxiv_id, {"models": [], "datasets": [], "spaces": []})
        )
        return web.json_response(links, headers=self._headers())

    async def _search(self, request: web.Request) -> web.Response:
        asked = {w.lower() for w in _WORD.findall(request.query.get("q", ""))}
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
