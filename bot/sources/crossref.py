"""Crossref REST API client: what a DOI's registrant deposited (title, authors, year, journal, link).

Shapes follow Crossref's REST API docs (https://api.crossref.org/swagger-ui/index.html; the work format in
CrossRef/rest-api-doc ``api_format.md``): ``GET /works/{doi}`` answers ``{"status": "ok", "message-type":
"work", "message": {"DOI", "title": [...], "author": [{"given", "family"} | {"name"}], "container-title":
[...], "issued": {"date-parts": [[year, month, day]]}, "URL"}}`` and 404 "Resource not found." for a DOI
it does not hold (None). Crossref is for every DOI but arXiv's ``10.48550/`` ones (DataCite's).

Rate: with a ``mailto`` the request goes to the polite pool. Crossref's limits since 1 December 2025
("Announcing changes to REST API rate limits", Crossref blog; advertised in the ``x-rate-limit-limit``
and ``x-rate-limit-interval`` headers, access-and-authentication docs): single-record requests 10 per
second and 3 at once in the polite pool, 5 per second and 1 at once in the public pool. The client sends
one request at a time at the pool's rate.
"""

from __future__ import annotations

from typing import Any, Unpack
from urllib.parse import quote

from bot.sources import clean
from bot.sources.http import ClientOptions, SourceClient
from bot.sources.pace import RateLimit
from bot.sources.records import DoiRecord

SOURCE = "crossref"
API_ROOT = "https://api.crossref.org"
POLITE_LIMIT = RateLimit(10, 1.0)
PUBLIC_LIMIT = RateLimit(5, 1.0)


def _first(value: Any, limit: int) -> str | None:
    """The first string of a Crossref list field (title, container-title), cleaned."""
    for item in clean.items(value):
        if text := clean.text(item, limit):
            return text
    return None


def _author(value: Any) -> Any:
    author = clean.mapping(value)
    given, family = author.get("given"), author.get("family")
    if isinstance(family, str):
        return f"{given} {family}" if isinstance(given, str) else family
    return author.get("name")  # an organisation


def _year(message: dict[str, Any]) -> int | None:
    for field in ("issued", "published", "published-print", "published-online"):
        parts = clean.items(clean.mapping(message.get(field)).get("date-parts"))
        first = clean.items(parts[0]) if parts else []
        if first and (year := clean.year(first[0])):
            return year
    return None


class CrossrefClient(SourceClient):
    """Crossref's works API, in the polite pool when it has a contact address."""

    source = SOURCE

    def __init__(self, base_url: str = API_ROOT, **options: Unpack[ClientOptions]) -> None:
        limit = POLITE_LIMIT if options.get("mailto") else PUBLIC_LIMIT
        super().__init__(base_url, limit, **options)

    async def record(self, doi: str, *, max_wait: float | None = None) -> DoiRecord | None:
        """The work registered under ``doi``; None when Crossref holds no such DOI."""
        doi = doi.strip()
        if not doi.startswith("10.") or clean.ident(doi) != doi:
            return None
        params = {"mailto": self.mailto} if self.mailto else None
        reply = await self.http.get(f"/works/{quote(doi, safe='/')}", params, max_wait=max_wait)
        body = self.http.answer(reply, "a work", unknown=(400, 404))
        if body is None:
            return None
        body = clean.mapping(body)
        message = body.get("message")
        if body.get("message-type") != "work" or not isinstance(message, dict):
            raise self.http.unavailable("answered a work with something other than a work")
        return DoiRecord(
            source=SOURCE,
            doi=clean.ident(message.get("DOI")) or doi,
            title=_first(message.get("title"), clean.TITLE_MAX),
            authors=clean.names(map(_author, clean.items(message.get("author")))),
            year=_year(message),
            venue=_first(message.get("container-title"), clean.VENUE_MAX),
            url=clean.url(message.get("URL")),
        )
