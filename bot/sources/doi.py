"""The DOI agencies: Crossref for every DOI but arXiv's ``10.48550/`` ones, which DataCite holds. Rates:
Crossref blog "Announcing changes to REST API rate limits"; https://support.datacite.org/docs/rate-limit."""

from __future__ import annotations

from typing import Any, Unpack
from urllib.parse import quote

from bot.sources import clean
from bot.sources.http import ClientOptions, DoiRecord, SourceClient
from bot.sources.pace import RateLimit

CROSSREF_ROOT = "https://api.crossref.org"
DATACITE_ROOT = "https://api.datacite.org"
POLITE_LIMIT = RateLimit(10, 1.0)
PUBLIC_LIMIT = RateLimit(5, 1.0)
IDENTIFIED_LIMIT = RateLimit(1000, 300.0)
UNIDENTIFIED_LIMIT = RateLimit(500, 300.0)


class _DoiClient(SourceClient):
    """A DOI agency's API: ``GET {path}/{doi}``, its answer read by :meth:`_read`."""

    path = ""
    what = "a DOI"

    async def record(self, doi: str, *, max_wait: float | None = None) -> DoiRecord | None:
        """The work registered under ``doi``; None when the agency holds no such DOI."""
        doi = doi.strip()
        if not doi.startswith("10.") or clean.ident(doi) != doi:
            return None
        params = {"mailto": self.mailto} if self.mailto else None
        reply = await self.get(f"{self.path}/{quote(doi, safe='/')}", params, max_wait=max_wait)
        body = self.answer(reply, self.what, unknown=(400, 404))
        return None if body is None else self._read(clean.mapping(body), doi)

    def _read(self, body: dict[str, Any], doi: str) -> DoiRecord:
        raise NotImplementedError


def _first(value: Any, limit: int) -> str | None:
    """The first string of a Crossref list field (title, container-title), cleaned."""
    return next((text for item in clean.items(value) if (text := clean.text(item, limit))), None)


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


class CrossrefClient(_DoiClient):
    """Crossref's works API, in the polite pool when it has a contact address."""

    source = "crossref"
    path = "/works"
    what = "a work"

    def __init__(self, base_url: str = CROSSREF_ROOT, **options: Unpack[ClientOptions]) -> None:
        super().__init__(base_url, POLITE_LIMIT if options.get("mailto") else PUBLIC_LIMIT, **options)

    def _read(self, body: dict[str, Any], doi: str) -> DoiRecord:
        message = body.get("message")
        if body.get("message-type") != "work" or not isinstance(message, dict):
            raise self.unavailable("answered a work with something other than a work")
        return DoiRecord(
            source=self.source,
            doi=clean.ident(message.get("DOI")) or doi,
            title=_first(message.get("title"), clean.TITLE_MAX),
            authors=clean.names(map(_author, clean.items(message.get("author")))),
            year=_year(message),
            venue=_first(message.get("container-title"), clean.VENUE_MAX),
            url=clean.url(message.get("URL")),
        )


def _creator(value: Any) -> Any:
    creator = clean.mapping(value)
    given, family = creator.get("givenName"), creator.get("familyName")
    if isinstance(given, str) and isinstance(family, str):
        return f"{given} {family}"
    return creator.get("name")


class DataCiteClient(_DoiClient):
    """DataCite's DOI API (JSON:API), identified by the operator's contact address when there is one."""

    source = "datacite"
    path = "/dois"

    def __init__(self, base_url: str = DATACITE_ROOT, **options: Unpack[ClientOptions]) -> None:
        limit = IDENTIFIED_LIMIT if options.get("mailto") else UNIDENTIFIED_LIMIT
        super().__init__(base_url, limit, headers={"Accept": "application/vnd.api+json"}, **options)

    def _read(self, body: dict[str, Any], doi: str) -> DoiRecord:
        data = clean.mapping(body.get("data"))
        attributes = data.get("attributes")
        if data.get("type") != "dois" or not isinstance(attributes, dict):
            raise self.unavailable("answered a DOI with something other than a JSON:API dois resource")
        titles = (clean.mapping(t).get("title") for t in clean.items(attributes.get("titles")))
        publisher = attributes.get("publisher")  # a string, or {"name": ...} under metadata schema 4.5
        if isinstance(publisher, dict):
            publisher = publisher.get("name")
        return DoiRecord(
            source=self.source,
            doi=clean.ident(attributes.get("doi")) or doi,
            title=next((t for t in (clean.text(t, clean.TITLE_MAX) for t in titles) if t), None),
            authors=clean.names(map(_creator, clean.items(attributes.get("creators")))),
            year=clean.year(attributes.get("publicationYear")),
            venue=clean.text(publisher, clean.VENUE_MAX),
            url=clean.url(attributes.get("url")),
        )
