"""The reminders feature over the host's store: /remind's flows and session events (each one call: the store
written, then the runner woken), and the runner, the background job ``reminders``: claim, paced send, record."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable, Iterable, Iterator
from datetime import datetime, timedelta
from typing import Any, Protocol, TypeVar

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.background import Background, Job, every
from bot.clock import Clock
from bot.clock import Host as BotHost
from bot.metrics import BotMetrics
from bot.services.reminders import delivery, plan, queue, requested
from bot.services.reminders.delivery import Outcome, Outgoing, SendError
from bot.services.reminders.requested import CustomReminder, ReminderInfo, ReminderList, Subscription
from bot.settings import Settings
from db.engine import read_only_session_factory

log = logging.getLogger("paperclub.reminders")

JOB = "reminders"
LOOK_AGAIN = timedelta(minutes=1)
STOP_WAIT = 10.0  # seconds a batch in flight may take to finish when the bot stops


class Transport(Protocol):
    """How a reminder reaches Discord (cogs/reminders/_transport.py)."""

    async def send(self, outgoing: Outgoing) -> int | None:
        """Send it; return the message id, or raise SendError."""


class ReminderRunner:
    """Sends a store's due reminders through a transport, as the ``reminders`` job of a background core."""

    def __init__(
        self,
        *,
        session_factory: async_sessionmaker[AsyncSession],
        clock: Clock,
        transport: Transport,
        grace: timedelta = timedelta(minutes=60),
        batch: int = delivery.BATCH,
        observer: BotMetrics | None = None,
    ) -> None:
        self.session_factory = session_factory
        self.clock = clock
        self.transport = transport
        self.grace = grace
        self.batch = batch
        self.observer = observer
        self._last_look = clock.now()  # a reminder due before this fell due while nobody watched
        self._stopping = False  # set by stop(): the batch in flight is the last
        self._background: Background | None = None

    async def start(self, background: Background) -> None:
        """Run as ``background``'s job :data:`JOB`."""
        self._background, self._stopping = background, False
        await background.add(Job(JOB, every(LOOK_AGAIN), self.run_due, once=False, stop_wait=STOP_WAIT))

    async def stop(self) -> None:
        """Claim nothing more; a batch in flight gets :data:`STOP_WAIT` to finish (or is resent later)."""
        self._stopping = True
        if self._background is not None:
            await self._background.remove(JOB)

    async def rearm(self) -> None:
        """Fire the job when the next reminder is due (after reminders were added or moved)."""
        if self._background is None:
            return
        async with self.session_factory() as session:
            wake = await queue.next_wake(session, self.clock.now())
        if wake is not None:
            self._background.wake(JOB, wake)

    async def run_due(self, _fired: datetime | None = None) -> int:
        """One pass over what is due now; returns how many reminders it sent."""
        now = self.clock.now()
        late_origin, self._last_look = self._last_look, now
        async with self.session_factory() as session, session.begin():
            resend, failed = await queue.recover_stale(session, now)
            missed = await queue.mark_missed(session, late_origin=late_origin, grace=self.grace, now=now)
        self._observe("missed", count=missed)
        if missed or failed:
            log.warning("reminders: %d missed while the bot was down, %d cut off mid-send", missed, failed)
        sent = 0
        while not self._stopping:
            token = uuid.uuid4().hex
            async with self.session_factory() as session, session.begin():
                claimed, batch = await delivery.claim(
                    session, token=token, now=self.clock.now(), late_origin=late_origin, limit=self.batch
                )
            if not claimed:
                break
            self._observe("due", count=len(batch))
            outcomes = await asyncio.gather(*(self._send(outgoing) for outgoing in batch))
            async with self.session_factory() as session, session.begin():
                recorded, retries = await delivery.record(session, outcomes, self.clock.now())
            sent += self._log(outcomes, recorded, retries)
        await self.rearm()
        return sent

    async def _send(self, outgoing: Outgoing) -> Outcome:
        try:
            message_id = await self.transport.send(outgoing)
        except SendError as error:
            return Outcome(outgoing, self.clock.now(), error=error)
        except Exception as error:  # a transport bug: logged, and tried again after a backoff
            log.exception("reminder=%s: the send crashed", outgoing.reminder_id)
            crashed = SendError(f"Unexpected {type(error).__name__}.", retryable=True)
            return Outcome(outgoing, self.clock.now(), error=crashed)
        return Outcome(outgoing, self.clock.now(), message_id)

    def _log(self, outcomes: list[Outcome], recorded: set[int], retries: dict[int, datetime | None]) -> int:
        for one in outcomes:
            reminder_id = one.outgoing.reminder_id
            if one.error is None and reminder_id in recorded:
                self._observe("sent", lateness=one.at - one.outgoing.due_at)
                log.info("reminder=%s sent message=%s", reminder_id, one.message_id)
            elif one.error is not None and reminder_id in retries:
                retry_at = retries[reminder_id]
                self._observe("retried" if retry_at else "failed")
                log.warning(
                    "reminder=%s attempt=%d failed: %s (%s)",
                    reminder_id,
                    one.outgoing.attempt,
                    one.error.reason,
                    f"retry at {retry_at.isoformat()}" if retry_at else "final",
                )
        return len(recorded)

    def _observe(self, outcome: str, *, count: int = 1, lateness: timedelta | None = None) -> None:
        if self.observer is not None:
            self.observer.reminder(outcome, count=count, lateness=lateness)


PLAN_TRIES = 3  # two processes planning one session at once: the loser plans again
NUMBER_TRIES = 10  # organizers adding at once: each round one takes the number, the others number again
T = TypeVar("T")


