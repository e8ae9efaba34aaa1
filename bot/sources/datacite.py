"""DataCite REST API client, for arXiv's ``10.48550/arXiv.*`` DOIs (DataCite registers them; Crossref
does not hold them).

Shapes follow DataCite's REST API guide (https://support.datacite.org/docs/api-get-doi, "Retrieve a
single DOI") and JSON:API (https://jsonapi.org): ``GET /dois/{doi}`` answers ``{"data": {"id", "type":
"dois", "attributes": {"doi", "titles": [{"title"}], "creators": [{"name", "givenName", "familyName"}],
"publisher", "publicationYear", "url"}}}``; ``publisher`` is a string, or ``{"name": ...}`` under
metadata schema 4.5; ``publicationYear`` comes as a number or a string. An unknown DOI: 404 with
``{"errors": [{"status": "404", "title": ...}]}`` (None).

Rate: DataCite's API rate limits (https://support.datacite.org/docs/rate-limit): 1,000 requests per 5
minutes per IP address for an identified request (a ``mailto=`` parameter or an e-mail address in the
User-Agent), 500 for an unidentified one.
"""

from __future__ import annotations

from typing import Any, Unpack
from urllib.parse import quote

from bot.sources import clean
from bot.sources.http import ClientOptions, SourceClient
from bot.sources.pace import RateLimit
from bot.sources.records import DoiRecord

SOURCE = "datacite"
API_ROOT = "https://api.datacite.org"
IDENTIFIED_LIMIT = RateLimit(1000, 300.0)
UNIDENTIFIED_LIMIT = RateLimit(500, 300.0)
ARXIV_DOI_PREFIX = "10.48550/arxiv."


def arxiv_doi(arxiv_id: str) -> str:
    """The DOI arXiv registers with DataCite for a paper (``10.48550/arXiv.2106.15928``)."""
    return f"10.48550/arXiv.{arxiv_id}"


def is_arxiv_doi(doi: str) -> bool:
    """True for arXiv's DataCite DOIs; every other DOI is asked of Crossref."""
    return doi.strip().lower().startswith(ARXIV_DOI_PREFIX)


def _creator(value: Any) -> Any:
    creator = clean.mapping(value)
    given, family = creator.get("givenName"), creator.get("familyName")
    if isinstance(given, str) and isinstance(family, str):
        return f"{given} {family}"
    return creator.get("name")


def _publisher(value: Any) -> str | None:
    if isinstance(value, dict):
        value = value.get("name")
    return clean.text(value, clean.VENUE_MAX)


class DataCiteClient(SourceClient):
    """DataCite's DOI API, identified by the operator's contact address when there is one."""

    source = SOURCE

    def __init__(self, base_url: str = API_ROOT, **options: Unpack[ClientOptions]) -> None:
        limit = IDENTIFIED_LIMIT if options.get("mailto") else UNIDENTIFIED_LIMIT
        super().__init__(base_url, limit, headers={"Accept": "application/vnd.api+json"}, **options)

    async def record(self, doi: str, *, max_wait: float | None = None) -> DoiRecord | None:
        """The DOI's DataCite metadata; None when DataCite has no such DOI."""
        doi = doi.strip()
        if not doi.startswith("10.") or clean.ident(doi) != doi:
            return None
        params = {"mailto": self.mailto} if self.mailto else None
        reply = await self.http.get(f"/dois/{quote(doi, safe='/')}", params, max_wait=max_wait)
        body = self.http.answer(reply, "a DOI", unknown=(400, 404))
        if body is None:
            return None
        data = clean.mapping(clean.mapping(body).get("data"))
        attributes = data.get("attributes")
        if data.get("type") != "dois" or not isinstance(attributes, dict):
            raise self.http.unavailable("answered a DOI with something other than a JSON:API dois resource")
        titles = (clean.mapping(t).get("title") for t in clean.items(attributes.get("titles")))
        return DoiRecord(
            source=SOURCE,
            doi=clean.ident(attributes.get("doi")) or doi,
            title=next((t for t in (clean.text(t, clean.TITLE_MAX) for t in titles) if t), None),
            authors=clean.names(map(_creator, clean.items(attributes.get("creators")))),
            year=clean.year(attributes.get("publicationYear")),
            venue=_publisher(attributes.get("publisher")),
            url=clean.url(attributes.get("url")),
        )
