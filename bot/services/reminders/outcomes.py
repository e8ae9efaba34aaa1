"""How a reminder's send ends, and writing that down: the transport's contract, the metrics hook, and
recording a batch of ended sends in the caller's transaction (sent, retried later, or failed for good)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.reminders import delivery
from bot.services.reminders.delivery import Outgoing


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


@dataclass(eq=False)
class Outcome:
    """How one claimed send ended: ``sent`` if it went out, else ``error``."""

    outgoing: Outgoing
    sent: delivery.Sent | None = None
    error: SendError | None = None


async def record(
    session: AsyncSession, outcomes: Sequence[Outcome], now: datetime
) -> tuple[set[int], dict[int, datetime | None]]:
    """Write how these sends ended: the ids recorded as sent, and each failure's next try (or None).
    A row whose claim was taken back meanwhile (its lease ran out) is in neither."""
    sends = [o.sent for o in outcomes if o.sent is not None]
    recorded = await delivery.finish_sent(session, sends, now=now) if sends else set()
    retries: dict[int, datetime | None] = {}
    for failure in outcomes:
        if failure.error is not None:
            retries[failure.outgoing.reminder_id] = await _record_failure(session, failure, now)
    return recorded, retries


async def _record_failure(session: AsyncSession, failure: Outcome, now: datetime) -> datetime | None:
    outgoing, error = failure.outgoing, failure.error
    assert error is not None
    if error.retryable:
        return await delivery.finish_retry(
            session,
            outgoing.reminder_id,
            token=outgoing.claim_token,
            now=now,
            error=error.reason,
            attempt=outgoing.attempt,
        )
    await delivery.finish_failed(
        session, outgoing.reminder_id, token=outgoing.claim_token, now=now, reason=error.reason
    )
    return None