async def _retrying(tries: int, write: Callable[[], Awaitable[T]]) -> T:
    """``write``, again while it loses a race on a unique key (the last loss raises)."""
    for _ in range(tries - 1):
        with contextlib.suppress(IntegrityError):
            return await write()
    return await write()


class Host(BotHost, Protocol):
    """What the reminders use of the bot."""

    background: Background
    settings: Settings
    metrics: BotMetrics


class Reminders:
    """The reminders feature over the host's store: /remind's flows, planning, and the runner that sends."""

    def __init__(self, host: Host, transport: Transport) -> None:
        self.session_factory = host.session_factory
        self.readers = read_only_session_factory(host.engine)  # lookups only read: no write lock
        self.clock, self.background = host.clock, host.background
        self.max_pending = host.settings.max_pending_reminders
        self.presenter_dm_days = host.settings.presenter_dm_days
        self.runner = ReminderRunner(
            session_factory=host.session_factory,
            clock=host.clock,
            transport=transport,
            grace=timedelta(minutes=host.settings.reminder_grace_minutes),
            observer=host.metrics,
        )
        self._planning: set[asyncio.Task[Any]] = set()

    async def start(self) -> None:
        """Start the runner, then plan every upcoming session's reminders."""
        async with self.readers() as session:
            upcoming = await plan.upcoming_session_ids(session, self.clock.now())
        await self.runner.start(self.background)
        await self._plan(upcoming)

    async def stop(self) -> None:
        """Stop the runner, then let the planning in flight finish (cancelled mid-write, it held SQLite's lock)."""
        await self.runner.stop()
        await asyncio.gather(*list(self._planning), return_exceptions=True)

    async def settle(self) -> None:
        """Wait until the planning in flight and the sends it made due are done."""
        while self._planning:
            await asyncio.gather(*list(self._planning), return_exceptions=True)
        await self.background.idle()

    async def plan_session(self, guild_id: int, session_id: int) -> None:
        """Plan a session's reminders again (it was saved, or a member's Remind me changed)."""
        with self._tracked():
            await self._plan([(guild_id, session_id)])

    async def cancel_session(self, session_id: int) -> None:
        """Cancel a cancelled session's reminders."""
        with self._tracked():
            async with self.session_factory() as session, session.begin():
                await plan.cancel_session_reminders(session, session_id, now=self.clock.now())

    async def recording_up(self, guild_id: int, session_id: int) -> None:
        """The session's recording was added: its reminded members' one DM each, sent now."""
        with self._tracked():
            async with self.session_factory() as session, session.begin():
                await plan.plan_recording(session, guild_id, session_id, now=self.clock.now())
            await self.runner.rearm()

    async def plan_guild(self, guild_id: int) -> None:
        """Plan every upcoming session of the guild again (its reminder offsets changed)."""
        with self._tracked():
            async with self.readers() as session:
                upcoming = await plan.upcoming_session_ids(session, self.clock.now(), guild_id)
            await self._plan(upcoming)

    @contextlib.contextmanager
    def _tracked(self) -> Iterator[None]:
        task = asyncio.current_task()
        if task is not None:
            self._planning.add(task)
        try:
            yield
        finally:
            if task is not None:
                self._planning.discard(task)

    async def _plan(self, sessions: Iterable[tuple[int, int]]) -> None:
        for guild_id, session_id in sessions:

            async def write(guild_id: int = guild_id, session_id: int = session_id) -> None:
                async with self.session_factory() as session, session.begin():
                    now, days = self.clock.now(), self.presenter_dm_days
                    await plan.plan_session(session, guild_id, session_id, now=now, presenter_dm_days=days)

            await _retrying(PLAN_TRIES, write)
        await self.runner.rearm()

    async def add(self, asked: CustomReminder, now: datetime) -> tuple[ReminderInfo, str | None]:
        """Schedule an organizer's reminder: it, and a note about how its time was read, if any."""

        async def write() -> tuple[ReminderInfo, str | None]:
            async with self.session_factory() as session, session.begin():
                return await requested.add_custom(session, asked, now=now, max_pending=self.max_pending)

        added = await _retrying(NUMBER_TRIES, write)
        await self.runner.rearm()
        return added

    async def cancel(self, guild_id: int, number: int, *, by_user: int, now: datetime) -> ReminderInfo:
        """Cancel an organizers' pending reminder by its number."""
        async with self.session_factory() as session, session.begin():
            return await requested.cancel_reminder(session, guild_id, number, by_user=by_user, now=now)

    async def toggle_me(
        self, *, guild_id: int, session_id: int, user_id: int, before: timedelta | None, now: datetime
    ) -> Subscription:
        """A member's DM before a session: on, off (the same again), or moved (another ``before``)."""
        async with self.session_factory() as session, session.begin():
            subscription = await requested.toggle_personal(
                session,
                guild_id=guild_id,
                session_id=session_id,
                user_id=user_id,
                before=before,
                now=now,
                max_pending=self.max_pending,
                presenter_dm_days=self.presenter_dm_days,
            )
        await self.runner.rearm()
        return subscription

    async def page(
        self, guild_id: int, page: int, per_page: int, now: datetime, *, automatic: bool = False
    ) -> ReminderList:
        """A page of /organize reminder list (the automatic reminders too with ``automatic``)."""
        async with self.readers() as session:
            return await requested.list_reminders(
                session, guild_id, now=now, page=page, per_page=per_page, automatic=automatic
            )
