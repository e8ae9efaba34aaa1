"""The reminder runner, the background job ``reminders``: claim → paced send → record, until nothing is due."""

from __future__ import annotations

import asyncio
import logging
import uuid
from datetime import datetime, timedelta
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.background import Background, Job, every
from bot.clock import Clock
from bot.metrics import BotMetrics
from bot.services.reminders import delivery, queue
from bot.services.reminders.delivery import Outcome, Outgoing, SendError

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
