"""A series' weeks in the store (one row per series and date, written with ``insert_ignore``), and as shown."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from sqlalchemy import exists, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from bot import timeutil
from bot.errors import NotFound
from bot.papers import normalize_title
from bot.services.series import rules
from bot.services.series.info import SeriesInfo, WeekInfo, series_info, series_rule
from bot.services.series.store import get_series
from bot.services.sessions import store as sessions
from bot.services.sessions.info import CANCELLED, SCHEDULED, session_info
from bot.services.sessions.rules import Place, new_session
from db.base import insert_ignore
from db.models import ClubSession
from db.models.series import WEEK_SCHEDULED, WEEK_SKIPPED, Series, SeriesWeek


async def insert_week(
    session: AsyncSession,
    row: Series,
    day: date,
    now: datetime,
    *,
    status: str = WEEK_SCHEDULED,
    reason: str | None = None,
) -> SeriesWeek | None:
    """Insert the week if absent; None when it exists already (made meanwhile by another process)."""
    values = {
        "series_id": row.id,
        "guild_id": row.guild_id,
        "week_date": day,
        "status": status,
        "skip_reason": reason,
        "created_at": now,
        "updated_at": now,
    }
    statement = insert_ignore(session, SeriesWeek, values, keys=["series_id", "week_date"]).returning(
        SeriesWeek.id
    )
    new_id = (await session.execute(statement)).scalar_one_or_none()
    return None if new_id is None else await session.get(SeriesWeek, new_id)


async def find_week(session: AsyncSession, series_id: int, day: date) -> SeriesWeek | None:
    """The series' week on ``day``, read fresh."""
    query = select(SeriesWeek).where(SeriesWeek.series_id == series_id, SeriesWeek.week_date == day)
    return await session.scalar(query.execution_options(populate_existing=True))


async def keep_skipped(
    session: AsyncSession, row: Series, day: date, reason: str | None, now: datetime
) -> bool:
    """Record a week as skipped, past or coming (the programme file's record); True when it changed."""
    week = await find_week(session, row.id, day)
    if week is None:
        return await insert_week(session, row, day, now, status=WEEK_SKIPPED, reason=reason) is not None
    if (week.status, week.skip_reason) == (WEEK_SKIPPED, reason):
        return False
    week.status, week.skip_reason, week.updated_at = WEEK_SKIPPED, reason, now
    return True


async def keep_week_session(
    session: AsyncSession, row: Series, day: date, session_id: int, now: datetime
) -> bool:
    """Make ``session_id`` the session of the series' week ``day`` (made if absent); True when it changed."""
    week = await find_week(session, row.id, day) or await insert_week(session, row, day, now)
    if week is None or week.session_id == session_id:
        return False
    await link_session(session, week, session_id, now)
    return True


def reinstate(club: ClubSession, now: datetime) -> None:
    """A cancelled week's session scheduled again: a new Discord event (the old one stays cancelled)."""
    club.status, club.cancel_reason, club.event_id = SCHEDULED, None, None
    club.sequence += 1
    club.updated_at = now


async def week_session(
    session: AsyncSession, row: Series, week: SeriesWeek, start: datetime, now: datetime
) -> int:
    """Link the week to its session: one of the series' name at that time with no week of its own, else a new one."""
    linked = exists().where(SeriesWeek.session_id == ClubSession.id)
    candidates = await session.scalars(
        select(ClubSession).where(
            ClubSession.guild_id == row.guild_id, ClubSession.starts_at == start, ~linked
        )
    )
    for club in candidates:
        if normalize_title(club.title) == normalize_title(row.name):
            if club.status == CANCELLED:
                reinstate(club, now)
            await link_session(session, week, club.id, now)
            return club.id
    draft = new_session(
        title=row.name,
        when=start,
        zone=row.timezone,
        default_zone=row.timezone,
        now=now,
        signup_url=row.signup_url,
        duration=row.duration_minutes,
        description=row.description,
        channel=Place(row.channel_id, row.channel_name) if row.channel_id is not None else None,
    )
    created = await sessions.create_session(session, row.guild_id, draft, created_by=row.created_by, now=now)
    await link_session(session, week, created.info.id, now)
    return created.info.id


async def link_session(session: AsyncSession, week: SeriesWeek, session_id: int, now: datetime) -> None:
    """Link a week to its session."""
    await session.execute(
        update(SeriesWeek)
        .where(SeriesWeek.id == week.id)
        .values(session_id=session_id, updated_at=now)
        .execution_options(synchronize_session=False)
    )
    week.session_id = session_id


