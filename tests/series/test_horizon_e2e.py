"""The daily horizon job (SQLite and PostgreSQL): the weeks move on across restarts and day changes, each week
made once; two bot processes on one store filling the same horizon at the same moment make each week, each
session, each Discord event and each nudge once (a series another process holds the claim of is left to it)."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import func, select

from bot.client import build_bot
from bot.demo.running import connected
from bot.services.series import weeks as series_weeks
from bot.services.series.background import HORIZON_JOB
from db.models import ClubSession
from db.models.reminders import NUDGE, SENT, Reminder
from db.models.series import SeriesWeek
from tests.series.helpers import add_thursdays, configure, from_bot, settle, thread_named

EVENT_POSTS = r"/guilds/\d+/scheduled-events$"


async def week_dates(env) -> list[date]:
    async with env.bot.session_factory() as db:
        return list(await db.scalars(select(SeriesWeek.week_date).order_by(SeriesWeek.week_date)))


async def duplicates(env) -> list[Any]:
    async with env.bot.session_factory() as db:
        weeks = (
            await db.execute(
                select(SeriesWeek.series_id, SeriesWeek.week_date)
                .group_by(SeriesWeek.series_id, SeriesWeek.week_date)
                .having(func.count() > 1)
            )
        ).all()
        sessions = (
            await db.execute(
                select(ClubSession.title, ClubSession.starts_at)
                .group_by(ClubSession.title, ClubSession.starts_at)
                .having(func.count() > 1)
            )
        ).all()
        nudges = (
            await db.execute(
                select(Reminder.session_id, Reminder.plan_key)
                .where(Reminder.kind == NUDGE)
                .group_by(Reminder.session_id, Reminder.plan_key)
                .having(func.count() > 1)
            )
        ).all()
    return [*weeks, *sessions, *nudges]


def thursdays(first: date, count: int) -> list[date]:
    return [first + timedelta(weeks=n) for n in range(count)]


async def test_the_horizon_moves_on_across_restarts_without_a_second_week(env) -> None:
    await configure(env)
    await add_thursdays(env)
    assert await week_dates(env) == thursdays(date(2026, 12, 3), 8)
    assert len(env.standin.requests_to("POST", EVENT_POSTS)) == 8

    # down for two weeks; back on Monday 14 December: the weeks up to 8 weeks ahead, the past ones kept
    await env.stop_bot()
    await env.clock.set(datetime(2026, 12, 14, 17, 0, tzinfo=UTC))
    await env.start_bot()
    await env.bot.get_cog("SeriesCog").background.ready(env.guild.id).wait()
    await settle(env)
    assert await week_dates(env) == thursdays(date(2026, 12, 3), 10)
    assert len(env.standin.requests_to("POST", EVENT_POSTS)) == 10

    # a restart at the same time makes nothing
    await env.restart_bot()
    await env.bot.get_cog("SeriesCog").background.ready(env.guild.id).wait()
    await settle(env)
    assert await week_dates(env) == thursdays(date(2026, 12, 3), 10)
    assert len(env.standin.requests_to("POST", EVENT_POSTS)) == 10

    # running, the day changes: the job adds the week that comes into reach (17 Dec + 8 weeks: 11 Feb)
    await env.clock.set(datetime(2026, 12, 15, 17, 0, tzinfo=UTC))
    await settle(env)
    assert await week_dates(env) == thursdays(date(2026, 12, 3), 10)
    await env.clock.set(datetime(2026, 12, 17, 17, 0, tzinfo=UTC))
    await settle(env)
    assert await week_dates(env) == thursdays(date(2026, 12, 3), 11)
    assert len(env.standin.requests_to("POST", EVENT_POSTS)) == 11
    assert await duplicates(env) == []


async def test_two_processes_fill_the_same_horizon_once(env, store_info, monkeypatch) -> None:
    await configure(env)
    await add_thursdays(env)
    await add_thursdays(env, "Tuesday reading group", day="Tuesday", time="17:00", every=2)
    before = len(env.standin.requests_to("POST", EVENT_POSTS))
    weeks_before = len(await week_dates(env))

    # Both processes run at once and insert at the same moment, each into the series it claimed (on
    # PostgreSQL; SQLite takes one writer at a time, so there they run one after the other).
    real_insert = series_weeks.insert_week
    barrier = asyncio.Barrier(2)
    met: set[int] = set()

    async def insert(session: Any, row: Any, day: date, now: datetime, **kwargs: Any) -> Any:
        if store_info.backend == "postgresql" and id(session.bind) not in met:
            met.add(id(session.bind))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(barrier.wait(), 10)
        return await real_insert(session, row, day, now, **kwargs)

    monkeypatch.setattr(series_weeks, "insert_week", insert)
    second_engine = env.engine_factory() if env.engine_factory else None
    second = build_bot(env.settings, clock=env.clock, engine=second_engine, migrate=False)
    async with connected(second, env.standin):
        await second.get_cog("SeriesCog").background.ready(env.guild.id).wait()
        cogs = [env.bot.get_cog("SeriesCog").background, second.get_cog("SeriesCog").background]
        later = datetime(2026, 12, 21, 17, 0, tzinfo=UTC)  # three weeks on: each series has new weeks
        for bot in (env.bot, second):  # the day's run is the one started below, in both at once
            await bot.background.remove(HORIZON_JOB)
            # and every nudge's record is counted below: none deleted after its 30 days (privacy.lifetimes)
            await bot.background.remove("privacy.lifetimes")
        await env.clock.set(later)
        made = await asyncio.gather(*(cog.run_horizons([env.guild.id]) for cog in cogs))
        for bot in (env.bot, second):
            await bot.get_cog("SeriesCog").background.settle()
            await bot.get_cog("RemindersCog").settle()
        if store_info.backend == "postgresql":
            assert len(met) == 2  # both processes were inserting at once
        new = len(await week_dates(env)) - weeks_before
        assert new == 5  # 28 Jan, 4 and 11 Feb (weekly); 26 Jan and 9 Feb (every other Tuesday)
        assert sum(made) == new  # each week made by one of them
        assert await duplicates(env) == []
        assert len(env.standin.requests_to("POST", EVENT_POSTS)) == before + new
        # each nudge goes out once, whichever process's reminder runner claims it
        await env.clock.set(datetime(2027, 1, 14, 17, 0, tzinfo=UTC))
        for bot in (env.bot, second):
            await bot.get_cog("SeriesCog").background.settle()
            await bot.get_cog("RemindersCog").settle()
        assert await duplicates(env) == []
    thread = thread_named(env, "Programme · organizers")
    nudges = [m.content for m in from_bot(env, env.messages_in(thread)) if m.content.startswith(("🙋", "📄"))]
    assert len(nudges) == len(set(nudges))
    async with env.bot.session_factory() as db:
        sent = await db.scalar(
            select(func.count()).select_from(Reminder).where(Reminder.kind == NUDGE, Reminder.status == SENT)
        )
    assert sent == len(nudges) > 10
