"""A server's data as a whole (every table with a ``guild_id``, and their cascading children): counted,
deleted in one transaction; the servers the bot left, kept for the grace period, then deleted."""

from __future__ import annotations

import logging
from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Table, delete, func, literal, select, union
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.base import Base
from db.models.privacy import GuildDeparture
from db.upsert import insert_ignore

log = logging.getLogger("paperclub.privacy")

CHUNK = 500  # ids in one IN (…)


def guild_tables() -> list[Table]:
    """Every table holding a server's rows, children before parents (the order deleting takes)."""
    return [t for t in reversed(Base.metadata.sorted_tables) if "guild_id" in t.c]


def _children() -> list[tuple[Table, Any, Table]]:
    """(table, column, parent) for each table without a server column whose rows cascade from one with it."""
    found = []
    for table in reversed(Base.metadata.sorted_tables):
        if "guild_id" in table.c:
            continue
        for key in table.foreign_keys:
            parent, cascades = key.column.table, (key.ondelete or "").upper() == "CASCADE"
            if cascades and isinstance(parent, Table) and "guild_id" in parent.c:
                found.append((table, key.parent, parent))
                break
    return found


async def holdings(session: AsyncSession, guild_id: int) -> dict[str, int]:
    """How many rows the store holds of the server, by table (tables with none left out)."""
    counted: dict[str, int] = {}
    wheres = [(table, table.c.guild_id == guild_id) for table in guild_tables()]
    for table, column, parent in _children():
        wheres.append(
            (table, column.in_(select(parent.primary_key.columns[0]).where(parent.c.guild_id == guild_id)))
        )
    for table, where in wheres:
        if n := await session.scalar(select(func.count()).select_from(table).where(where)):
            counted[table.name] = int(n)
    return counted


async def delete_server(session: AsyncSession, guild_id: int) -> dict[str, int]:
    """Delete every row of the server, in the caller's transaction; rows deleted by table (children too)."""
    counted = await holdings(session, guild_id)
    for table in guild_tables():
        if table.name in counted:
            await session.execute(delete(table).where(table.c.guild_id == guild_id))
    return counted


async def known_servers(session: AsyncSession) -> set[int]:
    """Every server the store holds anything of (departures aside)."""
    parts = [
        select(table.c.guild_id.label("guild_id")).distinct()
        for table in guild_tables()
        if table.name != GuildDeparture.__tablename__
    ]
    return {int(g) for g in await session.scalars(union(*parts))}


async def mark_left(session: AsyncSession, guild_id: int, now: datetime) -> None:
    """The bot was removed from the server now (an earlier mark stands: its grace began then)."""
    await session.execute(insert_ignore(session, GuildDeparture, {"guild_id": guild_id, "left_at": now}))


async def mark_back(session: AsyncSession, guild_ids: Collection[int]) -> int:
    """The bot is in these servers (again): whatever they hold is kept. How many had been marked left."""
    back = 0
    wanted = sorted(set(guild_ids))
    for start in range(0, len(wanted), CHUNK):
        result = await session.execute(
            delete(GuildDeparture).where(GuildDeparture.guild_id.in_(wanted[start : start + CHUNK]))
        )
        back += int(getattr(result, "rowcount", 0) or 0)
    return back


async def departed(session: AsyncSession) -> dict[int, datetime]:
    """The servers marked left, and when."""
    rows = await session.execute(select(GuildDeparture.guild_id, GuildDeparture.left_at))
    return {int(g): left for g, left in rows.all()}


async def delete_departed(
    session_factory: async_sessionmaker[AsyncSession], now: datetime, grace: timedelta
) -> dict[int, dict[str, int]]:
    """Delete every server left more than ``grace`` ago, each in one transaction (one the bot rejoined
    meanwhile is left alone). What went, by server."""
    async with session_factory() as session:
        due = sorted(
            await session.scalars(
                select(GuildDeparture.guild_id).where(GuildDeparture.left_at <= now - grace)
            )
        )
    gone: dict[int, dict[str, int]] = {}
    for guild_id in due:
        async with session_factory() as session, session.begin():
            still = await session.scalar(  # locked: the bot's rejoining meanwhile waits, then finds it gone
                select(literal(1))
                .where(GuildDeparture.guild_id == guild_id, GuildDeparture.left_at <= now - grace)
                .with_for_update()
            )
            if still is None:
                continue
            gone[guild_id] = await delete_server(session, guild_id)
        log.info("guild %s: its data deleted, %d days after the bot left", guild_id, grace.days)
    return gone