async def fill_weeks(session: AsyncSession, row: Series, now: datetime, horizon_weeks: int) -> list[int]:
    """Give every week of the horizon its row and its session, where missing (idempotent); the sessions made."""
    rule = series_rule(row)
    wanted = rule.horizon(now, horizon_weeks)
    if not wanted:
        return []
    existing = {
        week.week_date: week
        for week in await session.scalars(
            select(SeriesWeek)
            .where(SeriesWeek.series_id == row.id, SeriesWeek.week_date.in_(wanted))
            .execution_options(populate_existing=True)
        )
    }
    made: list[int] = []
    for day in wanted:
        week = existing.get(day)
        if week is None:
            week = await insert_week(session, row, day, now)
            if week is None:
                continue  # made meanwhile by another process, with its session
        elif week.status != WEEK_SCHEDULED or week.session_id is not None:
            continue
        made.append(await week_session(session, row, week, rule.start_on(day), now))
    await session.flush()
    return made


async def stored_weeks(
    session: AsyncSession, series_id: int, since: date | None = None
) -> tuple[list[SeriesWeek], dict[int | None, ClubSession]]:
    """The series' stored weeks (from ``since``), by date, and their sessions (papers loaded) by id."""
    query = select(SeriesWeek).where(SeriesWeek.series_id == series_id).order_by(SeriesWeek.week_date)
    if since is not None:
        query = query.where(SeriesWeek.week_date >= since)
    weeks = list(await session.scalars(query.execution_options(populate_existing=True)))
    clubs = await session.scalars(
        select(ClubSession)
        .where(ClubSession.id.in_([w.session_id for w in weeks if w.session_id is not None]))
        .options(selectinload(ClubSession.papers))
        .execution_options(populate_existing=True)
    )
    return weeks, {club.id: club for club in clubs}


async def weeks_view(
    session: AsyncSession, info: SeriesInfo, now: datetime, horizon_weeks: int, *, since: date | None = None
) -> list[WeekInfo]:
    """The series' coming weeks and the horizon's, soonest first; with ``since``, every stored week from then."""
    rule = info.rule
    rows, clubs = await stored_weeks(session, info.id, since or rule.today(now) - timedelta(days=1))
    weeks: dict[date, WeekInfo] = {}
    for week in rows:
        club = session_info(found) if (found := clubs.get(week.session_id)) is not None else None
        regular = rule.start_on(week.week_date)
        if week.week_date < rule.anchor and club is not None:
            regular = club.starts_at  # a week before the last /organize series edit: as it was held
        ends = club.ends_at if club is not None else regular + timedelta(minutes=info.duration_minutes)
        if since is None and ends <= now:
            continue
        weeks[week.week_date] = WeekInfo(week.week_date, week.status, regular, week.skip_reason, club)
    for day in rule.horizon(now, horizon_weeks):
        weeks.setdefault(day, WeekInfo(day, WEEK_SCHEDULED, rule.start_on(day)))
    return [weeks[day] for day in sorted(weeks)]


async def week_of_session(
    session: AsyncSession, guild_id: int, session_id: int
) -> tuple[SeriesInfo, SeriesWeek] | None:
    """The series and week a session belongs to, or None for a session of no series."""
    query = select(SeriesWeek).where(SeriesWeek.session_id == session_id, SeriesWeek.guild_id == guild_id)
    week = (await session.execute(query.execution_options(populate_existing=True))).scalar_one_or_none()
    if week is None:
        return None
    row = await session.get(Series, week.series_id, populate_existing=True)
    assert row is not None
    return series_info(row), week


async def week_choices(
    session: AsyncSession, guild_id: int, ref: str | None, current: str, now: datetime
) -> list[tuple[str, str]]:
    """Autocomplete for a `date` option: the series' coming weeks, 'Thu 10 Dec 2026 · open', value the date."""
    if not ref:
        return []
    try:
        info = await get_series(session, guild_id, ref)
    except NotFound:
        return []
    typed = current.strip().casefold()
    out = []
    for week in await weeks_view(session, info, now, rules.MAX_HORIZON_WEEKS):
        if week.is_skipped:
            state = "skipped" + (f": {week.skip_reason}" if week.skip_reason else "")
        elif week.is_open:
            state = "open"
        elif week.has_presenter and week.session is not None:
            state = week.session.presenter_name or "presenter set"
        else:
            state = "scheduled"
        name = f"{timeutil.short_date(week.week_date, year=True)} · {state}"
        if typed and typed not in name.casefold() and typed not in week.week_date.isoformat():
            continue
        out.append((name[:100], week.week_date.isoformat()))
    return out[:25]
