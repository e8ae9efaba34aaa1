"""Looking reminders up: the pages of /remind list, /remind cancel's autocomplete, one-line descriptions."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import timeutil
from bot.ids import parse_id
from bot.services.reminders.requested import MAX_CHOICES, PROBLEMS_WINDOW, ReminderInfo, ReminderList, info_of
from bot.text import CHOICE_NAME_LIMIT, cut
from db.models import ClubSession
from db.models.reminders import CUSTOM, FAILED, LIVE_STATUSES, MISSED, PENDING, Reminder


async def list_reminders(
    session: AsyncSession, guild_id: int, *, now: datetime, offset: int, limit: int
) -> ReminderList:
    """Pending reminders (soonest first), then those missed or failed in the last week (latest first);
    ``offset``/``limit`` page through that combined list."""
    live = [Reminder.guild_id == guild_id, Reminder.status.in_(LIVE_STATUSES)]
    recent = [
        Reminder.guild_id == guild_id,
        Reminder.status.in_((MISSED, FAILED)),
        Reminder.due_at >= now - PROBLEMS_WINDOW,
    ]
    total_pending = int((await session.execute(select(func.count()).where(*live))).scalar_one())
    total_problems = int((await session.execute(select(func.count()).where(*recent))).scalar_one())
    pending_rows: list[tuple[Reminder, str | None]] = []
    problem_rows: list[tuple[Reminder, str | None]] = []
    columns = select(Reminder, ClubSession.title).outerjoin(
        ClubSession, ClubSession.id == Reminder.session_id
    )
    if offset < total_pending:
        pending_rows = [
            (r, t)
            for r, t in (
                await session.execute(
                    columns.where(*live).order_by(Reminder.due_at, Reminder.id).offset(offset).limit(limit)
                )
            ).all()
        ]
    room = limit - len(pending_rows)
    if room > 0:
        start = max(0, offset - total_pending)
        problem_rows = [
            (r, t)
            for r, t in (
                await session.execute(
                    columns.where(*recent)
                    .order_by(Reminder.due_at.desc(), Reminder.id.desc())
                    .offset(start)
                    .limit(room)
                )
            ).all()
        ]
    return ReminderList(
        pending=[info_of(r, t) for r, t in pending_rows],
        problems=[info_of(r, t) for r, t in problem_rows],
        total_pending=total_pending,
        total_problems=total_problems,
    )


async def cancel_choices(
    session: AsyncSession, guild_id: int, *, current: str, zone: str
) -> list[tuple[str, int]]:
    """Autocomplete for /remind cancel: pending reminders, soonest first, matched on number or text."""
    tz = timeutil.resolve_timezone(zone)
    typed = current.strip().lstrip("#").strip()
    typed_id = parse_id(typed)
    query = (
        select(Reminder, ClubSession.title)
        .outerjoin(ClubSession, ClubSession.id == Reminder.session_id)
        .where(Reminder.guild_id == guild_id, Reminder.status == PENDING)
    )
    if typed_id is not None:
        query = query.where(or_(Reminder.id == typed_id, Reminder.series_id == typed_id))
    elif typed:
        needle = typed.casefold()
        query = query.where(
            or_(
                func.lower(Reminder.message).contains(needle, autoescape=True),
                func.lower(ClubSession.title).contains(needle, autoescape=True),
            )
        )
    rows = (await session.execute(query.order_by(Reminder.due_at, Reminder.id).limit(MAX_CHOICES))).all()
    choices = []
    for row, title in rows:
        local = row.due_at.astimezone(tz)
        when = f"{timeutil.WEEKDAYS[local.weekday()][:3].title()} {local.day} {timeutil.MONTHS[local.month - 1][:3].title()} {local:%H:%M}"
        choices.append(
            (
                cut(f"#{row.display_id} · {when} · {describe(info_of(row, title))}", CHOICE_NAME_LIMIT),
                row.display_id,
            )
        )
    return choices


def describe(info: ReminderInfo) -> str:
    """One line saying what a reminder is about."""
    title = " ".join((info.session_title or "").split())
    if info.kind == CUSTOM:
        text = " ".join((info.message or "").split())
        return f"{text} ({title})" if title else text
    what = {
        "session": "Session reminder",
        "personal": "DM to a member",
        "presenter": "DM to the presenter",
        "recap": "Recap request to the presenter",
        "nudge": "Nudge to the organizers",
    }.get(info.kind, info.kind)
    return f"{what}: {title}" if title else what
