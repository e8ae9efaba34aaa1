"""Plain results shared by several sources: search candidates and DOI records.

Their text is cleaned and capped (:mod:`bot.sources.clean`) but untrusted: escape it where it is shown.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Candidate:
    """One answer to a title search: what the source says the paper is, and how sure it is.

    ``source`` is the SOURCE_NAMES entry that answered; ``source_id`` its own id for the paper (Semantic
    Scholar's paperId, the arXiv id for arXiv and Hugging Face). ``score`` is the source's own (Semantic
    Scholar's matchScore; None where a source gives none), comparable only within one source.
    """

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
