"""The organizers' nudges: one reminder per week lacking a presenter or a paper, planned again after each change."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import exists, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.services.reminders.texts import escape
from bot.services.series.info import SeriesInfo, WeekInfo
from bot.services.series.store import active_series, get_settings
from bot.services.series.weeks import weeks_view
from db.models import SessionPaper
from db.models.reminders import CANCELLED, NUDGE, PENDING, Reminder

PLAN_TRIES = 3  # a second planner may race this one to a row: plan again
WEEK_KEY = "nudge:week"  # one nudge per week, naming everything it lacks
PRESENTER, PAPER = "presenter", "paper"  # what a week may lack, each with its line in the nudge's message


def message_url(guild_id: int, channel_id: int, message_id: int) -> str:
    """The link to a Discord message."""
    return f"https://discord.com/channels/{guild_id}/{channel_id}/{message_id}"


def _claim_line(info: SeriesInfo, week: WeekInfo, gap: str) -> str:
    session = week.session
    assert session is not None
    day = week.week_date
    pick = f"pick **{escape(session.title)}** of {day:%a} {day.day} {day:%b} as you type"
    if gap == PAPER:
        return f"Set its paper with `/organize session edit` ({pick}, then fill `papers`)."
    if info.board_channel_id and info.board_message_id:
        return f"Members can claim it here: {message_url(info.guild_id, info.board_channel_id, info.board_message_id)}"
    if session.announcement_channel_id and session.announcement_message_id:
        url = message_url(info.guild_id, session.announcement_channel_id, session.announcement_message_id)
        return f"Members can claim it on its announcement: {url}"
    return (
        f"Post the open weeks with `/organize series open` so members can claim it, or set a presenter with "
        f"`/organize session edit` ({pick})."
    )


async def _plan(session: AsyncSession, guild_id: int, now: datetime) -> None:
    """Bring the guild's nudges in line with its weeks (none without an organizers' thread)."""
    settings = await get_settings(session, guild_id)
    if settings.organizer_thread_id is None:
        return
    for info in await active_series(session, guild_id, now):
        for week in await weeks_view(session, info, now, settings.horizon_weeks):
            if week.session is not None and not week.session.has_started(now):
                await _plan_week(session, info, week, settings.nudge_days, settings.organizer_thread_id, now)
    await session.flush()


async def _plan_week(
    session: AsyncSession, info: SeriesInfo, week: WeekInfo, days: int, thread: int, now: datetime
) -> None:
    assert week.session is not None
    lacks = not (week.has_presenter and week.has_paper)
    due = None  # when the week's nudge is due (None: it needs none)
    if days > 0 and week.is_scheduled and not week.session.is_cancelled and lacks:
        due = week.session.starts_at - timedelta(days=days)
    query = select(Reminder).where(Reminder.session_id == week.session.id, Reminder.kind == NUDGE)
    rows = list(await session.scalars(query.execution_options(populate_existing=True)))
    live = None
    for row in rows:
        if row.status != PENDING:
            continue
        if row.plan_key != WEEK_KEY:  # one nudge per kind, before one per week: replaced below
            await _set(session, row, now, status=CANCELLED, last_error="Replaced by one nudge for the week.")
        elif due is None:
            await _set(
                session, row, now, status=CANCELLED, last_error="No longer needed: the week has it now."
            )
        else:
            live = row
    if due is None:
        return
    gaps = [gap for gap, has in ((PRESENTER, week.has_presenter), (PAPER, week.has_paper)) if not has]
    message = "\n".join(f"{gap}|{_claim_line(info, week, gap)}" for gap in gaps)  # a `gap|line` line per gap
    if live is not None:
        values: dict[str, object] = {}
        if live.message != message:
            values["message"] = message
        if live.channel_id != thread:
            values["channel_id"] = thread
        if due > now and live.due_at != due:
            values.update(due_at=due, next_attempt_at=due)
        if values:
            await _set(session, live, now, **values)
    elif not any(row.status not in (CANCELLED, PENDING) for row in rows):
        # none sent, or being sent right now, for this week (of either kind, before one per week)
        at = max(due, now)
        session.add(
            Reminder(
                guild_id=info.guild_id,
                kind=NUDGE,
                channel_id=thread,
                message=message,
                due_at=at,
                next_attempt_at=at,
                session_id=week.session.id,
                plan_key=WEEK_KEY,
                status=PENDING,
                created_at=now,
                updated_at=now,
            )
        )


async def _set(session: AsyncSession, row: Reminder, now: datetime, **values: object) -> None:
    await session.execute(
        update(Reminder)
        .where(Reminder.id == row.id, Reminder.status == PENDING)
        .values(updated_at=now, **values)
        .execution_options(synchronize_session=False)
    )


async def cancel_presenter_nudge(session: AsyncSession, session_id: int, now: datetime) -> None:
    """A member just claimed the week: its pending nudge goes if the week has its paper (else it names the paper)."""
    has_paper = await session.scalar(select(exists().where(SessionPaper.session_id == session_id)))
    if not has_paper:
        return
    await session.execute(
        update(Reminder)
        .where(Reminder.session_id == session_id, Reminder.kind == NUDGE, Reminder.status == PENDING)
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
                await _plan(session, guild_id, now)
            return
        except IntegrityError:
            if attempt == PLAN_TRIES:
                raise
