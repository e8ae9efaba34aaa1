"""A session's automatic reminders, planned from the store: its live rows moved, added or cancelled to match."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import astuple, dataclass
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.config.guild import get_config
from bot.services.reminders.queue import rowcount, set_if
from bot.services.sessions.members import has_notes
from db.models import ClubSession, SessionSubscription
from db.models.reminders import (
    CANCELLED,
    CUSTOM,
    LIVE_STATUSES,
    NUDGE,
    PENDING,
    PERSONAL,
    PRESENTER,
    RECAP,
    RECORDING,
    SESSION,
    Reminder,
)

RECAP_AFTER_END = timedelta(hours=1)
QUESTIONS_BEFORE = timedelta(hours=24)  # the presenter's questions so far, in one DM (new ones at the start)
SCHEDULED = "scheduled"


@dataclass(frozen=True)
class Slot:
    """One wanted automatic reminder."""

    kind: str
    due_at: datetime
    user_id: int | None = None
    offset_minutes: int | None = None


@dataclass(frozen=True)
class PlanResult:
    """What planning a session's reminders changed."""

    added: int = 0
    moved: int = 0
    cancelled: int = 0

    def __add__(self, other: PlanResult) -> PlanResult:
        return PlanResult(*(a + b for a, b in zip(astuple(self), astuple(other), strict=True)))


def wanted_slots(
    club: ClubSession,
    offsets: list[timedelta],
    subscriptions: list[tuple[int, int]],
    *,
    presenter_dm_days: int,
    now: datetime,
    presenter_notes: bool = False,
) -> dict[str, Slot]:
    """plan_key -> Slot for every automatic reminder of ``club`` still to come."""
    starts = club.starts_at
    ends = starts + timedelta(minutes=club.duration_minutes)
    slots: dict[str, Slot] = {}
    for offset in offsets:
        minutes = round(offset.total_seconds() / 60)
        slots[f"session:{minutes}"] = Slot(SESSION, starts - offset, offset_minutes=minutes)
    for user_id, before_minutes in subscriptions:
        slots[f"personal:{user_id}"] = Slot(
            PERSONAL, starts - timedelta(minutes=before_minutes), user_id, before_minutes
        )
    if club.presenter_id is not None:
        if presenter_dm_days > 0:
            before = timedelta(days=presenter_dm_days)
            slots["presenter"] = Slot(PRESENTER, starts - before, club.presenter_id, presenter_dm_days * 1440)
        if presenter_notes:
            day = round(QUESTIONS_BEFORE.total_seconds() / 60)
            if presenter_dm_days * 1440 != day:  # else the presenter DM is that one
                slots["presenter:questions"] = Slot(
                    PRESENTER, starts - QUESTIONS_BEFORE, club.presenter_id, day
                )
            slots["presenter:start"] = Slot(PRESENTER, starts, club.presenter_id, 0)

        slots["recap"] = Slot(RECAP, ends + RECAP_AFTER_END, club.presenter_id)
    return {key: slot for key, slot in slots.items() if slot.due_at > now}


async def plan_session(
    session: AsyncSession, guild_id: int, session_id: int, *, now: datetime, presenter_dm_days: int
) -> PlanResult:
    """Bring the session's automatic reminders (and custom ones tied to it) in line with the session."""
    club = await session.get(ClubSession, session_id, populate_existing=True)
    if club is None or club.guild_id != guild_id or club.status != SCHEDULED:
        return await cancel_session_reminders(session, session_id, now=now)
    config = await get_config(session, guild_id)
    subscribed = select(SessionSubscription.user_id, SessionSubscription.before_minutes).where(
        SessionSubscription.session_id == session_id
    )
    subscriptions = [(user_id, minutes) for user_id, minutes in await session.execute(subscribed)]
    wanted = wanted_slots(
        club,
        config.reminder_offsets,
        subscriptions,
        presenter_dm_days=presenter_dm_days,
        now=now,
        presenter_notes=club.presenter_id is not None and await has_notes(session, guild_id, session_id),
    )
    mine = select(Reminder).where(Reminder.session_id == session_id)
    rows = (await session.scalars(mine.execution_options(populate_existing=True))).all()
    result = PlanResult()
    # Nudges are the series planner's, recording DMs plan_recording's: left alone here.
    live = {
        row.plan_key: row
        for row in rows
        if row.plan_key and row.status in LIVE_STATUSES and row.kind not in (NUDGE, RECORDING)
    }
    for key, row in live.items():
        slot = wanted.get(key)
        if row.status != PENDING:
            continue  # being sent right now; leave it alone
        if slot is None:
            result += await _cancel(
                session, row, now, "No longer needed (the session or its settings changed)."
            )
        elif (row.due_at, row.user_id) != (slot.due_at, slot.user_id):
            result += await _move(session, row, slot.due_at, now, user_id=slot.user_id)
    for key, slot in wanted.items():
        if key in live or _already_handled(rows, key, slot.due_at):
            continue
        session.add(_planned(guild_id, session_id, key, slot, now))
        result += PlanResult(added=1)
    result += await _follow_custom(session, club, rows, now)
    await session.flush()
    return result


