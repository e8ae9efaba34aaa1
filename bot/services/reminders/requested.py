"""Reminders people ask for: organizers' (/organize reminder add, cancel, list) and members' (/remind me)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime, time, timedelta
from typing import Final

from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import timeutil
from bot.clock import Host
from bot.errors import BadInput, Conflict, NotFound
from bot.ids import parse_id
from bot.services.config.guild import get_config
from bot.services.reminders.plan import SCHEDULED, plan_session
from bot.services.reminders.texts import escape
from bot.text import CHOICE_NAME_LIMIT, clamp_page, cut, page_count, visible
from bot.timeutil import DisplayZone
from bot.when import parse_when, pasted_instant
from db.models import ClubSession, SessionSubscription
from db.models.reminders import CANCELLED, CUSTOM, FAILED, LIVE_STATUSES, MISSED, PENDING, SENDING, Reminder

MAX_MESSAGE: Final = 1800
MAX_DAYS_AHEAD: Final = 730
MAX_BEFORE: Final = timedelta(days=30)
DEFAULT_BEFORE: Final = timedelta(hours=1)
DEFAULT_CLOCK: Final = time(9)  # a reminder for a day alone ('next thursday') goes out at 9:00 AM
PROBLEMS_WINDOW: Final = timedelta(days=7)
REPEATS: Final = ("daily", "weekly", "monthly")
MAX_CHOICES: Final = 25
VIA_COMMAND: Final = "command"  # a Remind me asked with /remind me (the button leaves it unset)


@dataclass(frozen=True)
class ReminderInfo:
    """A reminder as plain values (``number``: an organizer's reminder's number in its server; None: automatic)."""

    number: int | None
    row_id: int
    kind: str
    due_at: datetime
    channel_id: int | None
    user_id: int | None
    message: str | None
    repeat: str | None
    status: str
    last_error: str | None
    session_title: str | None
    attempts: int


@dataclass(frozen=True)
class Subscription:
    """The outcome of /remind me."""

    subscribed: bool
    session_title: str
    starts_at: datetime
    before: timedelta
    changed_offset: bool = False
    interested: bool = False  # marked Interested on the session's event: reminded even when this is off

    @property
    def due_at(self) -> datetime:
        """When the member's DM goes out."""
        return self.starts_at - self.before


def info_of(row: Reminder, session_title: str | None = None) -> ReminderInfo:
    """The plain view of a reminder row."""
    columns = {f.name for f in fields(ReminderInfo)} - {"row_id", "session_title"}
    same = {name: getattr(row, name) for name in columns}
    return ReminderInfo(row_id=row.id, session_title=session_title, **same)


def clean_message(text: str) -> str:
    """The reminder's text as typed (mentions in it never ping); refused when empty or too long."""
    cleaned = visible(text).strip()
    if not cleaned:
        raise BadInput("The reminder's message is empty; write what members should be reminded of.")
    if len(cleaned) > MAX_MESSAGE:
        raise BadInput(f"The message is {len(cleaned):,} characters; keep it to {MAX_MESSAGE:,}.")
    return cleaned


def clean_repeat(repeat: str | None, *, tied_to_session: bool) -> str | None:
    """The repeat rule, checked (None: once)."""
    value = (repeat or "none").strip().casefold()
    if value == "none":
        return None
    if value not in REPEATS:
        raise BadInput("Repeat must be none, daily, weekly or monthly.")
    if tied_to_session:
        raise BadInput("A reminder tied to a session cannot repeat; leave out either `session` or `repeat`.")
    return value


