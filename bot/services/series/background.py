"""The series' background work: the daily horizon job, a run per server, refreshes after a week changes."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Coroutine, Iterable
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import claims
from bot.background import Background, Job, daily
from bot.clock import Clock
from bot.errors import PaperclubError
from bot.services.config.guild import get_config
from bot.services.series.changes import skip_for_cancelled
from bot.services.series.info import Changes
from bot.services.series.publishing import (
    SeriesContext,
    organizer_thread,
    plan_guild_nudges,
    publish_changes,
    refresh_boards,
    refresh_guild,
)
from bot.services.series.store import active_series, get_settings
from bot.services.series.weeks import fill_weeks, week_of_session
from db.models.series import Series

log = logging.getLogger("paperclub.series")
HORIZON_JOB: Final = "series.horizons"
DAILY_AT: Final = (0, 17)  # UTC; any time works, the job is idempotent
TRIES = 3
HORIZON_LEASE = timedelta(minutes=5)  # longer than filling one series' horizon takes


async def extend_horizons(
    session_factory: async_sessionmaker[AsyncSession], now: datetime, guild_ids: Iterable[int]
) -> dict[int, list[int]]:
    """Fill these guilds' series' horizons (each under its claim), plan their nudges; the sessions made, by guild."""
    made_by_guild: dict[int, list[int]] = {}
    guilds = set(guild_ids)
    async with session_factory() as session:
        series = [info for info in await active_series(session, None, now) if info.guild_id in guilds]
    for info in series:
        key, owner = f"series.horizon:{info.id}", uuid.uuid4().hex
        async with session_factory() as session, session.begin():
            if not await claims.claim(session, key, owner, now, HORIZON_LEASE):
                continue  # another process is filling it (and publishes what it makes)
        try:
            made = await _fill(session_factory, info.id, now)
        finally:
            async with session_factory() as session, session.begin():
                await claims.release(session, key, owner)
        made_by_guild.setdefault(info.guild_id, []).extend(made)
    for guild_id in sorted(guilds):
        await plan_guild_nudges(session_factory, guild_id, now)
    if count := sum(map(len, made_by_guild.values())):
        log.info("series: %d week(s) added across %d guild(s)", count, len(made_by_guild))
    return made_by_guild


async def _fill(
    session_factory: async_sessionmaker[AsyncSession], series_id: int, now: datetime
) -> list[int]:
    """One series' horizon in one transaction (again, if a change made one of its weeks at the same moment)."""
    for attempt in range(1, TRIES + 1):
        try:
            async with session_factory() as session, session.begin():
                row = await session.get(Series, series_id, populate_existing=True)
                if row is None:
                    return []
                settings = await get_settings(session, row.guild_id)
                return await fill_weeks(session, row, now, settings.horizon_weeks)
        except IntegrityError:
            if attempt == TRIES:
                raise
        except PaperclubError as error:  # e.g. a session of that name already at that time
            log.warning("series %s: could not fill its horizon: %s", series_id, error.user_message)
            return []
    return []


class SeriesBackground:
    """The daily horizon job, start-up runs per server, and boards and nudges kept in step with changes."""

    def __init__(self, ctx: SeriesContext, background: Background, clock: Clock) -> None:
        self.ctx = ctx
        self.background = background
        self.clock = clock
        self._tasks: set[asyncio.Task[Any]] = set()
        self._dirty: set[int] = set()
        self._refresher: asyncio.Task[Any] | None = None
        self._ready: dict[int, asyncio.Event] = {}

    async def start(self) -> None:
        """Add the daily horizon job (from the cog's cog_load)."""
        await self.background.add(
            Job(HORIZON_JOB, daily(*DAILY_AT), self._daily, once=False, run_at_start=False)
        )

    async def stop(self) -> None:
        """Remove it; cancel and await the refreshes in flight, before the bot disposes of the engine."""
        await self.background.remove(HORIZON_JOB)
        pending = list(self._tasks)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    def ready(self, guild_id: int) -> asyncio.Event:
        """Set once the server's first horizon run since start-up has finished (tests, the demo)."""
        return self._ready.setdefault(guild_id, asyncio.Event())

    async def settle(self) -> None:
        """Wait for the background work changes set off (refreshes, horizon runs)."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def _track(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def start_guild(self, guild_id: int) -> None:
        """The server's horizon, once it is available (start-up, reconnect) or joined."""
        try:
            await self._track(self.run_horizons([guild_id]))
        finally:
            self.ready(guild_id).set()

    async def _daily(self, _now: datetime) -> None:
        await self.run_horizons()

    async def run_horizons(self, guild_ids: Iterable[int] | None = None) -> int:
        """Fill and publish these servers' series (default: this process's) to their horizon; the sessions made."""
        ctx, now = self.ctx, self.clock.now()
        wanted = list(guild_ids) if guild_ids is not None else ctx.discord.guild_ids()
        async with ctx.store() as session:
            with_series = {info.guild_id for info in await active_series(session, None, now)}
        for guild_id in wanted:
            if guild_id in with_series:
                await organizer_thread(ctx, guild_id, now)
        try:
            made_by_guild = await extend_horizons(ctx.store, now, wanted)
        except Exception:  # a background job must not die; the next run tries again
            log.exception("series: the horizon job failed")
            return 0
        for guild_id, made in made_by_guild.items():
            if made:
                async with ctx.store() as session:
                    zones = (await get_config(session, guild_id)).display_zones
                await publish_changes(ctx, guild_id, Changes(saved=made), zones, now)
        for guild_id in sorted(set(wanted)):
            await refresh_boards(ctx, guild_id, now)
        return sum(map(len, made_by_guild.values()))

    async def _refresh_loop(self) -> None:
        while self._dirty:
            await refresh_guild(self.ctx, self._dirty.pop(), self.clock.now())

    async def session_changed(self, guild_id: int, session_id: int, *, cancelled: bool = False) -> None:
        """A week's session saved or cancelled (the week skipped then): the boards and nudges refreshed."""
        await self._track(self._week_changed(guild_id, session_id, cancelled))

    async def _week_changed(self, guild_id: int, session_id: int, cancelled: bool) -> None:
        async with self.ctx.store() as session, session.begin():
            skipped = cancelled and await skip_for_cancelled(session, guild_id, session_id, self.clock.now())
            week = skipped or await week_of_session(session, guild_id, session_id) is not None
        if week:  # coalesced: one refresh at a time, and a server changed meanwhile is refreshed once more
            self._dirty.add(guild_id)
            if self._refresher is None or self._refresher.done():
                self._refresher = self._track(self._refresh_loop())
