"""The daily horizon job's store part: every series that has not ended gets its weeks (and their sessions) up
to the guild's horizon, and the guild's nudges are planned.

Idempotent by construction, not by a lock: each week is inserted if absent under the unique constraint on
(series, week date), with its session in the same transaction, so a restart, a rerun or two processes make
each week once. The series cog runs :func:`extend_horizons` daily (bot/background.py) and when a server
becomes available.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.errors import PaperclubError
from bot.services.series.nudges import plan_nudges
from bot.services.series.store import active_series, get_settings
from bot.services.series.weeks import fill_weeks
from db.models.series import Series

log = logging.getLogger("paperclub.series")

TRIES = 3


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
    """Fill every active series' horizon (one transaction per series), then plan each guild's nudges."""
    wanted = set(guild_ids) if guild_ids is not None else None
    async with session_factory() as session:
        series = [
            info
            for info in await active_series(session, None, now)
            if wanted is None or info.guild_id in wanted
        ]
    result = Extended(guilds={info.guild_id for info in series} | (wanted or set()))
    for info in series:
        for attempt in range(1, TRIES + 1):
            try:
                async with session_factory() as session, session.begin():
                    row = await session.get(Series, info.id, populate_existing=True)
                    if row is None:
                        break
                    settings = await get_settings(session, info.guild_id)
                    made = await fill_weeks(session, row, now, settings.horizon_weeks)
                result.made.setdefault(info.guild_id, []).extend(made)
                break
            except IntegrityError:  # another process made one of these weeks' sessions at the same moment
                if attempt == TRIES:
                    raise
            except PaperclubError as error:  # e.g. a session of that name already at that time
                log.warning("series %s: could not fill its horizon: %s", info.id, error.user_message)
                break
    for guild_id in sorted(result.guilds):
        await plan_guild_nudges(session_factory, guild_id, now)
    if result.count:
        log.info("series: %d week(s) added across %d guild(s)", result.count, len(result.made))
    return result


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
