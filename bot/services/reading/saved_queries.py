"""Saved search queries: a short id that /reading search's page buttons carry instead of the text."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.reading.terms import MAX_QUERY_LENGTH
from db.models.reading import ReadingSearchQuery

SAVED_QUERY_DAYS = 90


async def save_query(session: AsyncSession, guild_id: int, query: str, now: datetime) -> int:
    """An id for `query` that page buttons can carry (reused for the same text; old ones pruned)."""
    text_ = " ".join(query.split())[:MAX_QUERY_LENGTH]
    row = await session.scalar(
        select(ReadingSearchQuery).where(
            ReadingSearchQuery.guild_id == guild_id, ReadingSearchQuery.query == text_
        )
    )
    if row is not None:
        row.created_at = now
        return row.id
    await session.execute(
        delete(ReadingSearchQuery).where(
            ReadingSearchQuery.created_at < now - timedelta(days=SAVED_QUERY_DAYS)
        )
    )
    row = ReadingSearchQuery(guild_id=guild_id, query=text_, created_at=now)
    session.add(row)
    await session.flush()
    return row.id


async def saved_query(session: AsyncSession, guild_id: int, query_id: int) -> str | None:
    """The text of a saved search of the guild, or None."""
    row = await session.get(ReadingSearchQuery, query_id)
    return row.query if row is not None and row.guild_id == guild_id else None
