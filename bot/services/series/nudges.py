"""The organizers' nudges: days before a week still without a presenter or a paper, one reminder of kind
``nudge`` per week and kind in the organizers' thread, planned again (idempotently) after every change."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.services.series.info import SeriesInfo, WeekInfo
from bot.services.series.store import active_series, get_settings
from bot.services.series.weeks import weeks_view
from db.models.reminders import CANCELLED, NUDGE, PENDING, Reminder

PLAN_TRIES = 3  # a second planner may race this one to a row: plan again
PRESENTER_KEY = "nudge:presenter"
PAPER_KEY = "nudge:paper"


def message_url(guild_id: int, channel_id: int, message_id: int) -> str:
    """The link to a Discord message."""
    return f"https://discord.com/channels/{guild_id}/{channel_id}/{message_id}"


def claim_line(info: SeriesInfo, week: WeekInfo, key: str) -> str:
    """The nudge's line saying how to fill a week's missing presenter or paper."""
    session = week.session
    assert session is not None
    if key == PAPER_KEY:
        return f"Set it with `/session edit session:{session.id} papers:…`."
    if info.board_channel_id and info.board_message_id:
        return f"Members can claim it here: {message_url(info.guild_id, info.board_channel_id, info.board_message_id)}"
    if session.announcement_channel_id and session.announcement_message_id:
        url = message_url(info.guild_id, session.announcement_channel_id, session.announcement_message_id)
        return f"Members can claim it on its announcement: {url}"
    return f"Post the open weeks with `/series open series:{info.id}` so members can claim it, or set one with `/session edit session:{session.id}`."


def _wanted(week: WeekInfo, days: int) -> dict[str, datetime]:
    if days <= 0 or not week.is_scheduled or week.session is None or week.session.is_cancelled:
        return {}
    due = week.session.starts_at - timedelta(days=days)
    wanted = {}
    if not week.has_presenter:
        wanted[PRESENTER_KEY] = due
    if not week.has_paper:
        wanted[PAPER_KEY] = due
    return wanted


async def plan_nudges(session: AsyncSession, guild_id: int, now: datetime) -> int:
    """Bring the guild's nudges in line with its weeks (none without an organizers' thread); how many rows it
    added, moved or cancelled."""
    settings = await get_settings(session, guild_id)
    thread = settings.organizer_thread_id
    if thread is None:
        return 0
    touched = 0
    for info in await active_series(session, guild_id, now):
        for week in await weeks_view(session, info, now, settings.horizon_weeks):
            if week.session is None or week.session.has_started(now):
                continue
            touched += await _plan_week(session, info, week, settings.nudge_days, thread, now)
    return touched


async def _plan_week(
    session: AsyncSession, info: SeriesInfo, week: WeekInfo, days: int, thread: int, now: datetime
) -> int:
    assert week.session is not None
    session_id = week.session.id
    wanted = _wanted(week, days)
    rows = list(
        await session.scalars(
            select(Reminder)
            .where(Reminder.session_id == session_id, Reminder.kind == NUDGE)
            .execution_options(populate_existing=True)
        )
    )
    touched = 0
    live = {row.plan_key: row for row in rows if row.status == PENDING}
    for key, row in live.items():
        if key not in wanted:
            touched += await _cancel(session, row, now, "No longer needed: the week has it now.")
            continue
        line = claim_line(info, week, key)
        due = wanted[key]
        values: dict[str, object] = {}
        if row.message != line:
            values["message"] = line
        if row.channel_id != thread:
            values["channel_id"] = thread
        if due > now and row.due_at != due:
            values.update(due_at=due, next_attempt_at=due)
        if values:
            touched += await _set(session, row, now, **values)
    for key, due in wanted.items():
        if key in live or any(row.plan_key == key and row.status != CANCELLED for row in rows):
            continue  # pending, or already sent (once per week and kind), or being sent right now
        at = max(due, now)
        session.add(
            Reminder(
                guild_id=info.guild_id,
                kind=NUDGE,
                channel_id=thread,
                message=claim_line(info, week, key),
                due_at=at,
                next_attempt_at=at,
                session_id=session_id,
                plan_key=key,
                status=PENDING,
                attempts=0,
                occurrence=0,
                delayed=False,
                created_at=now,
                updated_at=now,
            )
        )
        touched += 1
    await session.flush()
    return touched


async def _set(session: AsyncSession, row: Reminder, now: datetime, **values: object) -> int:
    done = await session.execute(
        update(Reminder)
        .where(Reminder.id == row.id, Reminder.status == PENDING)
        .values(updated_at=now, **values)
        .execution_options(synchronize_session=False)
    )
    return int(getattr(done, "rowcount", 0) or 0)


async def _cancel(session: AsyncSession, row: Reminder, now: datetime, reason: str) -> int:
    return await _set(session, row, now, status=CANCELLED, last_error=reason)


async def cancel_presenter_nudge(session: AsyncSession, session_id: int, now: datetime) -> None:
    """A member just claimed the week: its pending presenter nudge is not needed (same transaction)."""
    await session.execute(
        update(Reminder)
        .where(
            Reminder.session_id == session_id,
            Reminder.kind == NUDGE,
            Reminder.plan_key == PRESENTER_KEY,
            Reminder.status == PENDING,
        )
        .values(status=CANCELLED, last_error="No longer needed: a member claimed the week.", updated_at=now)
        .execution_options(synchronize_session=False)
    )


async def plan_guild_nudges(
    session_factory: async_sessionmaker[AsyncSession], guild_id: int, now: datetime
) -> None:
    """Plan the guild's nudges in one transaction (again, if a second planner raced it to a row)."""
    for attempt in range(1, PLAN_TRIES + 1):
        try:
            async with session_factory() as session, session.begin():
                await plan_nudges(session, guild_id, now)
            return
        except IntegrityError:
            if attempt == PLAN_TRIES:
                raise
