"""A local stand-in for the Crossref REST API's ``/works/{doi}``, for tests and the demo.

Answers in Crossref's work format (https://api.crossref.org/swagger-ui/index.html), 404 ``Resource not
found.`` for an unknown DOI. Rate limits as Crossref's access-and-authentication docs have them: a request
with ``mailto=`` (or in its User-Agent) is in the polite pool, others in the public pool, each with its own
rate and concurrency; answers advertise ``x-rate-limit-*`` and ``x-api-pool``, and going faster is 429.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from standin.http_service import Clock, Seen, ServiceStandin, SlidingWindow

POLITE = (10, 1.0, 3)  # requests, per seconds, at once
PUBLIC = (5, 1.0, 1)


class CrossrefStandin(ServiceStandin):
    """An aiohttp server on 127.0.0.1 answering like api.crossref.org/works."""

    name = "crossref"
    keep_types = frozenset({"message-type", "status"})

    def __init__(self, *, clock: Clock | None = None) -> None:
        super().__init__(clock=clock)
        self.works: dict[str, dict[str, Any]] = {}
        self._windows = {"polite": SlidingWindow(*POLITE[:2]), "public": SlidingWindow(*PUBLIC[:2])}
        self._in_flight = {"polite": 0, "public": 0}

    def add(
        self,
        doi: str,
        title: Any,
        *,
        authors: list[tuple[str, str]] | list[Any] | None = None,
        container_title: Any = None,
        year: Any = 2024,
        url: Any = None,
        work_type: str = "proceedings-article",
    ) -> dict[str, Any]:
        """Register a work. ``authors`` as (given, family) pairs or raw author objects."""
        message = {
            "DOI": doi.lower(),
            "title": [title] if not isinstance(title, list) else title,
            "author": [
                {
                    "given": a[0],
                    "family": a[1],
                    "sequence": "first" if i == 0 else "additional",
                    "affiliation": [],
                }
                if isinstance(a, tuple)
                else a
                for i, a in enumerate(authors or [])
            ],
            "container-title": [container_title]
            if isinstance(container_title, str)
            else (container_title or []),
            "issued": {"date-parts": [[year, 5, 1]]},
            "published": {"date-parts": [[year, 5, 1]]},
            "type": work_type,
            "publisher": "Association for Computing Machinery",
            "URL": url if url is not None else f"https://doi.org/{doi.lower()}",
            "source": "Crossref",
        }
        self.works[doi.lower()] = message
        return message

    @staticmethod
    def pool(request: web.Request) -> str:
        """The pool a request goes to: polite with a contact address, else public."""
        polite = "mailto" in request.query or "mailto:" in request.headers.get("User-Agent", "")
        return "polite" if polite else "public"

    def over_limit(self, request: web.Request, now: float) -> float | None:
        """Seconds to wait before this request fits its pool's limit, or None when it is admitted."""
        pool = self.pool(request)
        if self._in_flight[pool] > (POLITE if pool == "polite" else PUBLIC)[2]:
            return 1.0  # more at once than the pool allows (this request counted)
        return self._windows[pool].admit(now)

    def _headers(self, pool: str) -> dict[str, str]:
        limit = POLITE if pool == "polite" else PUBLIC
        return {"x-rate-limit-limit": str(limit[0]), "x-rate-limit-interval": "1s", "x-api-pool": pool}

    def too_fast(self, request: web.Request, wait: float | None, told: bool = False) -> web.Response:
        """Crossref's 429 answer, with the pool's rate-limit headers."""
        headers = self._headers(self.pool(request))
        if wait is not None:
            headers["Retry-After"] = str(max(1, round(wait + 0.499)))
        return web.Response(status=429, text="Too Many Requests", headers=headers)

    def add_routes(self, router: web.UrlDispatcher) -> None:
        """Register the ``/works/{doi}`` route."""
        router.add_get("/works/{doi:.+}", self._work)

    async def _answer(
        self,
        request: web.Request,
        handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
        seen: Seen,
        now: float,
    ) -> web.StreamResponse:
        pool = self.pool(request)
        self._in_flight[pool] += 1
        try:
            return await super()._answer(request, handler, seen, now)
        finally:
            self._in_flight[pool] -= 1

    async def _work(self, request: web.Request) -> web.Response:
        headers = self._headers(self.pool(request))
        message = self.works.get(request.match_info["doi"].lower())
        if message is None:
            return web.Response(status=404, text="Resource not found.", headers=headers)
        return web.json_response(
            {"status": "ok", "message-type": "work", "message-version": "1.0.0", "message": message},
            headers=headers,
        )
