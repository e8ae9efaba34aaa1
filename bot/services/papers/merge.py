"""One paper record from several sources: which source wins each field (:data:`PRECEDENCE`), and where
each came from."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bot.sources import clean

ARXIV = "arxiv"
S2 = "semantic_scholar"
HF = "huggingface"
OPENREVIEW = "openreview"
CROSSREF = "crossref"
DATACITE = "datacite"

#: For each field the sources that may give it, best first.
PRECEDENCE: dict[str, tuple[str, ...]] = {
    "title": (ARXIV, S2, CROSSREF, DATACITE, HF, OPENREVIEW),
    "authors": (ARXIV, S2, CROSSREF, DATACITE, HF),
    "abstract": (ARXIV,),
    "published": (ARXIV,),
    "doi": (S2, CROSSREF, DATACITE),
    "year": (S2, ARXIV, CROSSREF, DATACITE, OPENREVIEW),
    "venue": (OPENREVIEW, S2, CROSSREF, DATACITE),
    "decision": (OPENREVIEW,),
    "openreview_url": (OPENREVIEW,),
    "tldr": (S2,),
    "citation_count": (S2,),
    "influential_citation_count": (S2,),
    "pdf_url": (S2, ARXIV),
    "s2_id": (S2,),
    "s2_url": (S2,),
    "code_url": (HF,),
    "project_url": (HF,),
    "hf_url": (HF,),
    "hf_upvotes": (HF,),
    "hf_models": (HF,),
    "hf_datasets": (HF,),
    "hf_spaces": (HF,),
    "hf_top": (HF,),
}
HUB_TOP_KEPT = 9  # the few most liked models, data sets and Spaces (three of each kind)
#: Fields a refresh asks for again (weekly): the counts and the links.
REFRESHED = frozenset(
    {"citation_count", "influential_citation_count", "pdf_url", "code_url", "project_url", "hf_upvotes"}
    | {"hf_models", "hf_datasets", "hf_spaces", "hf_top"}
)
_TEXT_CAPS = {
    "title": clean.TITLE_MAX,
    "authors": 2000,
    "abstract": 5000,
    "published": 40,
    "venue": clean.VENUE_MAX,
    "decision": clean.DECISION_MAX,
    "tldr": clean.TLDR_MAX,
    "s2_id": 64,
}
_URLS = frozenset({"openreview_url", "pdf_url", "s2_url", "code_url", "project_url", "hf_url"})
_COUNTS = frozenset(
    {"citation_count", "influential_citation_count", "hf_upvotes", "hf_models", "hf_datasets", "hf_spaces"}
)


@dataclass(frozen=True)
class SourceRecord:
    """What one source said about one paper, when: field name to raw (untrusted) value."""

    source: str
    fetched_at: datetime
    fields: Mapping[str, Any]


@dataclass(frozen=True)
class Merged:
    """The fields to write (only those that change) and the whole provenance map after the merge."""

    changes: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, list[str]] = field(default_factory=dict)  # field -> [source, fetched_at ISO]


def sanitize(name: str, value: Any) -> Any:
    """One field's value fit to keep (cleaned, capped, right type), or None."""
    if name in _URLS:
        return clean.url(value)
    if name in _COUNTS:
        return clean.count(value)
    if name == "year":
        return clean.year(value)
    if name == "hf_top":
        return list(clean.names(clean.items(value), kept=HUB_TOP_KEPT)) or None
    if name == "doi":  # DOIs are case-insensitive (DOI Handbook 2.4); the club keeps them lower-case
        doi = clean.ident(value)
        return doi.lower() if doi else None
    if name == "authors" and isinstance(value, (list, tuple)):
        value = ", ".join(clean.names(value))
    if name in _TEXT_CAPS:
        return clean.text(value, _TEXT_CAPS[name])
    return None


def _rank(name: str, source: str | None) -> int:
    order = PRECEDENCE.get(name, ())
    return order.index(source) if source in order else len(order)


def merge(
    current: Mapping[str, Any],
    current_sources: Mapping[str, Any] | None,
    records: Iterable[SourceRecord],
    *,
    placeholders: frozenset[str] = frozenset(),
) -> Merged:
    """Merge ``records`` into a paper's ``current`` values; ``placeholders``: fields whose value only stands
    in for a missing one ("arXiv:<id>"), which a source may fill."""
    sources: dict[str, list[str]] = {k: list(v) for k, v in (current_sources or {}).items()}
    best: dict[str, tuple[int, Any, SourceRecord]] = {}
    for record in records:
        for name, raw in record.fields.items():
            if name not in PRECEDENCE or record.source not in PRECEDENCE[name]:
                continue
            value = sanitize(name, raw)
            if value is None:
                continue
            rank = _rank(name, record.source)
            if name not in best or rank < best[name][0]:
                best[name] = (rank, value, record)
    changes: dict[str, Any] = {}
    for name, (rank, value, record) in best.items():
        stored = current.get(name)
        had = sources.get(name)
        if stored not in (None, "") and had is None and name not in placeholders:
            continue  # the club's own value
        if had is not None and _rank(name, had[0]) < rank and stored not in (None, ""):
            continue  # a better source gave it before
        sources[name] = [record.source, record.fetched_at.isoformat()]
        if stored != value:
            changes[name] = value
    return Merged(changes, sources)
