"""A local stand-in for the DataCite REST API's ``/dois/{doi}``, for tests and the demo (arXiv registers
its ``10.48550/arXiv.*`` DOIs with DataCite).

Answers in DataCite's JSON:API shape (https://support.datacite.org/docs/api-get-doi), 404 for an unknown DOI.
Rate limits (https://support.datacite.org/docs/rate-limit): per IP per 5 minutes, a higher limit for requests
identified by ``mailto=`` or an e-mail address in the User-Agent; beyond, 429 with a Retry-After.
"""

from __future__ import annotations

import re
from typing import Any

from aiohttp import web

from standin.http_service import Clock, ServiceStandin, SlidingWindow

IDENTIFIED = (1000, 300.0)
UNIDENTIFIED = (500, 300.0)
JSON_API = "application/vnd.api+json"
_EMAIL = re.compile(r"[^\s@()<>;]+@[^\s@()<>;]+\.[A-Za-z]{2,}")


class DataCiteStandin(ServiceStandin):
    """An aiohttp server on 127.0.0.1 answering like api.datacite.org/dois."""

    name = "datacite"
    keep_types = frozenset({"type", "data"})

    def __init__(self, *, clock: Clock | None = None) -> None:
        super().__init__(clock=clock)
        self.dois: dict[str, dict[str, Any]] = {}
        self._windows = {True: SlidingWindow(*IDENTIFIED), False: SlidingWindow(*UNIDENTIFIED)}

    def add(
        self,
        doi: str,
        title: Any,
        *,
        creators: list[Any] | None = None,
        publisher: Any = "arXiv",
        year: Any = 2024,
        url: Any = None,
    ) -> dict[str, Any]:
        """Register a DOI. ``creators`` as "Family, Given" names (or raw creator objects)."""
        people: list[Any] = []
        for creator in creators or []:
            if isinstance(creator, str):
                family, _, given = creator.partition(", ")
                people.append(
                    {
                        "name": creator,
                        "nameType": "Personal",
                        "givenName": given or None,
                        "familyName": family,
                        "affiliation": [],
                        "nameIdentifiers": [],
                    }
                )
            else:
                people.append(creator)
        arxiv = doi.lower().removeprefix("10.48550/arxiv.")
        attributes = {
            "doi": doi.lower(),
            "identifiers": [],
            "creators": people,
            "titles": [{"title": title}],
            "publisher": publisher,
            "publicationYear": year,
            "types": {"resourceTypeGeneral": "Preprint", "resourceType": "Article"},
            "url": url if url is not None else f"https://arxiv.org/abs/{arxiv}",
            "descriptions": [{"description": "An abstract.", "descriptionType": "Abstract"}],
            "state": "findable",
        }
        resource = {
            "id": doi.lower(),
            "type": "dois",
            "attributes": attributes,
            "relationships": {"client": {"data": {"id": "arxiv.content", "type": "clients"}}},
        }
        self.dois[doi.lower()] = resource
        return resource

    @staticmethod
    def identified(request: web.Request) -> bool:
        """True for a request carrying an e-mail address (mailto= or in the User-Agent)."""
        return "mailto" in request.query or bool(_EMAIL.search(request.headers.get("User-Agent", "")))

    def over_limit(self, request: web.Request, now: float) -> float | None:
        """Seconds to wait before this request fits its caller's limit, or None when it is admitted."""
        return self._windows[self.identified(request)].admit(now)

    def too_fast(self, request: web.Request, wait: float | None, told: bool = False) -> web.Response:
        """DataCite's JSON:API 429 answer."""
        headers = {"Retry-After": str(max(1, round(wait + 0.499)))} if wait is not None else {}
        return web.json_response(
            {"errors": [{"status": "429", "title": "Too many requests"}]},
            status=429,
            headers=headers,
            content_type=JSON_API,
        )

    def add_routes(self, router: web.UrlDispatcher) -> None:
        """Register the ``/dois/{doi}`` route."""
        router.add_get("/dois/{doi:.+}", self._doi)

    async def _doi(self, request: web.Request) -> web.Response:
        resource = self.dois.get(request.match_info["doi"].lower())
        if resource is None:
            return web.json_response(
                {"errors": [{"status": "404", "title": "The resource you are looking for doesn't exist."}]},
                status=404,
                content_type=JSON_API,
            )
        return web.json_response({"data": resource}, content_type=JSON_API)