def resolve_due(
    when: str, *, zone: str, now: datetime, session_starts: datetime | None
) -> tuple[datetime, int | None, str | None]:
    """(due time UTC, minutes before the session or None, note). ``when`` is an offset when a session is given
    (or a pasted Discord timestamp: that instant, kept as the time before the session it falls)."""
    if session_starts is not None:
        instant = pasted_instant(when, now)
        if instant is not None:
            timeutil.ensure_future(instant, now, what="reminder")
        if instant is not None and instant >= session_starts:
            raise BadInput(
                f"{timeutil.discord_timestamp(instant, 'F')} is not before the session "
                f"({timeutil.discord_timestamp(session_starts, 'F')}); pick a time before it, or leave out "
                "`session`."
            )
        offset = session_starts - instant if instant is not None else timeutil.parse_offset(when)
        due = session_starts - offset
        if due <= now:
            raise BadInput(
                f"{timeutil.format_offset(offset)} before the session ({timeutil.discord_timestamp(session_starts, 'F')}) "
                "is already past; pick a shorter time before it."
            )
        return due, round(offset.total_seconds() / 60), None
    parsed = parse_when(when, timeutil.resolve_timezone(zone), now, default_clock=DEFAULT_CLOCK)
    timeutil.ensure_future(parsed.utc, now, what="reminder")
    timeutil.ensure_within(parsed.utc, now, MAX_DAYS_AHEAD)
    return parsed.utc, None, parsed.note


async def _scheduled_session(
    session: AsyncSession, guild_id: int, session_id: int, now: datetime
) -> ClubSession:
    club = await _session_of(session, guild_id, session_id)
    title = f"**{cut(escape(club.title), 150)}**"
    if club.status != SCHEDULED:
        raise Conflict(f"{title} was cancelled, so there is nothing to remind anyone of.")
    if club.starts_at <= now:
        raise Conflict(f"{title} has already started.")
    return club


async def _session_of(session: AsyncSession, guild_id: int, session_id: int) -> ClubSession:
    club = await session.get(ClubSession, session_id)
    if club is None or club.guild_id != guild_id:
        raise NotFound("There is no such session in this server; pick one from the list as you type.")
    return club


async def _ensure_room(session: AsyncSession, guild_id: int, cap: int) -> None:
    live = await session.scalar(
        select(func.count()).where(Reminder.guild_id == guild_id, Reminder.status.in_(LIVE_STATUSES))
    )
    if (live or 0) >= cap:
        raise Conflict(
            f"This server already has {cap:,} pending reminders, the most allowed; "
            "cancel some with /organize reminder cancel first."
        )


@dataclass(frozen=True)
class CustomReminder:
    """An organizer's reminder as asked for: ``when`` as typed, read in ``zone`` (or before the session)."""

    guild_id: int
    channel_id: int
    message: str
    when: str
    zone: str
    created_by: int
    repeat: str | None = None
    session_id: int | None = None


async def add_custom(
    session: AsyncSession, asked: CustomReminder, *, now: datetime, max_pending: int
) -> tuple[ReminderInfo, str | None]:
    """Schedule an organizer's reminder: it, and a note about how its time was read, if any."""
    text = clean_message(asked.message)
    rule = clean_repeat(asked.repeat, tied_to_session=asked.session_id is not None)
    guild_id, session_id = asked.guild_id, asked.session_id
    club = await _scheduled_session(session, guild_id, session_id, now) if session_id is not None else None
    due, offset_minutes, note = resolve_due(
        asked.when, zone=asked.zone, now=now, session_starts=club.starts_at if club else None
    )
    await _ensure_room(session, guild_id, max_pending)
    tz = timeutil.resolve_timezone(asked.zone)
    highest = await session.scalar(select(func.max(Reminder.number)).where(Reminder.guild_id == guild_id))
    row = Reminder(
        number=(highest or 0) + 1,
        guild_id=guild_id,
        kind=CUSTOM,
        channel_id=asked.channel_id,
        message=text,
        due_at=due,
        next_attempt_at=due,
        session_id=session_id,
        offset_minutes=offset_minutes,
        repeat=rule,
        repeat_timezone=tz.key if rule else None,
        repeat_anchor_day=due.astimezone(tz).day if rule == "monthly" else None,
        created_by=asked.created_by,
        created_at=now,
        updated_at=now,
    )
    session.add(row)
    await session.flush()
    return info_of(row, club.title if club else None), note


