"""Autocomplete for /reading search and the list commands: paper titles and list names as they are typed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.reading.statements import PG_SUGGEST, SQLITE_SUGGEST
from bot.services.reading.terms import (
    MAX_QUERY_LENGTH,
    MAX_TERMS,
    STOPWORDS,
    fts5_expression,
    tsquery_expression,
    words_of,
)
from db.models import Paper
from db.models.reading import ReadingList


@dataclass(frozen=True)
class Suggestion:
    """An autocomplete choice: a paper title or a list name."""

    kind: Literal["paper", "list"]
    name: str
    ref_id: int = field(default=0)


async def suggest(session: AsyncSession, guild_id: int, current: str, *, limit: int = 25) -> list[Suggestion]:
    """Paper titles and list names for a query being typed (the last word as a prefix)."""
    limit = max(1, min(limit, 25))
    words = tuple(w for w in words_of(current[:MAX_QUERY_LENGTH]) if w not in STOPWORDS)[:MAX_TERMS]
    if not words:
        return await _recent_names(session, guild_id, limit)
    if session.get_bind().dialect.name == "sqlite":
        statement = SQLITE_SUGGEST
        expression = "title : (" + fts5_expression(words, prefix_last=True) + ")"
    else:
        statement = PG_SUGGEST
        expression = tsquery_expression(words, prefix_last=True, weights="A")
    result = await session.execute(statement, {"q": expression, "g": guild_id, "limit": limit})
    return [Suggestion(kind, title, int(ref_id)) for kind, ref_id, title in result.all()]


async def _recent_names(session: AsyncSession, guild_id: int, limit: int) -> list[Suggestion]:
    """With nothing typed yet: the lists, then the most recently added papers."""
    lists = (
        await session.execute(
            select(ReadingList.id, ReadingList.name)
            .where(ReadingList.guild_id == guild_id)
            .order_by(ReadingList.name)
            .limit(limit)
        )
    ).all()
    out = [Suggestion("list", name, list_id) for list_id, name in lists]
    papers = (
        await session.execute(
            select(Paper.id, Paper.title)
            .where(Paper.guild_id == guild_id)
            .order_by(Paper.id.desc())
            .limit(limit - len(out))
        )
    ).all()
    out.extend(Suggestion("paper", title, paper_id) for paper_id, title in papers)
    return out[:limit]
