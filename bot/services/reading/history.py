"""The club's reading history: the sessions that took place, newest first, with their papers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from bot.services.papers.store import PaperInfo, paper_info
from bot.text import Page, clamp_page, page_count
from db.base import from_row
from db.models import ClubSession


@dataclass(frozen=True)
class HistoryEntry:
    """A session that took place, with its papers in the order read."""

    id: int
    title: str
    description: str | None
    starts_at: datetime
    timezone: str
    presenter_name: str | None
    presenter_id: int | None
    papers: tuple[PaperInfo, ...]
    recording_url: str | None = None
    notes_url: str | None = None
    wiki_url: str | None = None


def _entry(row: ClubSession) -> HistoryEntry:
    return from_row(HistoryEntry, row, papers=tuple(paper_info(link.paper) for link in row.papers))


def _past_sessions(guild_id: int, now: datetime) -> Select[tuple[ClubSession]]:
    """Sessions that took place (started by ``now``, not cancelled), newest first."""
    return (
        select(ClubSession)
        .where(
            ClubSession.guild_id == guild_id, ClubSession.starts_at <= now, ClubSession.status != "cancelled"
        )
        .options(selectinload(ClubSession.papers))
        .order_by(ClubSession.starts_at.desc(), ClubSession.id.desc())
    )


async def history_page(
    session: AsyncSession, guild_id: int, now: datetime, *, page: int = 0, per_page: int = 5
) -> Page[HistoryEntry]:
    """Sessions that took place (started by `now`, not cancelled), newest first; `page` is clamped."""
    total = int(
        await session.scalar(select(func.count()).select_from(_past_sessions(guild_id, now).subquery())) or 0
    )
    pages = page_count(total, per_page)
    page = clamp_page(page, pages)
    rows = await session.scalars(_past_sessions(guild_id, now).limit(per_page).offset(page * per_page))
    return Page([_entry(row) for row in rows], total, page, pages)


async def all_history(session: AsyncSession, guild_id: int, now: datetime) -> list[HistoryEntry]:
    """Every session that took place, newest first (for exports)."""
    return [_entry(row) for row in await session.scalars(_past_sessions(guild_id, now))]
