"""Looking sessions up: upcoming (in progress first, then soonest), /session list, autocomplete, calendar."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import ColumnElement, Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import selectinload

from bot import timeutil
from bot.ids import parse_id
from bot.services.config.guild import get_config
from bot.services.sessions.events import Zones
from bot.services.sessions.info import CANCELLED, SCHEDULED, SessionInfo, session_info
from bot.services.sessions.rules import MAX_DURATION
from bot.services.sessions.store import get_session
from bot.text import CHOICE_NAME_LIMIT, clamp_page, cut, page_count
from db.models import ClubSession, SessionPaper

Store = async_sessionmaker[AsyncSession]
MAX_CHOICES = 25


def _filters(guild_id: int, include_cancelled: bool, needle: str | None) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = [ClubSession.guild_id == guild_id]
    if not include_cancelled:
        conditions.append(ClubSession.status == SCHEDULED)
    if needle:
        conditions.append(func.lower(ClubSession.title).contains(needle.casefold(), autoescape=True))
    return conditions


def _ends(row: Any) -> datetime:
    return row.starts_at + timedelta(minutes=row.duration_minutes)


def _started(now: datetime) -> tuple[ColumnElement[bool], ...]:
    """Sessions that have started and may still run (none lasts over MAX_DURATION)."""
    return ClubSession.starts_at > now - timedelta(minutes=MAX_DURATION), ClubSession.starts_at <= now


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
        result = await session.execute(q.order_by(ClubSession.starts_at, ClubSession.id))
        return list(result.scalars().all() if entities else result.all())

    running = [row for row in await run(query.where(*conditions, *_started(now))) if _ends(row) > now]
    head = running[offset : offset + limit]
    remaining = limit - len(head)
    if remaining <= 0:
        return head
    tail = await run(
        query.where(*conditions, ClubSession.starts_at > now)
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
    """Sessions not yet over, in progress first, then soonest first (cancelled ones too for the .ics: calendars drop them)."""
    query = select(ClubSession).options(selectinload(ClubSession.papers))
    conditions = _filters(guild_id, include_cancelled, None)
    rows = await _upcoming_rows(session, query, conditions, now, limit=limit, offset=offset, entities=True)
    return [session_info(row) for row in rows]


async def count_upcoming(session: AsyncSession, guild_id: int, now: datetime) -> int:
    """How many sessions are running or still to come."""
    conditions = _filters(guild_id, False, None)
    columns = select(ClubSession.starts_at, ClubSession.duration_minutes)
    running = (await session.execute(columns.where(*conditions, *_started(now)))).all()
    future = await session.scalar(
        select(func.count()).select_from(ClubSession).where(*conditions, ClubSession.starts_at > now)
    )
    return sum(1 for row in running if _ends(row) > now) + int(future or 0)


@dataclass(frozen=True)
class ListPage:
    """One page of the upcoming sessions."""

    sessions: list[SessionInfo]
    zones: Zones
    total: int
    page: int
    pages: int


async def upcoming_page(factory: Store, guild_id: int, now: datetime, page: int, per_page: int) -> ListPage:
    """The page (clamped to the pages there are) of the sessions not yet over."""
    async with factory() as session:
        zones = (await get_config(session, guild_id)).display_zones
        total = await count_upcoming(session, guild_id, now)
        pages = page_count(total, per_page)
        page = clamp_page(page, pages)
        infos = await list_upcoming(session, guild_id, now, limit=per_page, offset=page * per_page)
    return ListPage(infos, zones, total, page, pages)


async def session_with_zones(factory: Store, guild_id: int, session_id: int) -> tuple[SessionInfo, Zones]:
    """The guild's session (NotFound otherwise) and the zones the server shows times in."""
    async with factory() as session:
        zones = (await get_config(session, guild_id)).display_zones
        return await get_session(session, guild_id, session_id), zones


async def channels_in_use(factory: Store, guild_id: int, now: datetime) -> list[int]:
    """The voice and stage channels the guild's sessions still to start are held in (for /setup show)."""
    async with factory() as session:
        rows = await session.scalars(
            select(ClubSession.channel_id)
            .where(
                ClubSession.guild_id == guild_id,
                ClubSession.status == SCHEDULED,
                ClubSession.starts_at > now,
                ClubSession.channel_id.is_not(None),
            )
            .distinct()
        )
        return sorted(channel_id for channel_id in rows if channel_id is not None)


async def announced_with_papers(
    session: AsyncSession, guild_id: int, paper_ids: Sequence[int], now: datetime
) -> list[SessionInfo]:
    """The guild's announced sessions still to come that read any of these papers (past posts are left)."""
    if not paper_ids:
        return []
    rows = await session.scalars(
        select(ClubSession)
        .where(
            ClubSession.guild_id == guild_id,
            ClubSession.announcement_message_id.is_not(None),
            ClubSession.status == SCHEDULED,
            ClubSession.starts_at >= now,
            ClubSession.id.in_(
                select(SessionPaper.session_id).where(SessionPaper.paper_id.in_(list(paper_ids)))
            ),
        )
        .order_by(ClubSession.id)
        .options(selectinload(ClubSession.papers))
        .execution_options(populate_existing=True)
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
    session: AsyncSession, guild_id: int, now: datetime, current: str, zone: str
) -> list[tuple[str, int]]:
    """Autocomplete for a `session` option: upcoming, then recent; by title (any case) or id."""
    tz = timeutil.resolve_timezone(zone)
    typed = current.strip()
    typed_id = parse_id(typed)
    columns = select(
        ClubSession.id,
        ClubSession.title,
        ClubSession.starts_at,
        ClubSession.status,
        ClubSession.duration_minutes,
    )
    found: list[Any] = []
    if typed_id is not None:
        where_id = columns.where(ClubSession.guild_id == guild_id, ClubSession.id == typed_id)
        found.extend((await session.execute(where_id)).all())
    needle = None if typed_id is not None else typed.lstrip("#").strip() or None
    conditions = _filters(guild_id, True, needle)
    found += await _upcoming_rows(
        session, columns, conditions, now, limit=MAX_CHOICES, offset=0, entities=False
    )
    if len(found) < MAX_CHOICES:
        recent = (
            columns.where(*conditions, ClubSession.starts_at <= now)
            .order_by(ClubSession.starts_at.desc(), ClubSession.id.desc())
            .limit(MAX_CHOICES)
        )
        found.extend((await session.execute(recent)).all())
    rows: dict[int, Any] = {}
    for row in found:
        rows.setdefault(row.id, row)
    choices = [(choice_name(r.id, r.title, r.starts_at, tz, r.status), r.id) for r in rows.values()]
    return choices[:MAX_CHOICES]
