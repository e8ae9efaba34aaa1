"""The series' background work (the cog starts it and hands it what it hears): the daily horizon job
(:meth:`SeriesBackground.run_horizons`, around :func:`bot.services.series.horizon.extend_horizons`), a job of
the background core in every process for the servers it serves (their Discord events need the gateway's
guild), and a run for each server when it becomes available (start-up, reconnect); and, after any change to
a week (/series, or /session edit and /session cancel, heard as ``session_saved`` / ``session_cancelled``),
the nudges planned again and the open-weeks messages brought up to date.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from bot.background import Job, daily
from bot.client import PaperclubBot
from bot.services.config.guild import get_config
from bot.services.series import changes as changes_svc
from bot.services.series import horizon
from bot.services.series import store as svc
from bot.services.series import weeks as weeks_svc
from bot.services.series.info import Changes
from cogs.series import _publishing as publishing

log = logging.getLogger("paperclub.series")
HORIZON_JOB = "series.horizons"
DAILY_AT = (0, 17)  # UTC; any time works, the job is idempotent


class SeriesBackground:
    """The daily horizon job, start-up runs per server, and boards and nudges kept in step with changes."""

    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot
        self._tasks: set[asyncio.Task[Any]] = set()
        self._dirty: set[int] = set()
        self._refresher: asyncio.Task[None] | None = None
        self._ready: dict[int, asyncio.Event] = {}

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Add the daily horizon job (from the cog's cog_load)."""
        await self.bot.background.add(
            Job(HORIZON_JOB, daily(*DAILY_AT), self._daily, once=False, run_at_start=False)
        )

    async def stop(self) -> None:
        """Remove it; stop the refreshes in flight (from cog_unload)."""
        await self.bot.background.remove(HORIZON_JOB)
        # Cancelled and awaited here, before the bot disposes of the engine: a task still holding a store
        # connection when the loop closes cannot hand it back (its close waits on a stopped driver).
        pending = [*self._tasks, *([self._refresher] if self._refresher else [])]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    def ready(self, guild_id: int) -> asyncio.Event:
        """Set once the server's first horizon run since start-up has finished (tests, the demo)."""
        return self._ready.setdefault(guild_id, asyncio.Event())

    async def settle(self) -> None:
        """Wait for the background work changes set off (refreshes, horizon runs)."""
        while self._tasks or (self._refresher is not None and not self._refresher.done()):
            pending = [*self._tasks, *([self._refresher] if self._refresher else [])]
            await asyncio.gather(*pending, return_exceptions=True)

    def _track(self, work: Any) -> asyncio.Task[Any]:
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

    async def run_horizons(self, guild_ids: Iterable[int] | None = None) -> horizon.Extended:
        """The daily job: each series of these servers (default: every server this process serves) gets
        its weeks up to the horizon, the organizers' thread is opened where missing, the nudges are planned,
        and the open-weeks messages are brought up to date."""
        wanted = list(guild_ids) if guild_ids is not None else [guild.id for guild in self.bot.guilds]
        now = self.bot.clock.now()
        async with self.bot.session_factory() as session:
            with_series = {info.guild_id for info in await svc.active_series(session, None, now)}
        for guild_id in wanted:
            if guild_id in with_series:
                await publishing.organizer_thread(self.bot, guild_id)
        try:
            extended = await horizon.extend_horizons(self.bot.session_factory, now, guild_ids=wanted)
        except Exception:  # a background job must not die; the next run tries again
            log.exception("series: the horizon job failed")
            return horizon.Extended()
        for guild_id, made in extended.made.items():
            if made:
                await self._publish(guild_id, Changes(saved=made))
        for guild_id in sorted(extended.guilds):
            await self._refresh_boards(guild_id)
        return extended

    async def _publish(self, guild_id: int, changes: Changes) -> list[str]:
        async with self.bot.session_factory() as session:
            config = await get_config(session, guild_id)
        return await publishing.publish(self.bot, guild_id, changes, config.display_zones)

    # ------------------------------------------------------------------ keeping boards and nudges in step

    async def refresh_guild(self, guild_id: int) -> None:
        """Plan the server's nudges and update its open-weeks messages (after any change to a week)."""
        try:
            await horizon.plan_guild_nudges(self.bot.session_factory, guild_id, self.bot.clock.now())
        except Exception:  # planned again on the next change or daily run
            log.exception("guild %s: could not plan the nudges", guild_id)
        await self._refresh_boards(guild_id)

    async def _refresh_boards(self, guild_id: int) -> None:
        async with self.bot.session_factory() as session:
            infos = await svc.list_series(session, guild_id)
        for info in infos:
            await publishing.refresh_board(self.bot, info)

    def _refresh_soon(self, guild_id: int) -> None:
        """Coalesce refreshes: one runs at a time, and a server changed meanwhile is refreshed once more."""
        self._dirty.add(guild_id)
        if self._refresher is None or self._refresher.done():
            self._refresher = asyncio.create_task(self._refresh_loop(), name="series-refresh")

    async def _refresh_loop(self) -> None:
        while self._dirty:
            await self.refresh_guild(self._dirty.pop())

    async def _is_week(self, guild_id: int, session_id: int) -> bool:
        async with self.bot.session_factory() as session:
            return await weeks_svc.week_of_session(session, guild_id, session_id) is not None

    async def session_saved(self, guild_id: int, session_id: int) -> None:
        """A week's session changed: refresh the server's boards and nudges."""
        # Tracked from the listener's first step, so settle() waits for it (tests, the demo).
        await self._track(self._week_saved(guild_id, session_id))

    async def _week_saved(self, guild_id: int, session_id: int) -> None:
        if await self._is_week(guild_id, session_id):
            self._refresh_soon(guild_id)

    async def session_cancelled(self, guild_id: int, session_id: int) -> None:
        """A week's session cancelled: skip the week."""
        await self._track(self._week_cancelled(guild_id, session_id))

    async def _week_cancelled(self, guild_id: int, session_id: int) -> None:
        """A week's session cancelled with /session cancel: the week is skipped, with its reason."""
        async with self.bot.session_factory() as session, session.begin():
            skipped = await changes_svc.skip_for_cancelled(
                session, guild_id, session_id, self.bot.clock.now()
            )
        if skipped or await self._is_week(guild_id, session_id):
            self._refresh_soon(guild_id)
