"""Plain results shared by several sources (cleaned but untrusted): search candidates and DOI records."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Candidate:
    """One answer to a title search; ``source_id`` is the source's own id, ``score`` its own (or None)."""

    source: str
    source_id: str
    title: str
    authors: tuple[str, ...]
    year: int | None = None
    venue: str | None = None
    arxiv_id: str | None = None
    doi: str | None = None
    score: float | None = None
    url: str | None = None


@dataclass(frozen=True)
class DoiRecord:
    """What a DOI registration agency (Crossref or DataCite, ``source``) holds for one DOI."""

    source: str
    doi: str
    title: str | None
    authors: tuple[str, ...]
    year: int | None
    venue: str | None  # the journal or proceedings (Crossref's container-title), or the publisher (arXiv)
    url: str | None  # where the DOI resolves to, or the doi.org link
