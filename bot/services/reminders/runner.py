"""The reminder runner: decides from the store what is due and sends it, once.

The store is the source of truth, and the runner keeps a single APScheduler ``date`` job — its alarm —
set to the next time anything needs doing (the earliest pending reminder, or a claim lease running out),
and never later than :data:`LOOK_AGAIN` so reminders written by another process are found too. Start-up
therefore costs two indexed queries however many reminders are pending (no job per row to build).

When the alarm fires, every due row is queued per destination (a channel, or a member's DMs) and each is
claimed with one conditional UPDATE right before it is sent (see reminders_delivery). With a FakeClock
(tests, the demo) there is no real-time alarm: the clock's listener runs the due reminders and waits
for them, so ``await clock.advance(...)`` returns once they went out.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.base import BaseScheduler
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.services.reminders import delivery, queue
from bot.services.reminders.delivery import Outgoing
from bot.services.reminders.queue import DueRow


class SendError(Exception):
    """A send that did not go out. ``retryable``: worth another try after a backoff."""

    def __init__(self, reason: str, *, retryable: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retryable = retryable


class Transport(Protocol):
    async def send(self, outgoing: Outgoing) -> int | None:
        """Send it; return the message id, or raise SendError."""


class ReminderObserver(Protocol):
    """Hears one call per outcome (bot/metrics.py): due (claimed here), sent (with its lateness), retried,
    failed, missed."""

    def reminder(self, outcome: str, *, count: int = 1, lateness: timedelta | None = None) -> None: ...


log = logging.getLogger("paperclub.reminders")

LOOK_AGAIN = timedelta(minutes=1)
_runner_ids = itertools.count(1)


@dataclass(frozen=True)
class RunnerConfig:
    grace: timedelta = timedelta(minutes=60)
    batch: int = 1000  # rows read per query
    concurrency: int = 50  # sends in flight at once (discord.py paces each channel's rate limit)


class ReminderRunner:
    def __init__(
        self,
        *,
        session_factory: async_sessionmaker[AsyncSession],
        clock: Clock,
        transport: Transport,
        config: RunnerConfig | None = None,
        scheduler: BaseScheduler | None = None,
        single_writer: bool = False,
        observer: ReminderObserver | None = None,
    ) -> None:
        """``single_writer``: the store takes one write at a time (SQLite); queue this runner's writes."""
        self.session_factory = session_factory
        self.clock = clock
        self.transport = transport
        self.config = config or RunnerConfig()
        self.scheduler = scheduler
        self.job_id = f"reminders:alarm:{next(_runner_ids)}"
        self.sent = 0
        self._stopped = True
        self._last_look = clock.now()
        self._inflight: dict[int, asyncio.Task[None]] = {}
        self._locks: dict[tuple[str, int], asyncio.Lock] = {}
        self._lock_users: dict[tuple[str, int], int] = {}
        self._sending = asyncio.Semaphore(self.config.concurrency)
        self._scan_lock = asyncio.Lock()
        self._arming: asyncio.Task[None] | None = None
        self._listening = False
        self._write_gate: asyncio.Lock | None = asyncio.Lock() if single_writer else None
        self.observer = observer

    @property
    def driven_by_clock(self) -> bool:
        """A FakeClock moves by hand: its listener runs the due reminders instead of a real-time alarm."""
        return self.clock.announces_moves

    # ---------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        """Handle what fell due while nobody was running (grace rule), then keep watching."""
        self._stopped = False
        self._last_look = self.clock.now()
        if self.driven_by_clock and not self._listening:
            self._listening = True
            self.clock.on_change(self._on_clock)
        await self.run_due()

    async def stop(self, timeout: float = 5.0) -> None:
        """Stop looking; let sends in flight finish for up to ``timeout`` s (a cut-off one is resent later)."""
        self._stopped = True
        if self.scheduler is not None:
            with contextlib.suppress(JobLookupError):
                self.scheduler.remove_job(self.job_id)
        if self._arming is not None:
            self._arming.cancel()
        tasks = list(self._inflight.values())
        if tasks:
            _, late = await asyncio.wait(tasks, timeout=timeout)
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)

    async def idle(self) -> None:
        """Wait until every send in flight has ended."""
        while self._inflight:
            await asyncio.gather(*list(self._inflight.values()), return_exceptions=True)

    async def _on_clock(self, _now: datetime) -> None:
        if not self._stopped:
            await self.run_due()

    # ---------------------------------------------------------------- looking for due reminders

    async def run_due(self) -> int:
        """Queue every due reminder; returns how many. With a FakeClock, also waits for them to be sent."""
        if self._stopped:
            return 0
        started: list[asyncio.Task[None]] = []
        async with self._scan_lock:
            now = self.clock.now()
            late_origin, self._last_look = self._last_look, now
            async with self._writing(), self.session_factory() as session, session.begin():
                resend, failed = await queue.recover_stale(session, now)
                missed = await queue.mark_missed_batch(
                    session, late_origin=late_origin, grace=self.config.grace, now=now
                )
            self._observe("missed", count=missed)
            if missed or failed:
                log.warning(
                    "reminders: %d missed while the bot was down, %d interrupted mid-send", missed, failed
                )
            while True:
                async with self.session_factory() as session:
                    rows = await queue.due_rows(
                        session, now, skip=set(self._inflight), limit=self.config.batch
                    )
                for row in rows:
                    task = asyncio.create_task(self._deliver(row, late_origin), name=f"reminder-{row.id}")
                    self._inflight[row.id] = task
                    started.append(task)
                if len(rows) < self.config.batch:
                    break
        if self.driven_by_clock:
            await asyncio.gather(*started, return_exceptions=True)
        else:
            self.arm_soon()
        return len(started)

    def arm_soon(self) -> None:
        """Re-set the alarm from the store (after a change, or when a send ended). Coalesces calls."""
        if self._stopped or self.scheduler is None or self.driven_by_clock:
            return
        if self._arming is None or self._arming.done():
            self._arming = asyncio.create_task(self._arm(), name="reminders-arm")

    async def _arm(self) -> None:
        now = self.clock.now()
        async with self.session_factory() as session:
            wake = await queue.next_wake(session, now)
        when = min(wake or now + LOOK_AGAIN, now + LOOK_AGAIN)
        if self.scheduler is None or self._stopped:
            return
        self.scheduler.add_job(
            self.run_due, "date", run_date=max(when, now), id=self.job_id, replace_existing=True
        )

    # ---------------------------------------------------------------- sending one

    @contextlib.asynccontextmanager
    async def _writing(self) -> AsyncIterator[None]:
        """SQLite has one writer at a time: queue our own write transactions here instead of in
        SQLite's busy handler, which sleeps in steps of milliseconds (PostgreSQL writes in parallel)."""
        if self._write_gate is None:
            yield
        else:
            async with self._write_gate:
                yield

    @contextlib.asynccontextmanager
    async def _destination_lock(self, key: tuple[str, int]) -> AsyncIterator[None]:
        """One send at a time per destination, so a claim is taken right before its own send."""
        lock = self._locks.setdefault(key, asyncio.Lock())
        self._lock_users[key] = self._lock_users.get(key, 0) + 1
        try:
            async with lock:
                yield
        finally:
            self._lock_users[key] -= 1
            if not self._lock_users[key]:
                del self._lock_users[key], self._locks[key]

    async def _deliver(self, row: DueRow, late_origin: datetime) -> None:
        try:
            async with self._destination_lock(row.destination), self._sending:
                if not self._stopped:
                    await self._claim_and_send(row, late_origin)
        except Exception:  # a background task must not die silently; the row is recovered by its lease
            log.exception("reminder=%s delivery crashed", row.id)
        finally:
            self._inflight.pop(row.id, None)

    async def _claim_and_send(self, row: DueRow, late_origin: datetime) -> None:
        token = uuid.uuid4().hex
        async with self._writing(), self.session_factory() as session, session.begin():
            outgoing = await delivery.claim(
                session,
                row.id,
                token=token,
                now=self.clock.now(),
                late_origin=late_origin,
                grace=self.config.grace,
            )
        if outgoing is None:
            return
        self._observe("due")
        try:
            message_id = await self.transport.send(outgoing)
        except SendError as error:
            await self._record_failure(outgoing, error)
            return
        async with self._writing(), self.session_factory() as session, session.begin():
            await delivery.finish_sent(
                session,
                row.id,
                token=token,
                now=self.clock.now(),
                message_id=message_id,
                repeats=outgoing.repeats,
            )
        self.sent += 1
        self._observe("sent", lateness=self.clock.now() - outgoing.due_at if outgoing.due_at else None)
        log.info("reminder=%s sent attempt=%d message=%s", row.id, outgoing.attempt, message_id)

    async def _record_failure(self, outgoing: delivery.Outgoing, error: SendError) -> None:
        now = self.clock.now()
        retry_at: datetime | None = None
        async with self._writing(), self.session_factory() as session, session.begin():
            if error.retryable:
                retry_at = await delivery.finish_retry(
                    session,
                    outgoing.reminder_id,
                    token=outgoing.claim_token,
                    now=now,
                    error=error.reason,
                    attempt=outgoing.attempt,
                )
            else:
                await delivery.finish_failed(
                    session, outgoing.reminder_id, token=outgoing.claim_token, now=now, reason=error.reason
                )
        self._observe("retried" if retry_at else "failed")
        log.warning(
            "reminder=%s attempt=%d failed: %s (%s)",
            outgoing.reminder_id,
            outgoing.attempt,
            error.reason,
            f"retry at {retry_at.isoformat()}" if retry_at else "final",
        )
        self.arm_soon()

    def _observe(self, outcome: str, *, count: int = 1, lateness: timedelta | None = None) -> None:
        if self.observer is not None:
            self.observer.reminder(outcome, count=count, lateness=lateness)
