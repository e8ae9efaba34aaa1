"""Looking sessions up: upcoming lists (those in progress first, then soonest first), autocomplete choices,
the calendar, Remind me subscriptions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import ColumnElement, Select, delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from bot import timeutil
from bot.errors import Conflict
from bot.ids import parse_id
from bot.services.sessions.info import CANCELLED, SCHEDULED, SessionInfo, session_info
from bot.services.sessions.rules import MAX_DURATION
from bot.services.sessions.store import load_row
from bot.text import CHOICE_NAME_LIMIT, cut
from db.models import ClubSession, SessionPaper, SessionSubscription

MAX_CHOICES = 25
DEFAULT_REMIND_BEFORE_MINUTES = 60


def _filters(guild_id: int, include_cancelled: bool, needle: str | None) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = [ClubSession.guild_id == guild_id]
    if not include_cancelled:
        conditions.append(ClubSession.status == SCHEDULED)
    if needle:
        conditions.append(func.lower(ClubSession.title).contains(needle.casefold(), autoescape=True))
    return conditions


def _ends(row: Any) -> datetime:
    return row.starts_at + timedelta(minutes=row.duration_minutes)


async def _upcoming_rows(
    session: AsyncSession,
    query: Select[Any],
    conditions: list[ColumnElement[bool]],
    now: datetime,
    *,
    limit: int,
    offset: int,
    entities: bool,
) -> list[Any]:
    """ORM rows (``entities``) or column rows of sessions not yet over, in progress first."""

    async def run(q: Select[Any]) -> list[Any]:
        result = await session.execute(q)
        return list(result.scalars().all() if entities else result.all())

    window_start = now - timedelta(minutes=MAX_DURATION)
    running = [
        row
        for row in await run(
            query.where(
                *conditions, ClubSession.starts_at > window_start, ClubSession.starts_at <= now
            ).order_by(ClubSession.starts_at, ClubSession.id)
        )
        if _ends(row) > now
    ]
    head = running[offset : offset + limit]
    remaining = limit - len(head)
    if remaining <= 0:
        return head
    tail = await run(
        query.where(*conditions, ClubSession.starts_at > now)
        .order_by(ClubSession.starts_at, ClubSession.id)
        .offset(max(0, offset - len(running)))
        .limit(remaining)
    )
    return head + tail


async def list_upcoming(
    session: AsyncSession,
    guild_id: int,
    now: datetime,
    limit: int = 10,
    offset: int = 0,
    *,
    include_cancelled: bool = False,
) -> list[SessionInfo]:
    """Sessions not yet over, in progress first, then soonest first."""
    query = select(ClubSession).options(selectinload(ClubSession.papers))
    conditions = _filters(guild_id, include_cancelled, None)
    rows = await _upcoming_rows(session, query, conditions, now, limit=limit, offset=offset, entities=True)
    return [session_info(row) for row in rows]


async def count_upcoming(
    session: AsyncSession, guild_id: int, now: datetime, *, include_cancelled: bool = False
) -> int:
    """How many sessions are running or still to come."""
    conditions = _filters(guild_id, include_cancelled, None)
    window_start = now - timedelta(minutes=MAX_DURATION)
    running = (
        await session.execute(
            select(ClubSession.starts_at, ClubSession.duration_minutes).where(
                *conditions, ClubSession.starts_at > window_start, ClubSession.starts_at <= now
            )
        )
    ).all()
    future = await session.scalar(
        select(func.count()).select_from(ClubSession).where(*conditions, ClubSession.starts_at > now)
    )
    return sum(1 for row in running if _ends(row) > now) + int(future or 0)


async def list_for_calendar(
    session: AsyncSession, guild_id: int, now: datetime, limit: int = 500
) -> list[SessionInfo]:
    """Upcoming sessions for the .ics, cancelled ones included (calendars then drop them)."""
    return await list_upcoming(session, guild_id, now, limit=limit, include_cancelled=True)


async def announced_with_papers(
    session: AsyncSession, guild_id: int, paper_ids: Sequence[int], now: datetime
) -> list[SessionInfo]:
    """The guild's announced sessions still to come that read any of these papers (their posts show the
    papers' cards). Past posts keep the card they had: a weekly citation count is no reason to edit them."""
    if not paper_ids:
        return []
    rows = (
        (
            await session.execute(
                select(ClubSession)
                .where(
                    ClubSession.guild_id == guild_id,
                    ClubSession.announcement_message_id.is_not(None),
                    ClubSession.status == "scheduled",
                    ClubSession.starts_at >= now,
                    ClubSession.id.in_(
                        select(SessionPaper.session_id).where(SessionPaper.paper_id.in_(list(paper_ids)))
                    ),
                )
                .order_by(ClubSession.id)
                .options(selectinload(ClubSession.papers))
                .execution_options(populate_existing=True)
            )
        )
        .scalars()
        .all()
    )
    return [session_info(row) for row in rows]


