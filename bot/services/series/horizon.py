"""The daily horizon job's store part: each series not ended gets its weeks (and their sessions) up to the
guild's horizon, one process at a time per series (a claim), and the guild's nudges are planned."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import claims
from bot.errors import PaperclubError
from bot.services.series.nudges import plan_nudges
from bot.services.series.store import active_series, get_settings
from bot.services.series.weeks import fill_weeks
from db.models.series import Series

log = logging.getLogger("paperclub.series")

TRIES = 3
HORIZON_LEASE = timedelta(minutes=5)  # longer than filling one series' horizon takes


@dataclass
class Extended:
    """What one run did: the sessions it made, by guild, and the guilds it looked at."""

    made: dict[int, list[int]] = field(default_factory=dict)
    guilds: set[int] = field(default_factory=set)

    @property
    def count(self) -> int:
        """Sessions made in all."""
        return sum(len(ids) for ids in self.made.values())


async def extend_horizons(
    session_factory: async_sessionmaker[AsyncSession],
    now: datetime,
    *,
    guild_ids: Iterable[int] | None = None,
) -> Extended:
    """Fill every active series' horizon (one transaction per series, under its claim: a series another
    process is filling is left to it), then plan each guild's nudges."""
    wanted = set(guild_ids) if guild_ids is not None else None
    async with session_factory() as session:
        series = [
            info
            for info in await active_series(session, None, now)
            if wanted is None or info.guild_id in wanted
        ]
    result = Extended(guilds={info.guild_id for info in series} | (wanted or set()))
    for info in series:
        key, owner = f"series.horizon:{info.id}", uuid.uuid4().hex
        async with session_factory() as session, session.begin():
            if not await claims.claim(session, key, owner, now, HORIZON_LEASE):
                continue  # another process is filling it (and publishes what it makes)
        try:
            made = await _fill(session_factory, info.id, info.guild_id, now)
        finally:
            async with session_factory() as session, session.begin():
                await claims.release(session, key, owner)
        result.made.setdefault(info.guild_id, []).extend(made)
    for guild_id in sorted(result.guilds):
        await plan_guild_nudges(session_factory, guild_id, now)
    if result.count:
        log.info("series: %d week(s) added across %d guild(s)", result.count, len(result.made))
    return result


async def _fill(
    session_factory: async_sessionmaker[AsyncSession], series_id: int, guild_id: int, now: datetime
) -> list[int]:
    """One series' horizon in one transaction (again, if a /series change made one of its weeks' sessions
    at the same moment); the sessions made."""
    for attempt in range(1, TRIES + 1):
        try:
            async with session_factory() as session, session.begin():
                row = await session.get(Series, series_id, populate_existing=True)
                if row is None:
                    return []
                settings = await get_settings(session, guild_id)
                return await fill_weeks(session, row, now, settings.horizon_weeks)
        except IntegrityError:
            if attempt == TRIES:
                raise
        except PaperclubError as error:  # e.g. a session of that name already at that time
            log.warning("series %s: could not fill its horizon: %s", series_id, error.user_message)
            return []
    return []


async def plan_guild_nudges(
    session_factory: async_sessionmaker[AsyncSession], guild_id: int, now: datetime
) -> None:
    """Plan the guild's nudges in one transaction (again, if a second planner raced it to a row)."""
    for attempt in range(1, TRIES + 1):
        try:
            async with session_factory() as session, session.begin():
                await plan_nudges(session, guild_id, now)
            return
        except IntegrityError:
            if attempt == TRIES:
                raise