def _already_handled(rows: Sequence[Reminder], key: str, due_at: datetime) -> bool:
    """A slot that already went out (or was missed, failed, or cancelled by an organizer) at this time."""
    return any(
        row.plan_key == key
        and row.due_at == due_at
        and (row.status != CANCELLED or row.cancelled_by is not None)
        for row in rows
    )


async def _follow_custom(
    session: AsyncSession, club: ClubSession, rows: Sequence[Reminder], now: datetime
) -> PlanResult:
    """Custom reminders set 'N before' the session move with it (or end if that time has passed)."""
    result = PlanResult()
    for row in rows:
        if row.kind != CUSTOM or row.status != PENDING or row.offset_minutes is None:
            continue
        due = club.starts_at - timedelta(minutes=row.offset_minutes)
        if due == row.due_at:
            continue
        if due <= now:
            result += await _cancel(session, row, now, "Its session moved and this time has passed.")
        else:
            result += await _move(session, row, due, now, user_id=row.user_id)
    return result


async def _cancel(session: AsyncSession, row: Reminder, now: datetime, reason: str) -> PlanResult:
    cancelled = {"status": CANCELLED, "last_error": reason, "updated_at": now}
    return PlanResult(cancelled=int(await set_if(session, row.id, [Reminder.status == PENDING], **cancelled)))


async def _move(
    session: AsyncSession, row: Reminder, due: datetime, now: datetime, *, user_id: int | None
) -> PlanResult:
    moved = {"due_at": due, "next_attempt_at": due, "user_id": user_id, "attempts": 0, "last_error": None}
    done = await set_if(session, row.id, [Reminder.status == PENDING], **moved, updated_at=now)
    return PlanResult(moved=int(done))


async def cancel_session_reminders(session: AsyncSession, session_id: int, *, now: datetime) -> PlanResult:
    """Cancel every pending reminder of the cancelled session (automatic and custom)."""
    done = await session.execute(
        update(Reminder)
        .where(Reminder.session_id == session_id, Reminder.status == PENDING)
        .values(status=CANCELLED, last_error="Its session was cancelled.", updated_at=now)
        .execution_options(synchronize_session=False)
    )
    return PlanResult(cancelled=rowcount(done))


async def upcoming_session_ids(
    session: AsyncSession, now: datetime, guild_id: int | None = None
) -> list[tuple[int, int]]:
    """(guild_id, session_id) of scheduled sessions that have not ended more than the recap delay ago."""
    horizon = now - timedelta(hours=12)  # a session lasts at most 10 hours; the recap DM goes 1 after
    query = select(ClubSession.guild_id, ClubSession.id).where(
        ClubSession.status == SCHEDULED, ClubSession.starts_at > horizon
    )
    if guild_id is not None:
        query = query.where(ClubSession.guild_id == guild_id)
    return [(g, s) for g, s in (await session.execute(query.order_by(ClubSession.starts_at))).all()]


async def plan_recording(session: AsyncSession, guild_id: int, session_id: int, *, now: datetime) -> None:
    """The recording was added: one DM now to each member reminded of the session (never a second one)."""
    club = await session.get(ClubSession, session_id)
    if club is None or club.guild_id != guild_id or club.status != SCHEDULED:
        return
    keys = select(Reminder.plan_key).where(Reminder.session_id == session_id, Reminder.kind == RECORDING)
    done = set(await session.scalars(keys))
    users = await session.scalars(
        select(SessionSubscription.user_id).where(SessionSubscription.session_id == session_id)
    )
    for user_id in users:
        key = f"recording:{user_id}"
        if key not in done:
            session.add(_planned(guild_id, session_id, key, Slot(RECORDING, now, user_id), now))
    await session.flush()


def _planned(guild_id: int, session_id: int, key: str, slot: Slot, now: datetime) -> Reminder:
    return Reminder(
        guild_id=guild_id,
        kind=slot.kind,
        user_id=slot.user_id,
        due_at=slot.due_at,
        next_attempt_at=slot.due_at,
        session_id=session_id,
        offset_minutes=slot.offset_minutes,
        plan_key=key,
        created_at=now,
        updated_at=now,
    )
