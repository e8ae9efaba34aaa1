"""Looking reminders up: the pages of /remind list, /remind cancel's autocomplete, one-line descriptions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import timeutil
from bot.ids import parse_id
from bot.services.config.guild import get_config
from bot.services.reminders.requested import MAX_CHOICES, PROBLEMS_WINDOW, ReminderInfo, info_of
from bot.text import CHOICE_NAME_LIMIT, cut
from bot.timeutil import DisplayZone
from db.models import ClubSession
from db.models.reminders import CUSTOM, FAILED, LIVE_STATUSES, MISSED, PENDING, Reminder


@dataclass(frozen=True)
class ReminderList:
    """A page of /remind list: pending reminders, then those missed or failed in the last week."""

    pending: list[ReminderInfo]
    problems: list[ReminderInfo]
    total_pending: int
    total_problems: int
    page: int
    pages: int
    zones: list[DisplayZone]


async def list_reminders(
    session: AsyncSession, guild_id: int, *, now: datetime, page: int, per_page: int
) -> ReminderList:
    """Pending reminders (soonest first), then those missed or failed in the last week (latest first),
    paged together; ``page`` is clamped."""
    live = [Reminder.guild_id == guild_id, Reminder.status.in_(LIVE_STATUSES)]
    recent = [
        Reminder.guild_id == guild_id,
        Reminder.status.in_((MISSED, FAILED)),
        Reminder.due_at >= now - PROBLEMS_WINDOW,
    ]
    total_pending = int((await session.execute(select(func.count()).where(*live))).scalar_one())
    total_problems = int((await session.execute(select(func.count()).where(*recent))).scalar_one())
    pages = max(1, -(-(total_pending + total_problems) // per_page))
    page = min(max(page, 0), pages - 1)
    rows = select(Reminder, ClubSession.title).outerjoin(ClubSession, ClubSession.id == Reminder.session_id)
    soonest, latest = (Reminder.due_at, Reminder.id), (Reminder.due_at.desc(), Reminder.id.desc())
    offset = page * per_page
    pending = await _infos(session, rows.where(*live).order_by(*soonest), offset, per_page)
    room, start = per_page - len(pending), max(0, offset - total_pending)
    problems = await _infos(session, rows.where(*recent).order_by(*latest), start, room) if room > 0 else []
    return ReminderList(
        pending=pending,
        problems=problems,
        total_pending=total_pending,
        total_problems=total_problems,
        page=page,
        pages=pages,
        zones=(await get_config(session, guild_id)).display_zones,
    )


async def _infos(
    session: AsyncSession, query: Select[tuple[Reminder, str]], offset: int, limit: int
) -> list[ReminderInfo]:
    return [
        info_of(row, title) for row, title in (await session.execute(query.offset(offset).limit(limit))).all()
    ]


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
