"""Reminder upkeep: when to look again, missed reminders, claims left behind, a repeat's next occurrence."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any, Literal, cast

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot import timeutil
from bot.errors import BadInput
from db.models.reminders import CANCELLED, FAILED, MISSED, PENDING, SENDING, Reminder

log = logging.getLogger("paperclub.reminders")

SENDING_LEASE = timedelta(seconds=90)  # longer than one send may take (the transport times out at 45 s)
NONCE_SAFE = timedelta(minutes=3)  # inside Discord's nonce window ("a few minutes")
STOPPED = "The bot stopped while sending this; it may not have gone out."


def rowcount(result: Any) -> int:
    """Rows an UPDATE matched."""
    return int(getattr(result, "rowcount", 0) or 0)


async def set_if(session: AsyncSession, row_id: int, where: list[Any], **values: Any) -> bool:
    """One conditional UPDATE of one row; True if it matched (the caller's view of the row was current)."""
    statement = (
        update(Reminder)
        .where(Reminder.id == row_id, *where)
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    return rowcount(await session.execute(statement)) == 1


async def next_wake(session: AsyncSession, now: datetime) -> datetime | None:
    """When the runner should look again: the next attempt, or when a claimed row's lease runs out."""
    pending = await session.scalar(
        select(func.min(Reminder.next_attempt_at)).where(
            Reminder.status == PENDING, Reminder.next_attempt_at > now
        )
    )
    claimed = await session.scalar(select(func.min(Reminder.claimed_at)).where(Reminder.status == SENDING))
    candidates = [t for t in (pending, claimed + SENDING_LEASE if claimed else None) if t is not None]
    return min(candidates) if candidates else None


async def mark_missed(
    session: AsyncSession, *, late_origin: datetime, grace: timedelta, now: datetime
) -> int:
    """Mark missed (and count) what fell due over ``grace`` before the runner last looked; plan repeats."""
    statement = (
        update(Reminder)
        .where(
            Reminder.status == PENDING,
            Reminder.attempts == 0,
            Reminder.due_at < late_origin - grace,
            Reminder.next_attempt_at <= now,
        )
        .values(
            status=MISSED,
            last_error=f"The bot was offline when this fell due (more than {timeutil.format_offset(grace)} late).",
            updated_at=now,
        )
        .returning(Reminder.id, Reminder.repeat)
        .execution_options(synchronize_session=False)
    )
    missed = (await session.execute(statement)).all()
    for row_id, repeat in missed:
        log.info("reminder=%s missed: fell due while the bot was down", row_id)
        if repeat is not None:
            await plan_next_occurrence(session, row_id, now)
    return len(missed)


async def recover_stale(session: AsyncSession, now: datetime) -> tuple[int, int]:
    """Give back rows whose claimer died mid-send. Returns (to resend, marked failed)."""
    claims = select(Reminder.id, Reminder.claimed_at, Reminder.claim_token).where(Reminder.status == SENDING)
    stale = (await session.execute(claims.where(Reminder.claimed_at <= now - SENDING_LEASE))).all()
    again = {"status": PENDING, "next_attempt_at": now, "claim_token": None}
    gave_up = {"status": FAILED, "claim_token": None, "updated_at": now, "last_error": STOPPED}
    resend = failed = 0
    for row_id, claimed_at, token in stale:
        same_claim = [Reminder.status == SENDING, Reminder.claim_token == token]
        if claimed_at is not None and claimed_at > now - NONCE_SAFE:
            if await set_if(session, row_id, same_claim, **again):
                resend += 1
                log.warning("reminder=%s was left sending by a stopped runner; sending again", row_id)
        elif await set_if(session, row_id, same_claim, **gave_up):
            failed += 1
            await plan_next_occurrence(session, row_id, now)
    return resend, failed


def next_due(due_at: datetime, rule: str, zone: str, anchor_day: int | None, now: datetime) -> datetime:
    """The first occurrence after ``now`` on the zone's wall clock (9:30 AM PT stays 9:30 AM PT)."""
    tz, repeat = timeutil.resolve_timezone(zone), cast(Literal["daily", "weekly", "monthly"], rule)
    following = timeutil.next_occurrence(due_at, repeat, tz, anchor_day=anchor_day)
    while following <= now:
        following = timeutil.next_occurrence(following, repeat, tz, anchor_day=anchor_day)
    return following


# The columns the next occurrence of a repeating reminder copies.
_REPEATED: tuple[str, ...] = ("guild_id", "kind", "channel_id", "user_id", "message", "session_id", "number")
_REPEATED += ("offset_minutes", "plan_key", "repeat", "repeat_timezone", "repeat_anchor_day", "created_by")


async def plan_next_occurrence(session: AsyncSession, row_id: int, now: datetime) -> Reminder | None:
    """For a repeating reminder whose occurrence just ended, add the next one (same series)."""
    row = await session.get(Reminder, row_id, populate_existing=True)
    if row is None or row.repeat is None or row.status == CANCELLED:
        return None
    try:
        due = next_due(row.due_at, row.repeat, row.repeat_timezone or "UTC", row.repeat_anchor_day, now)
    except BadInput:  # past the calendar's end (year 9999): the series ends with this occurrence
        return None
    following = Reminder(
        **{name: getattr(row, name) for name in _REPEATED},
        due_at=due,
        next_attempt_at=due,
        series_id=row.display_id,
        occurrence=row.occurrence + 1,
        created_at=now,
        updated_at=now,
    )
    session.add(following)
    await session.flush()
    return following
