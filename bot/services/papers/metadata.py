"""arXiv's answer as merge fields, and any source's answers merged into a paper's row (:func:`merge_into`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.papers import normalize_title
from bot.services.papers.merge import ARXIV, PRECEDENCE, SourceRecord, merge
from bot.sources.arxiv import ArxivClient, ArxivMetadata
from bot.sources.http import SourceUnavailable
from db.models import Paper

log = logging.getLogger("paperclub.arxiv")

LOOKUP_BUDGET = 5.0  # seconds an interactive command waits for arXiv in all


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
    """Merge the sources' answers into the paper's row (a title the club gave kept, a placeholder filled); the
    names of the fields that changed."""
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
    if not ids:
        return []
    rows = (
        await session.execute(
            select(Paper.guild_id, Paper.id, Paper.arxiv_id)
            .where(Paper.id.in_(ids), Paper.arxiv_id.is_not(None), Paper.metadata_fetched_at.is_(None))
            .order_by(Paper.id)
        )
    ).all()
    return [PendingPaper(guild_id, paper_id, arxiv_id) for guild_id, paper_id, arxiv_id in rows if arxiv_id]


async def store_metadata(
    session: AsyncSession, paper_id: int, metadata: ArxivMetadata | None, now: datetime
) -> bool:
    """Apply one lookup to a paper still lacking metadata; True if its title changed."""
    paper = await session.get(Paper, paper_id)
    if paper is None or paper.metadata_fetched_at is not None:
        return False
    return apply_metadata(paper, metadata, now)


async def fetch_and_store(
    arxiv: ArxivClient,
    session_factory: async_sessionmaker[AsyncSession],
    pending: Iterable[PendingPaper],
    now: datetime,
    *,
    budget: float | None = None,
) -> list[StoredMetadata]:
    """Ask arXiv about each paper (no transaction open) and store each answer in its own short transaction,
    stopping at the first failure or when ``budget`` seconds are spent; what was stored."""
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
            changed = await store_metadata(session, paper.paper_id, metadata, now)
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
