"""One paper record from several sources (:data:`PRECEDENCE`, :func:`merge_into`), and arXiv's lookups."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.papers import normalize_title
from bot.sources import clean
from bot.sources.arxiv import ArxivClient, ArxivMetadata
from bot.sources.http import SourceUnavailable
from db.models import Paper

log = logging.getLogger("paperclub.arxiv")

LOOKUP_BUDGET = 5.0  # seconds an interactive command waits for arXiv in all
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
    """Merge ``records`` into ``current``; ``placeholders``: fields standing in for a missing value."""
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


def id_label(arxiv_id: str) -> str:
    """The title a paper gets when only its arXiv id is known (PaperRef.label)."""
    return f"arXiv:{arxiv_id}"


def arxiv_fields(metadata: ArxivMetadata | None) -> dict[str, Any]:
    """arXiv's answer as merge fields (none: arXiv knows no such paper)."""
    if metadata is None:
        return {}
    return {
        "title": metadata.title,
        "authors": metadata.authors,
        "abstract": metadata.abstract,
        "published": metadata.published,
    }


def merge_into(paper: Paper, records: Sequence[SourceRecord]) -> set[str]:
    """Merge the sources' answers into the paper's row (the club's title kept); the fields that changed."""
    if any(record.source == ARXIV for record in records):
        paper.metadata_fetched_at = max(r.fetched_at for r in records if r.source == ARXIV)
    placeholder = (paper.arxiv_id and paper.title == id_label(paper.arxiv_id)) or (
        paper.kind == "openreview" and paper.title == paper.url  # stored under its forum link only
    )
    current = {name: getattr(paper, name) for name in PRECEDENCE}
    placeholders = frozenset({"title"}) if placeholder else frozenset()
    merged = merge(current, paper.field_sources, records, placeholders=placeholders)
    for name, value in merged.changes.items():
        setattr(paper, name, value)
    if "title" in merged.changes:
        paper.normalized_title = normalize_title(paper.title)[:400]
    paper.field_sources = merged.sources
    return set(merged.changes)


def apply_metadata(paper: Paper, metadata: ArxivMetadata | None, now: datetime) -> bool:
    """Store what arXiv said (None: arXiv knows no such paper); True if the title changed."""
    return "title" in merge_into(paper, [SourceRecord(ARXIV, now, arxiv_fields(metadata))])


@dataclass(frozen=True)
class PendingPaper:
    """A paper whose arXiv metadata is still to fetch."""

    guild_id: int
    paper_id: int
    arxiv_id: str


@dataclass(frozen=True)
class StoredMetadata:
    """A paper whose metadata was stored (and whether its title changed)."""

    guild_id: int
    paper_id: int
    title_changed: bool


async def papers_lacking_metadata(session: AsyncSession, paper_ids: Iterable[int]) -> list[PendingPaper]:
    """Of these papers, the arXiv ones never looked up, in id order."""
    ids = sorted(set(paper_ids))
    rows = (
        await session.execute(
            select(Paper.guild_id, Paper.id, Paper.arxiv_id)
            .where(Paper.id.in_(ids), Paper.arxiv_id.is_not(None), Paper.metadata_fetched_at.is_(None))
            .order_by(Paper.id)
        )
    ).all()
    return [PendingPaper(guild_id, paper_id, arxiv_id) for guild_id, paper_id, arxiv_id in rows if arxiv_id]


async def fetch_and_store(
    arxiv: ArxivClient,
    session_factory: async_sessionmaker[AsyncSession],
    pending: Iterable[PendingPaper],
    now: datetime,
    *,
    budget: float | None = None,
) -> list[StoredMetadata]:
    """Ask arXiv about each paper and store each answer apart, until a failure or ``budget``; what was stored."""
    loop = asyncio.get_running_loop()
    deadline = None if budget is None else loop.time() + budget
    stored: list[StoredMetadata] = []
    for paper in pending:
        try:
            async with asyncio.timeout_at(deadline):
                metadata = await arxiv.fetch(paper.arxiv_id)
        except (SourceUnavailable, TimeoutError) as exc:
            log.info("arXiv lookup of %s failed; keeping the id label: %r", paper.arxiv_id, exc)
            break
        async with session_factory() as session, session.begin():
            row = await session.get(Paper, paper.paper_id)  # still lacking it: no other process stored it
            changed = (
                row is not None and row.metadata_fetched_at is None and apply_metadata(row, metadata, now)
            )
        stored.append(StoredMetadata(paper.guild_id, paper.paper_id, changed))
    return stored


async def fill_missing_metadata(
    arxiv: ArxivClient,
    session_factory: async_sessionmaker[AsyncSession],
    paper_ids: Iterable[int],
    now: datetime,
    *,
    budget: float | None = LOOKUP_BUDGET,
) -> list[StoredMetadata]:
    """Look up the arXiv papers among ``paper_ids`` that have no metadata yet (see fetch_and_store)."""
    async with session_factory() as session:
        pending = await papers_lacking_metadata(session, paper_ids)
    if not pending or arxiv.blocked_for > 0:
        return []
    return await fetch_and_store(arxiv, session_factory, pending, now, budget=budget)
