"""Shared helpers for the reminders tests: rows made directly in the store, a recording transport."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.background import Background, build_scheduler
from bot.clock import Clock, SystemClock
from bot.services.config.guild import update_config
from bot.services.reminders.delivery import Outgoing, SendError
from bot.services.reminders.runner import ReminderRunner
from db.models import ClubSession, SessionSubscription
from db.models.reminders import CUSTOM, PENDING, Reminder

GUILD = 111
CHANNEL = 5001
ANNOUNCEMENTS = 5002
PING_ROLE = 7001
# Monday 30 November 2026, 9:00 AM in Los Angeles.
NOW = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)

Factory = async_sessionmaker[AsyncSession]


class ManualClock(SystemClock):
    """A clock moved by hand with no listeners (passes are then run by calling ``run_due``)."""

    def __init__(self, now: datetime) -> None:
        self._now = now

    def now(self) -> datetime:
        return self._now

    def move(self, delta: timedelta) -> None:
        self._now += delta


@dataclass
class RecordingTransport:
    """Records what would be sent; ``failures`` are raised first, one per send."""

    delay: float = 0.0
    failures: list[SendError] = field(default_factory=list)
    sent: list[Outgoing] = field(default_factory=list)
    attempts: list[Outgoing] = field(default_factory=list)

    async def send(self, outgoing: Outgoing) -> int | None:
        self.attempts.append(outgoing)
        await asyncio.sleep(self.delay)
        if self.failures:
            raise self.failures.pop(0)
        self.sent.append(outgoing)
        return 900_000 + len(self.sent)


class MeetingTransport(RecordingTransport):
    """A transport whose first send waits (up to 5 s) until the other runner's transport is sending too,
    so a test of two runners is sure both really ran at the same time, whatever the machine's load."""

    def __init__(self, barrier: asyncio.Barrier, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.barrier = barrier
        self.met = False

    async def send(self, outgoing: Outgoing) -> int | None:
        if not self.met:
            self.met = True
            with contextlib.suppress(TimeoutError, asyncio.BrokenBarrierError):
                await asyncio.wait_for(self.barrier.wait(), 5)
        return await super().send(outgoing)


@contextlib.asynccontextmanager
async def running(runner: ReminderRunner, factory: Factory, clock: Clock) -> AsyncIterator[Background]:
    """The runner as the bot runs it: the job of a background core, which a FakeClock's moves fire."""
    background = Background(build_scheduler(), factory, clock)
    await runner.start(background)
    await background.start()
    try:
        yield background
    finally:
        await background.stop()


async def configure(factory: Factory, guild_id: int = GUILD, **changes: Any) -> None:
    changes.setdefault("announcements_channel_id", ANNOUNCEMENTS)
    changes.setdefault("ping_role_id", PING_ROLE)
    async with factory() as s, s.begin():
        await update_config(s, guild_id, **changes)


async def make_reminder(factory: Factory, due: datetime, **fields: Any) -> int:
    values: dict[str, Any] = {
        "guild_id": GUILD,
        "kind": CUSTOM,
        "channel_id": CHANNEL,
        "message": "Read the paper",
        "status": PENDING,
        "attempts": 0,
        "occurrence": 0,
        "delayed": False,
        "created_at": NOW,
        "updated_at": NOW,
    }
    values.update(fields)
    values.setdefault("next_attempt_at", due)
    async with factory() as s, s.begin():
        row = Reminder(due_at=due, **values)
        s.add(row)
        await s.flush()
        return row.id


async def make_session(
    factory: Factory,
    starts: datetime,
    *,
    guild_id: int = GUILD,
    title: str = "Building data recipes for terminal agents",
    presenter_id: int | None = None,
    status: str = "scheduled",
    subscribers: dict[int, int] | None = None,
    signup_url: str | None = "https://lu.ma/paperclub",
) -> int:
    async with factory() as s, s.begin():
        club = ClubSession(
            guild_id=guild_id,
            title=title,
            starts_at=starts,
            duration_minutes=60,
            timezone="America/Los_Angeles",
            presenter_id=presenter_id,
            presenter_name="Hamish" if presenter_id else None,
            signup_url=signup_url,
            status=status,
            sequence=0,
        )
        s.add(club)
        await s.flush()
        for user_id, minutes in (subscribers or {}).items():
            s.add(SessionSubscription(session_id=club.id, user_id=user_id, before_minutes=minutes))
        return club.id


async def rows(factory: Factory, **where: Any) -> list[Reminder]:
    async with factory() as s:
        query = select(Reminder).order_by(Reminder.id)
        for name, value in where.items():
            query = query.where(getattr(Reminder, name) == value)
        return list((await s.execute(query)).scalars())


async def row(factory: Factory, row_id: int) -> Reminder:
    async with factory() as s:
        found = await s.get(Reminder, row_id)
        assert found is not None
        return found


# ---------------------------------------------------------------- end to end


def cog(env: Any) -> Any:
    """The running bot's reminders cog."""
    return env.bot.get_cog("RemindersCog")


async def settle(env: Any) -> None:
    """Let planning started by events (session_saved, …) and sends in flight finish."""
    await asyncio.sleep(0)
    await cog(env).settle()


async def run(env: Any, name: str, options: dict[str, Any] | None = None, member: Any = None) -> Any:
    """Invoke a command and return the message the user finally sees."""
    result = await env.invoke(name, options or {}, member=member or env.organizer)
    message = await result.final()
    await settle(env)
    return message


async def setup_club(env: Any) -> None:
    """Announcements in #announcements, the Readers role pinged."""
    await run(env, "setup announcements", {"channel": env.announcements}, member=env.admin)
    await run(env, "setup ping_role", {"role": env.world.readers}, member=env.admin)
