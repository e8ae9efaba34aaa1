"""arXiv metadata on suggested papers: fetched once per paper, kept on the `papers` row, filled in
later when arXiv was unreachable at suggestion time. The shared part (storing what arXiv said, the
lookup loop) is in bot.services.papers.metadata."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.papers import PaperRef
from bot.services.papers.metadata import MAX_AUTHORS_TEXT, PendingPaper, apply_metadata, id_label
from bot.sources.arxiv import ArxivMetadata
from db.models import Paper
from db.models.suggestions import ACTIVE_STATUSES, Suggestion

__all__ = [
    "MAX_AUTHORS_TEXT",
    "PendingPaper",
    "apply_metadata",
    "id_label",
    "papers_missing_metadata",
    "stored_metadata_is_fresh",
    "store_fetched_metadata",
    "suggestions_of_paper",
]


async def stored_metadata_is_fresh(session: AsyncSession, guild_id: int, ref: PaperRef) -> bool:
    """Whether the paper is already stored with its arXiv metadata (so no lookup is needed)."""
    fetched = (
        await session.execute(
            select(Paper.metadata_fetched_at).where(Paper.guild_id == guild_id, Paper.key == ref.key)
        )
    ).scalar_one_or_none()
    return fetched is not None


async def papers_missing_metadata(session: AsyncSession, limit: int = 10) -> list[PendingPaper]:
    """Papers of active suggestions whose arXiv metadata could not be fetched yet, oldest first."""
    rows = (
        await session.execute(
            select(Paper.guild_id, Paper.id, Paper.arxiv_id)
            .join(Suggestion, Suggestion.paper_id == Paper.id)
            .where(
                Paper.arxiv_id.is_not(None),
                Paper.metadata_fetched_at.is_(None),
                Suggestion.status.in_(ACTIVE_STATUSES),
            )
            .order_by(Paper.id)
            .limit(limit)
        )
    ).all()
    return [PendingPaper(guild_id, paper_id, arxiv_id) for guild_id, paper_id, arxiv_id in rows if arxiv_id]


async def suggestions_of_paper(session: AsyncSession, paper_id: int) -> list[int]:
    """Ids of the paper's active suggestions (their posts show its title)."""
    ids = (
        await session.execute(
            select(Suggestion.id).where(
                Suggestion.paper_id == paper_id, Suggestion.status.in_(ACTIVE_STATUSES)
            )
        )
    ).scalars()
    return list(ids)


async def store_fetched_metadata(
    session: AsyncSession, paper_id: int, metadata: ArxivMetadata | None, now: datetime
) -> tuple[bool, list[int]]:
    """Apply a late lookup; returns (title changed, ids of the paper's active suggestions to re-render)."""
    paper = await session.get(Paper, paper_id)
    if paper is None:
        return False, []
    changed = apply_metadata(paper, metadata, now)
    return changed, await suggestions_of_paper(session, paper_id)
