"""The reminder runner: decides from the store what is due and sends it, once.

The store is the source of truth, and the runner keeps a single APScheduler ``date`` job — its alarm —
set to the next time anything needs doing (the earliest pending reminder, or a claim lease running out),
and never later than :data:`LOOK_AGAIN` so reminders written by another process are found too. Start-up
therefore costs two indexed queries however many reminders are pending (no job per row to build).

When the alarm fires, every due row is queued per destination (a channel, or a member's DMs). A pump
claims the queued rows in batches — one conditional UPDATE … RETURNING for the heads of many
destinations, at most :attr:`RunnerConfig.per_destination` ahead per destination and
:attr:`RunnerConfig.claim_window` claimed but not yet sent in all, so a claim is still taken shortly
before its send and never outlives its lease waiting in a queue — and each claimed reminder is sent as a
send slot frees up, one at a time per destination. How sends ended is recorded in the same transaction as
the next claim: whatever ended while the previous one was being written, so a burst of 1,000 costs a
handful of write transactions, not 2,000. A crash between a send and its record leaves the row claimed;
its lease runs out and it is resent with the same nonce (see :mod:`bot.services.reminders.queue`).

With a FakeClock (tests, the demo) there is no real-time alarm: the clock's listener runs the due
reminders and waits until they are sent and recorded, so ``await clock.advance(...)`` returns once they
went out.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.base import BaseScheduler
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.services.reminders import delivery, outcomes, queue
from bot.services.reminders.delivery import Outgoing
from bot.services.reminders.outcomes import Outcome, ReminderObserver, SendError, Transport
from bot.services.reminders.window import ClaimWindow, Queued

log = logging.getLogger("paperclub.reminders")

LOOK_AGAIN = timedelta(minutes=1)
_runner_ids = itertools.count(1)


@dataclass(frozen=True)
class RunnerConfig:
    grace: timedelta = timedelta(minutes=60)
    batch: int = 1000  # rows read per query
    concurrency: int = 50  # sends in flight at once (discord.py paces each channel's rate limit)
    claim_window: int = 500  # rows claimed and not yet sent, at most (one claim UPDATE takes up to this many)
    per_destination: int = (
        5  # of those, at most this many for one destination (Discord's 5 per 5 s a channel)
    )


@dataclass(eq=False)
class _Ended:
    """How one claimed send ended, waiting to be recorded."""

    queued: Queued
    outcome: Outcome


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
        self._work = ClaimWindow(self.config.claim_window, self.config.per_destination)
        self._ended: list[_Ended] = []
        self._sends: set[asyncio.Task[None]] = set()
        self._locks: dict[tuple[str, int], asyncio.Lock] = {}
        self._lock_users: dict[tuple[str, int], int] = {}
        self._sending = asyncio.Semaphore(self.config.concurrency)
        self._scan_lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._pump: asyncio.Task[None] | None = None
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
        self._pump = asyncio.create_task(self._pumping(), name=f"{self.job_id}:pump")
        if self.driven_by_clock and not self._listening:
            self._listening = True
            self.clock.on_change(self._on_clock)
        try:
            async with self._writing(), self.session_factory() as session, session.begin():
                await delivery.prepare(session, self.clock.now())
        except Exception:  # only a warm-up: the first claim compiles what it needs instead
            log.exception("reminders: preparing the claim statements failed")
        await self.run_due()

    async def stop(self, timeout: float = 5.0) -> None:
        """Stop looking; let sends in flight finish for up to ``timeout`` s (a cut-off one is resent later)."""
        self._stopped = True
        if self.scheduler is not None:
            with contextlib.suppress(JobLookupError):
                self.scheduler.remove_job(self.job_id)
        if self._arming is not None:
            self._arming.cancel()
        self._work.drop_waiting()  # not claimed: the next runner finds them in the store
        self._wake.set()
        if self._sends:
            _, late = await asyncio.wait(set(self._sends), timeout=timeout)
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)
        self._wake.set()  # the pump records what ended, then stops
        if self._pump is not None:
            await asyncio.gather(self._pump, return_exceptions=True)

    async def idle(self) -> None:
        """Wait until every reminder queued so far is sent and recorded (or given up for now)."""
        while self._work.known:
            await asyncio.gather(*[q.done for q in list(self._work.known.values())], return_exceptions=True)

    async def _on_clock(self, _now: datetime) -> None:
        if not self._stopped:
            await self.run_due()

    # ---------------------------------------------------------------- looking for due reminders

    async def run_due(self) -> int:
        """Queue every due reminder; returns how many. With a FakeClock, also waits for them to be sent."""
        if self._stopped:
            return 0
        queued: list[Queued] = []
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
                        session, now, skip=set(self._work.known), limit=self.config.batch
                    )
                queued.extend(self._work.add(row, late_origin) for row in rows)
                if len(rows) < self.config.batch:
                    break
        if queued:
            self._wake.set()
        if self.driven_by_clock:
            await asyncio.gather(*(q.done for q in queued), return_exceptions=True)
        else:
            self.arm_soon()
        return len(queued)

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

    # ---------------------------------------------------------------- claiming in batches

    @contextlib.asynccontextmanager
    async def _writing(self) -> AsyncIterator[None]:
        """SQLite has one writer at a time: queue our own write transactions here instead of in
        SQLite's busy handler, which sleeps in steps of milliseconds (PostgreSQL writes in parallel)."""
        if self._write_gate is None:
            yield
        else:
            async with self._write_gate:
                yield

    def _claim_due(self) -> bool:
        """Claim now, or let more room gather first: claim when fewer rows are claimed than can be sent at
        once (the sends would starve), or when half the claim window is free (so claims stay large). (A
        transaction recording ended sends claims whatever room there is anyway.)"""
        if not self._work.ready:
            return False
        return self._work.claimed < self.config.concurrency or (
            self._work.room() >= self.config.claim_window // 2
        )

    def _next_batch(self) -> list[Queued]:
        """The next rows to claim, up to the claim window. From a standstill only as many as can be sent
        at once, so the first sends start while the rest is claimed."""
        room = self._work.room()
        if not self._sends and not self._ended:
            room = min(room, self.config.concurrency)
        return self._work.take(room)

    async def _pumping(self) -> None:
        """Record what ended and claim what comes next, together in one transaction, until stopped."""
        while True:
            self._wake.clear()
            claim = not self._stopped and (bool(self._ended) or self._claim_due())
            batch = self._next_batch() if claim else []
            ended, self._ended = self._ended, []
            if ended or batch:
                await self._step(ended, batch)
            elif self._stopped and all(task.done() for task in self._sends):
                return
            else:
                await self._wake.wait()

    async def _step(self, ended: list[_Ended], batch: list[Queued]) -> None:
        by_origin: defaultdict[datetime, list[Queued]] = defaultdict(list)
        for queued in batch:
            by_origin[queued.late_origin].append(queued)
        recorded: set[int] = set()
        retries: dict[int, datetime | None] = {}
        claimed: dict[int, Outgoing] = {}
        try:
            async with self._writing(), self.session_factory() as session, session.begin():
                now = self.clock.now()
                recorded, retries = await outcomes.record(session, [e.outcome for e in ended], now)
                for late_origin, group in by_origin.items():
                    claimed.update(
                        await delivery.claim_many(
                            session,
                            [q.row.id for q in group],
                            token=uuid.uuid4().hex,
                            now=now,
                            late_origin=late_origin,
                            grace=self.config.grace,
                        )
                    )
        except Exception:
            if ended:  # the rows stay claimed: their leases run out and they are resent with their nonces
                log.exception("reminders: recording %d ended sends failed", len(ended))
                self._work.put_back(batch)  # and the claim is tried again on its own
            else:  # the rows stay pending in the store, and the next look finds them again
                log.exception("reminders: claiming %d due reminders failed", len(batch))
                for queued in batch:
                    self._sent_or_dropped(queued)
                    self._work.settle(queued)
                self.arm_soon()
            batch, recorded, retries = [], set(), {}
        self._log_ended(ended, recorded, retries)
        for one in ended:
            self._work.settle(one.queued)
        if retries:
            self.arm_soon()
        for queued in batch:
            outgoing = claimed.get(queued.row.id)
            if outgoing is None:  # another runner's, missed, or refused (cancelled session, no channel)
                self._sent_or_dropped(queued)
                self._work.settle(queued)
                continue
            self._observe("due")
            task = asyncio.create_task(self._send(queued, outgoing), name=f"reminder-{queued.row.id}")
            self._sends.add(task)
            task.add_done_callback(self._sends.discard)

    def _sent_or_dropped(self, queued: Queued) -> None:
        """A claimed row left the claim window: room for the next claim of its destination."""
        self._work.release(queued)
        self._wake.set()

    # ---------------------------------------------------------------- sending, and recording in batches

    @contextlib.asynccontextmanager
    async def _destination_lock(self, key: tuple[str, int]) -> AsyncIterator[None]:
        """One send at a time per destination, in the order they were claimed."""
        lock = self._locks.setdefault(key, asyncio.Lock())
        self._lock_users[key] = self._lock_users.get(key, 0) + 1
        try:
            async with lock:
                yield
        finally:
            self._lock_users[key] -= 1
            if not self._lock_users[key]:
                del self._lock_users[key], self._locks[key]

    async def _send(self, queued: Queued, outgoing: Outgoing) -> None:
        outcome = Outcome(outgoing)
        try:
            async with self._destination_lock(queued.row.destination), self._sending:
                message_id = await self.transport.send(outgoing)
            outcome.sent = delivery.Sent(
                outgoing.reminder_id, outgoing.claim_token, message_id, self.clock.now(), outgoing.repeats
            )
        except SendError as error:
            outcome.error = error
        except asyncio.CancelledError:  # cut off by stop(): the claim's lease brings it back
            self._sent_or_dropped(queued)
            self._work.settle(queued)
            raise
        except Exception:  # a background task must not die silently; the row is recovered by its lease
            log.exception("reminder=%s delivery crashed", queued.row.id)
            self._sent_or_dropped(queued)
            self._work.settle(queued)
            return
        self._sent_or_dropped(queued)
        self._ended.append(_Ended(queued, outcome))
        self._wake.set()

    def _log_ended(
        self, ended: list[_Ended], recorded: set[int], retries: dict[int, datetime | None]
    ) -> None:
        self.sent += len(recorded)
        for one in (e.outcome for e in ended):
            reminder_id = one.outgoing.reminder_id
            if one.sent is not None and reminder_id in recorded:
                due_at = one.outgoing.due_at
                self._observe("sent", lateness=one.sent.sent_at - due_at if due_at is not None else None)
                log.info("reminder=%s sent message=%s", reminder_id, one.sent.message_id)
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

    def _observe(self, outcome: str, *, count: int = 1, lateness: timedelta | None = None) -> None:
        if self.observer is not None:
            self.observer.reminder(outcome, count=count, lateness=lateness)
