"""Hugging Face Papers: a paper's repository, project page, upvotes and the Hub repos citing it (shapes as
huggingface_hub's ``HfApi``; 500 requests per 5 minutes, hub-docs ``docs/hub/rate-limits.md``)."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any, Unpack
from urllib.parse import quote

from bot.sources import clean
from bot.sources.http import Candidate, ClientOptions, SourceClient
from bot.sources.pace import RateLimit

log = logging.getLogger("paperclub.sources")

SOURCE = "huggingface"
API_ROOT = "https://huggingface.co"
WEB_ROOT = "https://huggingface.co"
RATE_LIMIT = RateLimit(500, 300.0)
TOP_REPOS = 3  # linked repos kept by name, most liked first; the count covers them all
SEARCH_MAX = 20
QUERY_MAX = 250  # the most of ``q`` the paper search takes

_REPO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}(?:/[A-Za-z0-9][A-Za-z0-9._-]{0,95})?")
_ARXIV_ID = re.compile(r"\d{4}\.\d{4,5}|[a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7}")
_KINDS = {"models": "", "datasets": "datasets/", "spaces": "spaces/"}
_TOTALS = {"models": "numTotalModels", "datasets": "numTotalDatasets", "spaces": "numTotalSpaces"}


def split_path(path: str) -> tuple[str, str] | None:
    """A repo's Hub path ("org/m", "datasets/org/d", "spaces/org/s") as (kind, repo id); None if not one."""
    for kind, prefix in _KINDS.items():
        if prefix and path.startswith(prefix):
            repo_id = path.removeprefix(prefix)
            return (kind, repo_id) if _REPO_ID.fullmatch(repo_id) else None
    return ("models", path) if _REPO_ID.fullmatch(path) else None


@dataclass(frozen=True)
class HubRepo:
    """One model, data set or Space on the Hub that cites the paper."""

    repo_id: str  # "namespace/name", checked against the Hub's repo id form
    likes: int | None
    downloads: int | None
    path: str  # its page under the Hub's root: "org/model", "datasets/org/set", "spaces/org/app"


@dataclass(frozen=True)
class RepoLinks:
    """How many repos of one kind cite the paper (None: the Hub did not say), and the few most liked."""

    count: int | None
    top: tuple[HubRepo, ...]


@dataclass(frozen=True)
class HubPaper:
    """What Hugging Face Papers knows about one arXiv paper (text cleaned and capped, but untrusted)."""

    arxiv_id: str
    title: str | None
    authors: tuple[str, ...]
    upvotes: int | None
    github_repo: str | None
    project_page: str | None
    url: str  # the paper's page on huggingface.co
    models: RepoLinks
    datasets: RepoLinks
    spaces: RepoLinks


