"""Each /remind action and session event as one call into the reminders service (no Discord), with a
recording transport, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import pytest

from bot.background import Background, build_scheduler
from bot.clock import FakeClock
from bot.errors import Conflict, NotFound
from bot.services.reminders.requested import CustomReminder
from bot.services.reminders.runner import Reminders
from db.engine import create_session_factory
from db.models.reminders import CANCELLED, CUSTOM, PENDING, PERSONAL, SENT, SESSION
from tests.reminders.helpers import CHANNEL, GUILD, NOW, RecordingTransport, configure, make_session, rows

ZONE = "America/Los_Angeles"


@dataclass
class Host:
    session_factory: Any
    engine: Any
    clock: FakeClock
    background: Background
    settings: Any
    metrics: Any = None


@contextlib.asynccontextmanager
async def started(
    session_factory, engine, *, max_pending: int = 500
) -> AsyncIterator[tuple[Reminders, Host]]:
    clock = FakeClock(NOW)
    settings = SimpleNamespace(
        max_pending_reminders=max_pending, presenter_dm_days=3, reminder_grace_minutes=60
    )
    host = Host(
        session_factory, engine, clock, Background(build_scheduler(), session_factory, clock), settings
    )
    reminders = Reminders(host, RecordingTransport())
    await reminders.start()
    await host.background.start()
    try:
        yield reminders, host
    finally:
        await reminders.stop()
        await host.background.stop()


def add(reminders: Reminders, when: str, message: str = "Read the paper", **kw: Any):
    values = {"guild_id": GUILD, "channel_id": CHANNEL, "zone": ZONE, "created_by": 9}
    return reminders.add(CustomReminder(message=message, when=when, **{**values, **kw}), NOW)


async def test_an_added_reminder_wakes_the_runner_and_a_cancelled_one_stays_quiet(
    session_factory, engine
) -> None:
    await configure(session_factory)
    async with started(session_factory, engine) as (reminders, host):
        kept, note = await add(reminders, "in 5 minutes", "Kept")
        dropped, _ = await add(reminders, "in 5 minutes", "Dropped", channel_id=CHANNEL + 1)
        assert note is None
        assert (await reminders.cancel(GUILD, dropped.number or 0, by_user=9, now=NOW)).status == CANCELLED
        with pytest.raises(NotFound):
            await reminders.cancel(GUILD, dropped.number or 0, by_user=9, now=NOW)
        await host.clock.advance(timedelta(minutes=5))
        await reminders.settle()
        assert [o.content for o in reminders.runner.transport.sent] == ["⏰ **Reminder**\nKept"]
    assert [(r.id, r.status) for r in await rows(session_factory)] == [
        (kept.row_id, SENT),
        (dropped.row_id, CANCELLED),
    ]


async def test_the_cap_on_pending_reminders_refuses_before_writing(session_factory, engine) -> None:
    async with started(session_factory, engine, max_pending=1) as (reminders, _):
        await add(reminders, "tomorrow 9am")
        with pytest.raises(Conflict, match="1 pending reminders"):
            await add(reminders, "tomorrow 10am")
    assert len(await rows(session_factory)) == 1


async def test_planning_follows_the_session_events(session_factory, engine) -> None:
    await configure(session_factory, reminder_offsets="24h,1h")
    club = await make_session(session_factory, NOW + timedelta(days=2), subscribers={42: 30})
    async with started(session_factory, engine) as (reminders, _):
        planned = await rows(session_factory, status=PENDING)
        assert sorted((r.kind, r.plan_key) for r in planned) == [
            (PERSONAL, "personal:42"),
            (SESSION, "session:1440"),
            (SESSION, "session:60"),
        ]
        await configure(session_factory, reminder_offsets="1h")
        await reminders.plan_guild(GUILD)
        assert sorted(r.plan_key for r in await rows(session_factory, status=PENDING)) == [
            "personal:42",
            "session:60",
        ]

        mine = await reminders.toggle_me(
            guild_id=GUILD, session_id=club, user_id=7, before=timedelta(hours=2), now=NOW
        )
        assert (mine.subscribed, mine.due_at) == (True, NOW + timedelta(days=2, hours=-2))
        assert [r.user_id for r in await rows(session_factory, kind=PERSONAL, status=PENDING)] == [42, 7]
        off = await reminders.toggle_me(guild_id=GUILD, session_id=club, user_id=7, before=None, now=NOW)
        assert not off.subscribed
        tied, _ = await add(reminders, "3h", "Bring questions", session_id=club)

        await reminders.cancel_session(club)
        assert await rows(session_factory, status=PENDING) == []
        assert (await rows(session_factory, id=tied.row_id))[0].status == CANCELLED


async def test_list_pages_are_clamped_and_carry_the_guild_zones(session_factory, engine) -> None:
    await configure(session_factory, timezone=ZONE, display_zones="Europe/Berlin=CET")
    async with started(session_factory, engine) as (reminders, _):
        for hour in range(3):
            await add(reminders, f"tomorrow {hour + 8}:00", f"number {hour}")
        first = await reminders.page(GUILD, 0, 2, NOW)
        last = await reminders.page(GUILD, 7, 2, NOW)
        other = await reminders.page(GUILD + 1, 0, 2, NOW)
    assert [(i.message, i.kind) for i in first.pending] == [("number 0", CUSTOM), ("number 1", CUSTOM)]
    assert (first.pages, last.page, [i.message for i in last.pending]) == (2, 1, ["number 2"])
    assert [(z.zone, z.label) for z in first.zones] == [("Europe/Berlin", "CET")]
    assert (other.total_pending, other.pending) == (0, [])


async def test_two_processes_adding_at_once_number_their_reminders_apart(
    session_factory, engine, store_info
) -> None:
    """A second process (its own engine) adds reminders at the same moment: each number is taken once (the
    loser of a number numbers again)."""
    other_engine = store_info.engine()
    try:
        other_factory = create_session_factory(other_engine)
        async with (
            started(session_factory, engine) as (first, _),
            started(other_factory, other_engine) as (second, _),
        ):
            added = await asyncio.gather(
                *(add(process, "tomorrow 9am", f"Race {i}") for i in range(4) for process in (first, second))
            )
    finally:
        await other_engine.dispose()
    assert sorted(info.number or 0 for info, _ in added) == list(range(1, 9))
