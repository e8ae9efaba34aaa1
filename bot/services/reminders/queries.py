"""Looking reminders up: /organize reminder list's pages, /organize reminder cancel's choices, descriptions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, or_, select
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
    """A page of /organize reminder list: pending reminders (``hidden``: automatic ones left out), then those
    missed or failed in the last week."""

    pending: list[ReminderInfo]
    problems: list[ReminderInfo]
    total_pending: int
    total_problems: int
    page: int
    pages: int
    zones: list[DisplayZone]
    automatic: bool = False
    hidden: int = 0


_WITH_TITLE = select(Reminder, ClubSession.title).outerjoin(
    ClubSession, ClubSession.id == Reminder.session_id
)


async def list_reminders(
    session: AsyncSession, guild_id: int, *, now: datetime, page: int, per_page: int, automatic: bool = False
) -> ReminderList:
    """Pending reminders (soonest first), then those missed or failed in the last week (latest first),
    paged together; the pending ones are the organizers' only, unless ``automatic``; ``page`` is clamped."""
    mine = [] if automatic else [Reminder.kind == CUSTOM]
    live = [Reminder.guild_id == guild_id, Reminder.status.in_(LIVE_STATUSES), *mine]
    recent = [
        Reminder.guild_id == guild_id,
        Reminder.status.in_((MISSED, FAILED)),
        Reminder.due_at >= now - PROBLEMS_WINDOW,
    ]
    others = [Reminder.guild_id == guild_id, Reminder.status.in_(LIVE_STATUSES), Reminder.kind != CUSTOM]
    hidden = 0 if automatic else await session.scalar(select(func.count()).where(*others)) or 0
    total_pending = await session.scalar(select(func.count()).where(*live)) or 0
    total_problems = await session.scalar(select(func.count()).where(*recent)) or 0
    pages = max(1, -(-(total_pending + total_problems) // per_page))
    page = min(max(page, 0), pages - 1)
    soonest, latest = (Reminder.due_at, Reminder.id), (Reminder.due_at.desc(), Reminder.id.desc())
    offset = page * per_page
    found = await session.execute(_WITH_TITLE.where(*live).order_by(*soonest).offset(offset).limit(per_page))
    pending = [info_of(row, title) for row, title in found]
    room, start = per_page - len(pending), max(0, offset - total_pending)
    problems = []
    if room > 0:
        found = await session.execute(_WITH_TITLE.where(*recent).order_by(*latest).offset(start).limit(room))
        problems = [info_of(row, title) for row, title in found]
    return ReminderList(
        pending=pending,
        problems=problems,
        total_pending=total_pending,
        total_problems=total_problems,
        page=page,
        pages=pages,
        zones=(await get_config(session, guild_id)).display_zones,
        automatic=automatic,
        hidden=hidden,
    )


async def cancel_choices(
    session: AsyncSession, guild_id: int, *, current: str, zone: str
) -> list[tuple[str, int]]:
    """/organize reminder cancel's choices: the organizers' pending reminders, soonest first, by number or text."""
    tz = timeutil.resolve_timezone(zone)
    typed = current.strip().lstrip("#").strip()
    typed_id = parse_id(typed)
    query = _WITH_TITLE.where(
        Reminder.guild_id == guild_id, Reminder.status == PENDING, Reminder.number.is_not(None)
    )
    if typed_id is not None:
        query = query.where(Reminder.number == typed_id)
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
                cut(f"#{row.number} · {when} · {describe(info_of(row, title))}", CHOICE_NAME_LIMIT),
                row.number or 0,
            )
        )
    return choices


async def session_title(session: AsyncSession, guild_id: int, session_id: int) -> str | None:
    """The title of the server's session ``session_id`` (None: not one of its sessions)."""
    title = await session.scalar(
        select(ClubSession.title).where(ClubSession.id == session_id, ClubSession.guild_id == guild_id)
    )
    return str(title) if title is not None else None


def describe(info: ReminderInfo) -> str:
    """One line saying what a reminder is about."""
    title = " ".join((info.session_title or "").split())
    if info.kind == CUSTOM:
        text = " ".join((info.message or "").split())
        return f"{text} ({title})" if title else text
    what = {
        "session": "Before the session, in the announcements channel",
        "personal": "DM to a member who asked (Remind me)",
        "presenter": "DM to the presenter",
        "recap": "Asking the presenter for the recording",
        "nudge": "To the organizers: the week still needs a presenter or a paper",
    }.get(info.kind, "Automatic reminder")
    return f"{what}: {title}" if title else what