async def cancel_reminder(
    session: AsyncSession, guild_id: int, number: int, *, by_user: int, now: datetime
) -> ReminderInfo:
    """Cancel the pending occurrence of the organizers' reminder ``number`` (as listed)."""
    row = await session.scalar(
        select(Reminder)
        .where(Reminder.guild_id == guild_id, Reminder.number == number, Reminder.status.in_(LIVE_STATUSES))
        .order_by(Reminder.due_at)
        .limit(1)
    )
    if row is None:
        raise NotFound(
            f"There is no pending reminder #{number} in this server; `/organize reminder list` shows them."
        )
    if row.status == SENDING:
        raise Conflict(f"Reminder #{number} is being sent right now.")
    row.status = CANCELLED
    row.cancelled_by = by_user
    row.last_error = "Cancelled by an organizer."
    row.updated_at = now
    await session.flush()
    return info_of(row)


async def toggle_personal(
    session: AsyncSession,
    *,
    guild_id: int,
    session_id: int,
    user_id: int,
    before: timedelta | None,
    now: datetime,
    max_pending: int,
    presenter_dm_days: int,
) -> Subscription:
    """Turn the member's DM before a session on, off (the same again), or move it (a different ``before``)."""
    club = await _session_of(session, guild_id, session_id)
    existing = await session.get(SessionSubscription, (session_id, user_id))
    wanted = before or (timedelta(minutes=existing.before_minutes) if existing else DEFAULT_BEFORE)
    moving = (
        existing is not None
        and before is not None
        and round(before.total_seconds() / 60) != existing.before_minutes
    )
    if existing is not None and existing.asked and not moving:
        if existing.interested:  # Interested on the event still reminds them, with one DM
            existing.asked = False
        else:
            await session.delete(existing)
            await session.flush()
        await plan_session(session, guild_id, session_id, now=now, presenter_dm_days=presenter_dm_days)
        return Subscription(False, club.title, club.starts_at, wanted, interested=existing.interested)
    await _scheduled_session(session, guild_id, session_id, now)
    if wanted > MAX_BEFORE:
        raise BadInput(f"Pick a time at most {timeutil.format_offset(MAX_BEFORE)} before the session.")
    if club.starts_at - wanted <= now:
        raise BadInput(
            f"The session starts {timeutil.discord_timestamp(club.starts_at, 'R')}, so "
            f"{timeutil.format_offset(wanted)} before it is already past; pick a shorter time."
        )
    minutes = round(wanted.total_seconds() / 60)
    if existing is None:
        await _ensure_room(session, guild_id, max_pending)
        existing = SessionSubscription(session_id=session_id, user_id=user_id, created_at=now)
        session.add(existing)
    existing.before_minutes, existing.asked, existing.via = minutes, True, VIA_COMMAND
    await session.flush()
    await plan_session(session, guild_id, session_id, now=now, presenter_dm_days=presenter_dm_days)
    return Subscription(True, club.title, club.starts_at, wanted, changed_offset=moving)


@dataclass(frozen=True)
class ReminderList:
    """A page of /organize reminder list (``hidden``: the automatic reminders left out)."""

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
    """Pending reminders (the organizers' only, unless ``automatic``), then those missed or failed in the last
    week, paged together (``page`` clamped)."""
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
    pages = page_count(total_pending + total_problems, per_page)
    page = clamp_page(page, pages)
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
    rows = await session.execute(query.order_by(Reminder.due_at, Reminder.id).limit(MAX_CHOICES))
    choices = []
    for row, title in rows:
        local = row.due_at.astimezone(tz)
        when = f"{timeutil.WEEKDAYS[local.weekday()][:3].title()} {local.day} {timeutil.MONTHS[local.month - 1][:3].title()} {local:%H:%M}"
        name = cut(f"#{row.number} · {when} · {describe(info_of(row, title))}", CHOICE_NAME_LIMIT)
        choices.append((name, row.number or 0))
    return choices


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


async def session_title(host: Host, guild_id: int, session_id: int) -> str | None:
    """The title of the guild's session ``session_id`` (None: not one of its sessions), for /remind's preview."""
    async with host.session_factory() as session:
        return await session.scalar(
            select(ClubSession.title).where(ClubSession.guild_id == guild_id, ClubSession.id == session_id)
        )