class HuggingFaceClient(SourceClient):
    """Hugging Face Papers and the Hub's paper links, paced to 500 requests per 5 minutes."""

    source = SOURCE

    def __init__(
        self, base_url: str = API_ROOT, *, web_url: str = WEB_ROOT, **options: Unpack[ClientOptions]
    ) -> None:
        self.web_url = web_url.rstrip("/")
        super().__init__(base_url, RATE_LIMIT, **options)

    async def paper(self, arxiv_id: str, *, max_wait: float | None = None) -> HubPaper | None:
        """The paper page and the most liked repos of each kind it has; None when the paper is not indexed."""
        if not _ARXIV_ID.fullmatch(arxiv_id):
            return None
        reply = await self.get(f"/api/papers/{quote(arxiv_id, safe='/')}", max_wait=max_wait)
        body = self.answer(reply, "a paper")
        if body is None:
            return None
        if not isinstance(body, dict):
            raise self.unavailable("answered a paper with something other than an object")
        totals = {kind: self._total(body, kind) for kind in _KINDS}
        links = {
            kind: RepoLinks(total, await self.top(kind, arxiv_id, max_wait=max_wait) if total else ())
            for kind, total in totals.items()
        }
        return HubPaper(
            arxiv_id=arxiv_id,
            title=clean.text(body.get("title"), clean.TITLE_MAX),
            authors=clean.authors(body.get("authors")),
            upvotes=clean.count(body.get("upvotes")),
            github_repo=clean.url(body.get("githubRepo")),
            project_page=clean.url(body.get("projectPage")),
            url=f"{self.web_url}/papers/{arxiv_id}",
            models=links["models"],
            datasets=links["datasets"],
            spaces=links["spaces"],
        )

    def _total(self, body: dict[str, Any], kind: str) -> int | None:
        """The paper's total of one kind (None: not sent); one that is not a count refuses the answer, logged."""
        value = body.get(_TOTALS[kind])
        if value is None:
            linked = body.get(f"linked{kind.capitalize()}")
            return len(linked) if isinstance(linked, list) else None
        if (total := clean.count(value)) is None:
            log.warning("Hugging Face answered %s=%r for a paper; nothing read from it", _TOTALS[kind], value)
            raise self.unavailable(f"answered {_TOTALS[kind]} that is not a count")
        return total

    async def top(self, kind: str, arxiv_id: str, *, max_wait: float | None = None) -> tuple[HubRepo, ...]:
        """The most liked repos of ``kind`` ("models", "datasets", "spaces") citing an arXiv paper."""
        if kind not in _KINDS or not _ARXIV_ID.fullmatch(arxiv_id):
            return ()
        params = {"filter": f"arxiv:{arxiv_id}", "sort": "likes", "limit": str(TOP_REPOS)}
        body = self.answer(await self.get(f"/api/{kind}", params, max_wait=max_wait), f"{kind}")
        if body is None:
            return ()
        if not isinstance(body, list):
            raise self.unavailable(f"answered a list of {kind} with something other than a list")
        return self._ranked(kind, body)

    async def search(self, query: str, limit: int = 5, *, max_wait: float | None = None) -> list[Candidate]:
        """Papers on Hugging Face matching ``query`` (``/api/papers/search``), at most ``limit``."""
        text = clean.query(query)[:QUERY_MAX]
        if not text or limit < 1:
            return []
        params = {"q": text, "limit": str(min(limit, SEARCH_MAX))}
        reply = await self.get("/api/papers/search", params, max_wait=max_wait)
        if reply.status == 400:
            log.warning("Hugging Face refused a paper search (HTTP 400)")
            log.debug("Hugging Face's answer: %r", reply.text[:200])  # may echo the title someone typed
        body = self.answer(reply, "a search", unknown=())
        if not isinstance(body, list):
            raise self.unavailable("answered a search with something other than a list")
        return [c for c in map(self._candidate, body) if c is not None][:limit]

    def _ranked(self, kind: str, value: list[Any]) -> tuple[HubRepo, ...]:
        repos = []
        for entry in map(clean.mapping, value):
            repo_id = entry.get("id")
            if not isinstance(repo_id, str) or not _REPO_ID.fullmatch(repo_id):
                continue
            path = f"{_KINDS[kind]}{repo_id}"
            likes, downloads = clean.count(entry.get("likes")), clean.count(entry.get("downloads"))
            repos.append(HubRepo(repo_id, likes, downloads, path))
        ranked = sorted(repos, key=lambda r: (-(r.likes or 0), -(r.downloads or 0), r.repo_id))
        return tuple(ranked[:TOP_REPOS])

    def _candidate(self, value: Any) -> Candidate | None:
        entry = clean.mapping(value)
        paper = clean.mapping(entry.get("paper"))
        arxiv_id = paper.get("id", entry.get("id"))
        if not isinstance(arxiv_id, str) or not _ARXIV_ID.fullmatch(arxiv_id):
            return None
        title = clean.text(entry.get("title") or paper.get("title"), clean.TITLE_MAX)
        if title is None:
            return None
        published = paper.get("publishedAt", entry.get("publishedAt"))
        year = clean.year(published[:4]) if isinstance(published, str) else None
        return Candidate(
            source=SOURCE,
            source_id=arxiv_id,
            title=title,
            authors=clean.authors(paper.get("authors", entry.get("authors"))),
            year=year,
            arxiv_id=arxiv_id,
            url=f"{self.web_url}/papers/{arxiv_id}",
        )