def choice_name(session_id: int, title: str, starts_at: datetime, tz: ZoneInfo, status: str) -> str:
    """'#12 · Thu 5 Nov 2026 · Building data recipes…' within Discord's 100 characters."""
    local = starts_at.astimezone(tz)
    day = f"{timeutil.WEEKDAYS[local.weekday()][:3].title()} {local.day} {timeutil.MONTHS[local.month - 1][:3].title()} {local.year}"
    mark = " (cancelled)" if status == CANCELLED else ""
    prefix = f"#{session_id} · {day} · "
    return cut(prefix + " ".join(title.split()) + mark, CHOICE_NAME_LIMIT)


async def session_choices(
    session: AsyncSession, guild_id: int, now: datetime, current: str, zone: str, limit: int = MAX_CHOICES
) -> list[tuple[str, int]]:
    """Autocomplete for a `session` option: upcoming first, then recent; ``current`` matches the title (any
    case) or, as a number, the id."""
    tz = timeutil.resolve_timezone(zone)
    cap = max(0, min(limit, MAX_CHOICES))
    typed = current.strip()
    typed_id = parse_id(typed)
    columns = select(ClubSession.id, ClubSession.title, ClubSession.starts_at, ClubSession.status)
    found: list[Any] = []
    if typed_id is not None:
        exact = (
            await session.execute(
                columns.add_columns(ClubSession.duration_minutes).where(
                    ClubSession.guild_id == guild_id, ClubSession.id == typed_id
                )
            )
        ).first()
        if exact is not None:
            found.append(exact)
    needle = None if typed_id is not None else typed.lstrip("#").strip() or None
    conditions = _filters(guild_id, True, needle)
    upcoming = await _upcoming_rows(
        session,
        columns.add_columns(ClubSession.duration_minutes),
        conditions,
        now,
        limit=cap,
        offset=0,
        entities=False,
    )
    found.extend(upcoming)
    if len(found) < cap:
        recent = (
            await session.execute(
                columns.where(*conditions, ClubSession.starts_at <= now)
                .order_by(ClubSession.starts_at.desc(), ClubSession.id.desc())
                .limit(cap)
            )
        ).all()
        found.extend(recent)
    choices: list[tuple[str, int]] = []
    seen: set[int] = set()
    for row in found:
        if row.id in seen:
            continue
        seen.add(row.id)
        choices.append((choice_name(row.id, row.title, row.starts_at, tz, row.status), row.id))
    return choices[:cap]


# ---------------------------------------------------------------- Remind me


@dataclass(frozen=True)
class Reminded:
    """A member's reminder of a session: asked for (Remind me, /remind me), Interested on its event, both."""

    asked: bool
    interested: bool

    @property
    def subscribed(self) -> bool:
        """Whether a DM comes before the session."""
        return self.asked or self.interested


async def toggle_subscription(
    session: AsyncSession,
    guild_id: int,
    session_id: int,
    user_id: int,
    *,
    now: datetime,
    before_minutes: int = DEFAULT_REMIND_BEFORE_MINUTES,
) -> Reminded:
    """Remind me pressed: the member's own reminder on, or off if it was on. A member who also marked
    Interested on the event keeps the row (one DM either way) until they unmark it."""
    row = await load_row(session, guild_id, session_id)
    existing = await session.get(SessionSubscription, (session_id, user_id))
    if existing is not None and existing.asked:
        if existing.interested:
            existing.asked = False
            await session.flush()
            return Reminded(asked=False, interested=True)
        await session.execute(
            delete(SessionSubscription).where(
                SessionSubscription.session_id == session_id, SessionSubscription.user_id == user_id
            )
        )
        return Reminded(asked=False, interested=False)
    if row.status == CANCELLED:
        raise Conflict("That session was cancelled, so there is nothing to remind you of.")
    if row.starts_at <= now:
        raise Conflict("That session has already started.")
    if existing is not None:
        existing.asked = True
    else:
        session.add(
            SessionSubscription(
                session_id=session_id, user_id=user_id, before_minutes=before_minutes, created_at=now
            )
        )
    await session.flush()
    return Reminded(asked=True, interested=existing is not None and existing.interested)


async def is_subscribed(session: AsyncSession, session_id: int, user_id: int) -> bool:
    """Whether the user asked to be reminded of the session."""
    return await session.get(SessionSubscription, (session_id, user_id)) is not None


async def subscriber_ids(session: AsyncSession, session_id: int) -> Sequence[int]:
    """Members who pressed Remind me on the session (for the reminders feature)."""
    return (
        (
            await session.execute(
                select(SessionSubscription.user_id)
                .where(SessionSubscription.session_id == session_id)
                .order_by(SessionSubscription.created_at)
            )
        )
        .scalars()
        .all()
    )
