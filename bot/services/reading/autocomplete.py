"""Autocomplete for /reading: paper titles and list names as they are typed, a list's papers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.papers import normalize_title
from bot.services.papers.store import PaperInfo, paper_info
from bot.services.reading.lists import MAX_LIST_NAME, find_list, normalize_list_name, paper_infos
from bot.services.reading.search import (
    MAX_QUERY_LENGTH,
    MAX_TERMS,
    PG_SUGGEST,
    SQLITE_SUGGEST,
    STOPWORDS,
    fts5_expression,
    is_sqlite,
    tsquery_expression,
    words_of,
)
from bot.text import CHOICE_NAME_LIMIT, one_line
from db.models import Paper
from db.models.reading import ReadingList, ReadingListItem

MAX_CHOICES = 25  # Discord offers at most 25 autocomplete choices


@dataclass(frozen=True)
class Suggestion:
    """An autocomplete choice: a paper title or a list name."""

    kind: Literal["paper", "list"]
    name: str
    ref_id: int = 0


async def suggest(session: AsyncSession, guild_id: int, current: str) -> list[Suggestion]:
    """Paper titles and list names for a query being typed (the last word as a prefix)."""
    words = tuple(w for w in words_of(current[:MAX_QUERY_LENGTH]) if w not in STOPWORDS)[:MAX_TERMS]
    if not words:
        return await _recent_names(session, guild_id)
    if is_sqlite(session):
        statement = SQLITE_SUGGEST
        expression = "title : (" + fts5_expression(words, prefix_last=True) + ")"
    else:
        statement = PG_SUGGEST
        expression = tsquery_expression(words, prefix_last=True, weights="A")
    result = await session.execute(statement, {"q": expression, "g": guild_id, "limit": MAX_CHOICES})
    return [Suggestion(kind, title, int(ref_id)) for kind, ref_id, title in result.all()]


async def _recent_names(session: AsyncSession, guild_id: int) -> list[Suggestion]:
    """With nothing typed yet: the lists, then the most recently added papers."""
    lists = (
        await session.execute(
            select(ReadingList.id, ReadingList.name)
            .where(ReadingList.guild_id == guild_id)
            .order_by(ReadingList.name)
            .limit(MAX_CHOICES)
        )
    ).all()
    out = [Suggestion("list", name, list_id) for list_id, name in lists]
    papers = (
        await session.execute(
            select(Paper.id, Paper.title)
            .where(Paper.guild_id == guild_id)
            .order_by(Paper.id.desc())
            .limit(MAX_CHOICES - len(out))
        )
    ).all()
    out.extend(Suggestion("paper", title, paper_id) for paper_id, title in papers)
    return out[:MAX_CHOICES]


async def list_name_choices(session: AsyncSession, guild_id: int, current: str) -> list[str]:
    """List names containing what is typed (names starting with it first)."""
    needle = normalize_list_name(current)[:MAX_LIST_NAME]
    rows = await session.scalars(
        select(ReadingList.name)
        .where(
            ReadingList.guild_id == guild_id,
            ReadingList.normalized_name.contains(needle, autoescape=True),
        )
        .order_by(ReadingList.normalized_name)
        .limit(100)
    )
    names = list(rows)
    names.sort(key=lambda n: not normalize_list_name(n).startswith(needle))
    return names[:MAX_CHOICES]


def choice_value(info: PaperInfo) -> str:
    """A value that names this paper exactly (its key) when it fits an autocomplete value (100)."""
    return info.key if len(info.key) <= 100 else info.title[:100]


async def list_paper_choices(
    session: AsyncSession, guild_id: int, list_name: str, current: str
) -> list[tuple[str, str]]:
    """(title, value) for the papers on `list_name` whose title contains what is typed."""
    row = await find_list(session, guild_id, list_name)
    if row is None:
        return []
    needle = normalize_title(current)
    rows = await session.scalars(
        select(Paper)
        .join(ReadingListItem, ReadingListItem.paper_id == Paper.id)
        .where(ReadingListItem.list_id == row.id, Paper.normalized_title.contains(needle, autoescape=True))
        .order_by(ReadingListItem.position)
        .limit(MAX_CHOICES)
    )
    return [_choice(p.title, choice_value(paper_info(p))) for p in rows]


async def paper_choices(session: AsyncSession, guild_id: int, current: str) -> list[tuple[str, str]]:
    """(title, key) for the stored papers matching what is typed, so the exact paper is used."""
    found = [s.ref_id for s in await suggest(session, guild_id, current) if s.kind == "paper"]
    return [_choice(info.title, choice_value(info)) for info in await paper_infos(session, found)]


async def query_choices(session: AsyncSession, guild_id: int, current: str) -> list[tuple[str, str]]:
    """Paper titles and list names for the words typed so far."""
    return [
        _choice(f"{item.name} (reading list)" if item.kind == "list" else item.name, one_line(item.name, 100))
        for item in await suggest(session, guild_id, current)
    ]


def _choice(name: str, value: str) -> tuple[str, str]:
    return one_line(name, CHOICE_NAME_LIMIT) or "—", value[:100]
