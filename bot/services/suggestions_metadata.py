"""arXiv metadata on papers: fetched once per paper, kept on the `papers` row, filled in later
when arXiv was unreachable at suggestion time."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.arxiv import ArxivMetadata
from bot.papers import PaperRef, normalize_title
from db.models import Paper
from db.models.suggestions import ACTIVE_STATUSES, Suggestion

MAX_AUTHORS_TEXT = 2000


def id_label(arxiv_id: str) -> str:
    """The title a paper gets when only its arXiv id is known (PaperRef.label)."""
    return f"arXiv:{arxiv_id}"


def apply_metadata(paper: Paper, metadata: ArxivMetadata | None, now: datetime) -> bool:
    """Store what arXiv said (None: arXiv knows no such paper); True if the title changed.

    The arXiv title replaces only the id placeholder: a title a member typed wins.
    """
    paper.metadata_fetched_at = now
    if metadata is None:
        return False
    paper.authors = metadata.authors_text[:MAX_AUTHORS_TEXT] or None
    paper.abstract = metadata.abstract or None
    paper.published = metadata.published[:40] or None
    if paper.arxiv_id and paper.title == id_label(paper.arxiv_id) and metadata.title:
        paper.title = metadata.title[:400]
        paper.normalized_title = normalize_title(paper.title)[:400]
        return True
    return False


async def stored_metadata_is_fresh(session: AsyncSession, guild_id: int, ref: PaperRef) -> bool:
    """Whether the paper is already stored with its arXiv metadata (so no lookup is needed)."""
    fetched = (
        await session.execute(
            select(Paper.metadata_fetched_at).where(Paper.guild_id == guild_id, Paper.key == ref.key)
        )
    ).scalar_one_or_none()
    return fetched is not None


@dataclass(frozen=True)
class PendingPaper:
    guild_id: int
    paper_id: int
    arxiv_id: str


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


async def store_fetched_metadata(
    session: AsyncSession, paper_id: int, metadata: ArxivMetadata | None, now: datetime
) -> tuple[bool, list[int]]:
    """Apply a late lookup; returns (title changed, ids of the paper's active suggestions to re-render)."""
    paper = await session.get(Paper, paper_id)
    if paper is None:
        return False, []
    changed = apply_metadata(paper, metadata, now)
    ids = (
        await session.execute(
            select(Suggestion.id).where(
                Suggestion.paper_id == paper_id, Suggestion.status.in_(ACTIVE_STATUSES)
            )
        )
    ).scalars()
    return changed, list(ids)
