"""The store side of a series: the guild's settings, creating and finding a series, its weeks in the horizon
(inserted if absent), and each change (skip, unskip, move, edit, end). Everything runs in the caller's one
transaction (``async with bot.session_factory() as s, s.begin():``) and hands back plain values; the
Discord side follows from :class:`~bot.services.series.info.Changes` (cogs/series).

Each week is one row per (series, week date) under a unique constraint, inserted with INSERT … ON CONFLICT
DO NOTHING: two processes filling the same horizon make each week once (on PostgreSQL the second waits for
the first's row and then leaves it), and its session is made in the same transaction as its row.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import exists, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from bot import timeutil
from bot.errors import BadInput, Conflict, NotFound
from bot.ids import leading_id, shown_number
from bot.papers import normalize_title
from bot.services.series import rules
from bot.services.series.info import Changes, SeriesInfo, WeekInfo, series_info, series_rule
from bot.services.series.rules import Rule, RuleEdit, SeriesDraft
from bot.services.sessions import store as sessions
from bot.services.sessions.draft import SessionChanges, new_session
from bot.services.sessions.info import CANCELLED, SCHEDULED, session_info
from bot.text import clean_line, cut
from db.models import ClubSession
from db.models.series import (
    DEFAULT_HORIZON_WEEKS,
    DEFAULT_NUDGE_DAYS,
    WEEK_SCHEDULED,
    WEEK_SKIPPED,
    Series,
    SeriesSettings,
    SeriesWeek,
)

SKIPPED_NOTE = "This week is skipped."
NO_LONGER = "The series no longer meets that week."
ENDED = "The series has ended."

# ---------------------------------------------------------------- settings


@dataclass(frozen=True)
class Settings:
    guild_id: int
    horizon_weeks: int = DEFAULT_HORIZON_WEEKS
    nudge_days: int = DEFAULT_NUDGE_DAYS
    organizer_thread_id: int | None = None


async def get_settings(session: AsyncSession, guild_id: int) -> Settings:
    row = await session.get(SeriesSettings, guild_id)
    if row is None:
        return Settings(guild_id)
    return Settings(guild_id, row.horizon_weeks, row.nudge_days, row.organizer_thread_id)


async def _settings_row(session: AsyncSession, guild_id: int, now: datetime) -> SeriesSettings:
    row = await session.get(SeriesSettings, guild_id)
    if row is None:
        row = SeriesSettings(
            guild_id=guild_id,
            horizon_weeks=DEFAULT_HORIZON_WEEKS,
            nudge_days=DEFAULT_NUDGE_DAYS,
            created_at=now,
            updated_at=now,
        )
        session.add(row)
    return row


async def set_horizon(session: AsyncSession, guild_id: int, weeks: int, now: datetime) -> Settings:
    """Weeks ahead that each series has its sessions (and Discord events), within the server's budget."""
    rules.check_horizon(weeks)
    held = sum(
        rules.weeks_held(weeks, info.rule.interval) for info in await active_series(session, guild_id, now)
    )
    if held > rules.EVENT_BUDGET:
        raise Conflict(
            f"With {weeks} weeks ahead this server's series would hold {held} weeks, each with its Discord "
            f"event; the bot keeps to {rules.EVENT_BUDGET} (Discord allows 100 upcoming events per server). "
            "Pick fewer weeks, or end a series first."
        )
    row = await _settings_row(session, guild_id, now)
    row.horizon_weeks, row.updated_at = weeks, now
    await session.flush()
    return await get_settings(session, guild_id)


async def set_nudge_days(session: AsyncSession, guild_id: int, days: int, now: datetime) -> Settings:
    rules.check_nudge_days(days)
    row = await _settings_row(session, guild_id, now)
    row.nudge_days, row.updated_at = days, now
    await session.flush()
    return await get_settings(session, guild_id)


async def set_organizer_thread(
    session: AsyncSession, guild_id: int, thread_id: int | None, now: datetime, *, replacing: int | None
) -> bool:
    """Record the organizers' thread, only if the stored one is still ``replacing`` (None: none yet); False
    when another process recorded one meanwhile (use theirs)."""
    await _settings_row(session, guild_id, now)
    await session.flush()
    condition = (
        SeriesSettings.organizer_thread_id.is_(None)
        if replacing is None
        else SeriesSettings.organizer_thread_id == replacing
    )
    done = await session.execute(
        update(SeriesSettings)
        .where(SeriesSettings.guild_id == guild_id, condition)
        .values(organizer_thread_id=thread_id, updated_at=now)
        .execution_options(synchronize_session=False)
    )
    return int(getattr(done, "rowcount", 0) or 0) == 1


# ---------------------------------------------------------------- finding a series


def _today(rule: Rule, now: datetime) -> date:
    return now.astimezone(rule.tz).date()


async def load_series(session: AsyncSession, guild_id: int, ref: str | int) -> Series:
    """The guild's series named by ``ref``: its number ('3', '#3', an autocomplete value) or its name (any
    case). NotFound for another server's series, as for one that does not exist."""
    text = str(ref).strip()
    number = ref if isinstance(ref, int) else leading_id(text)
    if number is not None:
        row = await session.get(Series, number, populate_existing=True)
        if row is not None and row.guild_id == guild_id:
            return row
    key = rules.name_key(text)
    row = (
        await session.execute(
            select(Series)
            .where(Series.guild_id == guild_id, Series.name_key == key)
            .execution_options(populate_existing=True)
        )
    ).scalar_one_or_none()
    if row is not None:
        return row
    if number is not None:
        raise NotFound(f"There is no series #{shown_number(number)} in this server.")
    shown = clean_line(text)[:60] or "(empty)"
    raise NotFound(f"There is no series called “{shown}” in this server; `/series list` shows them.")


async def get_series(session: AsyncSession, guild_id: int, ref: str | int) -> SeriesInfo:
    return series_info(await load_series(session, guild_id, ref))


async def list_series(session: AsyncSession, guild_id: int) -> list[SeriesInfo]:
    rows = await session.scalars(select(Series).where(Series.guild_id == guild_id).order_by(Series.name_key))
    return [series_info(row) for row in rows]


async def active_series(session: AsyncSession, guild_id: int | None, now: datetime) -> list[SeriesInfo]:
    """Series that have not ended (all guilds when ``guild_id`` is None)."""
    query = select(Series).order_by(Series.guild_id, Series.id)
    if guild_id is not None:
        query = query.where(Series.guild_id == guild_id)
    infos = [series_info(row) for row in await session.scalars(query)]
    return [info for info in infos if not info.has_ended(_today(info.rule, now))]


async def series_choices(session: AsyncSession, guild_id: int, current: str) -> list[tuple[str, str]]:
    """Autocomplete for a `series` option: '#1 · Thursday paper club · Thursdays 9:30 AM', value the id."""
    typed = rules.name_key(current.lstrip("#"))
    out = []
    for info in await list_series(session, guild_id):
        if typed and typed not in rules.name_key(info.name) and typed != str(info.id):
            continue
        when = (
            f"{rules.weekday_name(info.rule.weekday, plural=True)} {timeutil.format_clock(info.rule.start)}"
        )
        out.append((f"#{info.id} · {info.name} · {when}"[:100], str(info.id)))
    return out[:25]


# ---------------------------------------------------------------- creating, and the weeks ahead


async def create_series(
    session: AsyncSession, guild_id: int, draft: SeriesDraft, *, created_by: int | None, now: datetime
) -> Series:
    """Store a checked new series (its weeks come from :func:`fill_weeks`). Conflict for a second series of
    the same name, or when the server's series would hold more weeks ahead than its event budget."""
    existing = (
        await session.execute(
            select(Series.id, Series.name).where(Series.guild_id == guild_id, Series.name_key == draft.key)
        )
    ).first()
    if existing is not None:
        raise Conflict(
            f"There is already a series called “{existing.name}” (#{existing.id}); pick another name, or "
            "change that one with `/series edit`."
        )
    settings = await get_settings(session, guild_id)
    held = sum(
        rules.weeks_held(settings.horizon_weeks, info.rule.interval)
        for info in await active_series(session, guild_id, now)
    ) + rules.weeks_held(settings.horizon_weeks, draft.rule.interval)
    if held > rules.EVENT_BUDGET:
        raise Conflict(
            f"This server's series would hold {held} weeks ahead, each with its Discord event; the bot keeps "
            f"to {rules.EVENT_BUDGET} (Discord allows 100 upcoming events per server). End a series first, "
            "or keep fewer weeks ahead with `/setup series_horizon`."
        )
    rule = draft.rule
    row = Series(
        guild_id=guild_id,
        name=draft.name,
        name_key=draft.key,
        weekday=rule.weekday,
        start_time=rule.start.strftime("%H:%M"),
        timezone=rule.zone,
        interval=rule.interval,
        first_date=rule.anchor,
        anchor_date=rule.anchor,
        until_date=rule.until,
        duration_minutes=draft.duration_minutes,
        signup_url=draft.signup_url,
        description=draft.description,
        sequence=0,
        created_by=created_by,
        created_at=now,
        updated_at=now,
    )
    session.add(row)
    try:
        async with session.begin_nested():
            await session.flush()
    except IntegrityError:
        raise Conflict(f"A series called “{draft.name}” was just added.") from None
    return row


def _insert(session: AsyncSession) -> Any:
    return pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert


async def _insert_week(
    session: AsyncSession,
    row: Series,
    day: date,
    now: datetime,
    *,
    status: str = WEEK_SCHEDULED,
    reason: str | None = None,
) -> SeriesWeek | None:
    """Insert the week if absent; None when it exists already (made meanwhile by another process)."""
    statement = (
        _insert(session)(SeriesWeek)
        .values(
            series_id=row.id,
            guild_id=row.guild_id,
            week_date=day,
            status=status,
            skip_reason=reason,
            created_at=now,
            updated_at=now,
        )
        .on_conflict_do_nothing(index_elements=["series_id", "week_date"])
        .returning(SeriesWeek.id)
    )
    new_id = (await session.execute(statement)).scalar_one_or_none()
    return None if new_id is None else await session.get(SeriesWeek, new_id)


def _reinstate(club: ClubSession, now: datetime) -> None:
    """A cancelled week's session scheduled again: a new Discord event (the old one stays cancelled)."""
    club.status, club.cancel_reason, club.event_id = SCHEDULED, None, None
    club.sequence += 1
    club.updated_at = now


async def _week_session(session: AsyncSession, row: Series, start: datetime, now: datetime) -> int:
    """The week's session: one already there with the series' name at that time and no week of its own (e.g.
    imported, or cancelled when the series stopped meeting that week), else a new one titled with the name."""
    linked = exists().where(SeriesWeek.session_id == ClubSession.id)
    candidates = await session.scalars(
        select(ClubSession).where(
            ClubSession.guild_id == row.guild_id, ClubSession.starts_at == start, ~linked
        )
    )
    for club in candidates:
        if normalize_title(club.title) == normalize_title(row.name):
            if club.status == CANCELLED:
                _reinstate(club, now)
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
    )
    created = await sessions.create_session(session, row.guild_id, draft, created_by=row.created_by, now=now)
    return created.info.id


async def _link(session: AsyncSession, week: SeriesWeek, session_id: int, now: datetime) -> None:
    await session.execute(
        update(SeriesWeek)
        .where(SeriesWeek.id == week.id)
        .values(session_id=session_id, updated_at=now)
        .execution_options(synchronize_session=False)
    )
    week.session_id = session_id


async def fill_weeks(session: AsyncSession, row: Series, now: datetime, horizon_weeks: int) -> list[int]:
    """Give every week of the horizon its row and its session, where missing; the sessions made (or taken
    over), to publish. Idempotent: run it any number of times, from any number of processes."""
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
            week = await _insert_week(session, row, day, now)
            if week is None:
                continue  # made meanwhile by another process, with its session
        elif week.status != WEEK_SCHEDULED or week.session_id is not None:
            continue
        session_id = await _week_session(session, row, rule.start_on(day), now)
        await _link(session, week, session_id, now)
        made.append(session_id)
    await session.flush()
    return made


# ---------------------------------------------------------------- the weeks as shown


async def _sessions_by_id(session: AsyncSession, ids: list[int]) -> dict[int, Any]:
    if not ids:
        return {}
    rows = await session.scalars(
        select(ClubSession)
        .where(ClubSession.id.in_(ids))
        .options(selectinload(ClubSession.papers))
        .execution_options(populate_existing=True)
    )
    return {club.id: session_info(club) for club in rows}


async def weeks_view(
    session: AsyncSession, info: SeriesInfo, now: datetime, horizon_weeks: int, *, since: date | None = None
) -> list[WeekInfo]:
    """The series' coming weeks, soonest first: every stored week not yet over (a skipped one beyond the
    horizon included), and the horizon's dates not stored yet (the daily job is about to add them). With
    ``since``, every stored week from that date (the calendar's)."""
    rule = info.rule
    today = _today(rule, now)
    first = since if since is not None else today - timedelta(days=1)
    rows = list(
        await session.scalars(
            select(SeriesWeek)
            .where(SeriesWeek.series_id == info.id, SeriesWeek.week_date >= first)
            .order_by(SeriesWeek.week_date)
            .execution_options(populate_existing=True)
        )
    )
    by_id = await _sessions_by_id(session, [w.session_id for w in rows if w.session_id is not None])
    weeks: dict[date, WeekInfo] = {}
    for week in rows:
        club = by_id.get(week.session_id) if week.session_id is not None else None
        regular = rule.start_on(week.week_date)
        if week.week_date < rule.anchor and club is not None:
            regular = club.starts_at  # a week of the rule before the last /series edit: as it was held
        view = WeekInfo(
            series_id=info.id,
            week_date=week.week_date,
            status=week.status,
            regular_start=regular,
            skip_reason=week.skip_reason,
            session=club,
        )
        ends = (
            club.ends_at
            if club is not None
            else view.regular_start + timedelta(minutes=info.duration_minutes)
        )
        if since is None and ends <= now:
            continue
        weeks[week.week_date] = view
    for day in rule.horizon(now, horizon_weeks):
        weeks.setdefault(day, WeekInfo(info.id, day, WEEK_SCHEDULED, rule.start_on(day)))
    return [weeks[day] for day in sorted(weeks)]


async def week_of_session(
    session: AsyncSession, guild_id: int, session_id: int
) -> tuple[SeriesInfo, SeriesWeek] | None:
    """The series and week a session belongs to, or None for a session of no series."""
    week = (
        await session.execute(
            select(SeriesWeek)
            .where(SeriesWeek.session_id == session_id, SeriesWeek.guild_id == guild_id)
            .execution_options(populate_existing=True)
        )
    ).scalar_one_or_none()
    if week is None:
        return None
    row = await session.get(Series, week.series_id, populate_existing=True)
    assert row is not None
    return series_info(row), week


async def week_choices(
    session: AsyncSession, guild_id: int, ref: str | None, current: str, now: datetime, horizon_weeks: int
) -> list[tuple[str, str]]:
    """Autocomplete for a `date` option: the series' coming weeks, 'Thu 10 Dec 2026 · open', value the ISO
    date (typing filters them)."""
    if not ref:
        return []
    try:
        info = await get_series(session, guild_id, ref)
    except NotFound:
        return []
    typed = current.strip().casefold()
    out = []
    for week in await weeks_view(session, info, now, max(horizon_weeks, 12)):
        if week.is_skipped:
            state = "skipped" + (f": {week.skip_reason}" if week.skip_reason else "")
        elif week.is_open:
            state = "open"
        elif week.has_presenter and week.session is not None:
            state = f"{week.session.presenter_name or 'presenter set'}"
        else:
            state = "scheduled"
        name = f"{rules.short_date(week.week_date, year=True)} · {state}"
        if typed and typed not in name.casefold() and typed not in week.week_date.isoformat():
            continue
        out.append((name[:100], week.week_date.isoformat()))
    return out[:25]


# ---------------------------------------------------------------- changes


async def _week(session: AsyncSession, series_id: int, day: date) -> SeriesWeek | None:
    return (
        await session.execute(
            select(SeriesWeek)
            .where(SeriesWeek.series_id == series_id, SeriesWeek.week_date == day)
            .execution_options(populate_existing=True)
        )
    ).scalar_one_or_none()


async def _club(session: AsyncSession, week: SeriesWeek | None) -> ClubSession | None:
    if week is None or week.session_id is None:
        return None
    return await session.get(ClubSession, week.session_id, populate_existing=True)


def _not_past(start: datetime, day: date, now: datetime) -> None:
    if start <= now:
        raise BadInput(
            f"The week of {rules.long_date(day)} has already begun or taken place; pick a coming week."
        )


async def skip_week(
    session: AsyncSession, row: Series, day: date, reason: str | None, now: datetime
) -> Changes:
    """Skip one coming week: its session (if it has one yet) is cancelled with the reason."""
    rule = series_rule(row)
    rule.require_week(day)
    week = await _week(session, row.id, day)
    club = await _club(session, week)
    _not_past(club.starts_at if club is not None else rule.start_on(day), day, now)
    if week is not None and week.status == WEEK_SKIPPED:
        raise Conflict(f"{rules.long_date(day)} is already skipped.")
    changes = Changes()
    if week is None:
        await _insert_week(session, row, day, now, status=WEEK_SKIPPED, reason=reason)
    else:
        week.status, week.skip_reason, week.updated_at = WEEK_SKIPPED, reason, now
        if club is not None and club.status == SCHEDULED:
            await sessions.cancel_session(
                session, row.guild_id, club.id, reason=reason or SKIPPED_NOTE, now=now
            )
            changes.cancelled.append(club.id)
    row.sequence += 1
    row.updated_at = now
    await session.flush()
    return changes


async def unskip_week(
    session: AsyncSession, row: Series, day: date, now: datetime, horizon_weeks: int
) -> Changes:
    """Meet again on a skipped week: its cancelled session is scheduled again (or made, in the horizon)."""
    rule = series_rule(row)
    rule.require_week(day)
    week = await _week(session, row.id, day)
    if week is None or week.status != WEEK_SKIPPED:
        raise BadInput(f"{rules.long_date(day)} is not skipped.")
    club = await _club(session, week)
    _not_past(club.starts_at if club is not None else rule.start_on(day), day, now)
    week.status, week.skip_reason, week.updated_at = WEEK_SCHEDULED, None, now
    changes = Changes()
    if club is not None and club.status == CANCELLED:
        _reinstate(club, now)
        changes.saved.append(club.id)
    elif club is None and day in rule.horizon(now, horizon_weeks):
        session_id = await _week_session(session, row, rule.start_on(day), now)
        await _link(session, week, session_id, now)
        changes.saved.append(session_id)
    row.sequence += 1
    row.updated_at = now
    await session.flush()
    return changes


async def move_week(
    session: AsyncSession, row: Series, day: date, when: str, now: datetime
) -> tuple[Changes, datetime]:
    """One week at another time (or day): its session moves, or is made at that time (a week beyond the
    horizon). ``when`` is read by :func:`rules.read_move` (a time alone is that time on the week's day),
    once the week is known to be one that can move. Gives the changes and the new start."""
    rule = series_rule(row)
    rule.require_week(day)
    week = await _week(session, row.id, day)
    club = await _club(session, week)
    _not_past(club.starts_at if club is not None else rule.start_on(day), day, now)
    if week is not None and week.status == WEEK_SKIPPED:
        raise Conflict(f"{rules.long_date(day)} is skipped; `/series unskip` it first, then move it.")
    start = rules.read_move(when, day, rule, now)
    if week is None:
        week = await _insert_week(session, row, day, now)
        if week is None:
            raise Conflict("That week was just added by someone else; try again.")
    if club is None:
        session_id = await _week_session(session, row, start, now)
        await _link(session, week, session_id, now)
    else:
        edit = await sessions.edit_session(
            session, row.guild_id, club.id, SessionChanges(starts_at=start), now=now
        )
        session_id = edit.info.id
    row.sequence += 1
    row.updated_at = now
    await session.flush()
    return Changes(saved=[session_id]), start


def _same_week(day: date, rule: Rule) -> date:
    """The rule's weekday in the Monday-to-Sunday week of ``day``."""
    return day - timedelta(days=day.weekday()) + timedelta(days=rule.weekday)


async def edit_series(
    session: AsyncSession, row: Series, edit: RuleEdit, now: datetime, horizon_weeks: int
) -> Changes:
    """Apply a checked rule edit. Weeks not yet begun follow: each goes to the new weekday in its own week
    (a week the new rule does not meet in is dropped, its session cancelled), at the new time, unless it
    was moved (it keeps its own time). Past weeks never change."""
    old, new = series_rule(row), edit.rule
    changes = Changes()
    weeks = list(
        await session.scalars(
            select(SeriesWeek)
            .where(SeriesWeek.series_id == row.id)
            .order_by(SeriesWeek.week_date)
            .execution_options(populate_existing=True)
        )
    )
    clubs = {
        club.id: club
        for club in await session.scalars(
            select(ClubSession)
            .where(ClubSession.id.in_([w.session_id for w in weeks if w.session_id is not None]))
            .execution_options(populate_existing=True)
        )
    }

    def starts(week: SeriesWeek) -> datetime:
        club = clubs.get(week.session_id) if week.session_id is not None else None
        return club.starts_at if club is not None else old.start_on(week.week_date)

    future = [week for week in weeks if starts(week) > now]
    taken = {week.week_date for week in weeks}
    row.weekday, row.start_time, row.timezone = new.weekday, new.start.strftime("%H:%M"), new.zone
    row.interval, row.anchor_date, row.until_date = new.interval, new.anchor, new.until
    row.duration_minutes = edit.duration_minutes
    row.sequence += 1
    row.updated_at = now
    await session.flush()
    for week in future:
        club = clubs.get(week.session_id) if week.session_id is not None else None
        moved = club is not None and club.starts_at != old.start_on(week.week_date)
        target = _same_week(week.week_date, new) if edit.moves_weeks else week.week_date
        taken.discard(week.week_date)
        fits = new.meets_on(target) and target not in taken and (moved or new.start_on(target) > now)
        if not fits:
            await session.delete(week)
            await session.flush()
            if club is not None and moved and club.status == SCHEDULED:
                changes.notes.append(
                    f"{rules.long_date(week.week_date)} was moved, so it stays as it is, as a session of its own "
                    f"(#{club.id})."
                )
            elif club is not None and club.status == SCHEDULED:
                await sessions.cancel_session(session, row.guild_id, club.id, reason=NO_LONGER, now=now)
                changes.cancelled.append(club.id)
                changes.notes.append(
                    f"{rules.long_date(week.week_date)} is no longer a week of the series; its session is cancelled."
                )
            continue
        taken.add(target)
        if target != week.week_date:
            week.week_date, week.updated_at = target, now
            await session.flush()
        if club is not None and club.status == SCHEDULED and not moved:
            result = await sessions.edit_session(
                session,
                row.guild_id,
                club.id,
                SessionChanges(
                    starts_at=new.start_on(target), timezone=new.zone, duration_minutes=edit.duration_minutes
                ),
                now=now,
            )
            if result.changed:
                changes.saved.append(club.id)
    changes.saved.extend(await fill_weeks(session, row, now, horizon_weeks))
    await session.flush()
    return changes


def _last_begun(rule: Rule, weeks: list[tuple[date, datetime]], now: datetime) -> date | None:
    begun = [day for day, start in weeks if start <= now]
    regular = [day for day in rule.dates(rule.anchor, _today(rule, now)) if rule.start_on(day) <= now]
    found = begun + regular
    return max(found) if found else None


async def end_series(session: AsyncSession, row: Series, after: date | None, now: datetime) -> Changes:
    """End the series after ``after`` (default: after the last week that has begun): the weeks after it
    are dropped and their sessions cancelled."""
    rule = series_rule(row)
    today = _today(rule, now)
    weeks = list(
        await session.scalars(
            select(SeriesWeek).where(SeriesWeek.series_id == row.id).execution_options(populate_existing=True)
        )
    )
    by_id = {
        club.id: club
        for club in await session.scalars(
            select(ClubSession).where(ClubSession.id.in_([w.session_id for w in weeks if w.session_id]))
        )
    }
    if after is not None:
        if after < today:
            raise BadInput(f"{rules.long_date(after)} has passed; leave `after` out to end the series now.")
        until = after
    else:
        starts = [
            (
                w.week_date,
                by_id[w.session_id].starts_at if w.session_id in by_id else rule.start_on(w.week_date),
            )
            for w in weeks
        ]
        last = _last_begun(rule, starts, now)
        until = last if last is not None else min(rule.anchor, today) - timedelta(days=1)
    if rule.until is not None and rule.until <= until:
        raise Conflict(f"“{row.name}” already ends on {rules.long_date(rule.until)}.")
    changes = Changes()
    for week in sorted(weeks, key=lambda w: w.week_date):
        if week.week_date <= until:
            continue
        club = by_id.get(week.session_id) if week.session_id is not None else None
        await session.delete(week)
        await session.flush()
        if club is not None and club.status == SCHEDULED and club.starts_at > now:
            await sessions.cancel_session(session, row.guild_id, club.id, reason=ENDED, now=now)
            changes.cancelled.append(club.id)
    row.until_date = until
    row.sequence += 1
    row.updated_at = now
    await session.flush()
    return changes


async def record_board(
    session: AsyncSession, row: Series, channel_id: int | None, message_id: int | None
) -> None:
    row.board_channel_id, row.board_message_id = channel_id, message_id
    await session.flush()


async def skip_for_cancelled(session: AsyncSession, guild_id: int, session_id: int, now: datetime) -> bool:
    """A week's session was cancelled with /session cancel: the week is skipped, with its reason. True when
    a week changed."""
    found = await week_of_session(session, guild_id, session_id)
    if found is None or found[1].status != WEEK_SCHEDULED:
        return False
    info, week = found
    club = await session.get(ClubSession, session_id, populate_existing=True)
    if club is None or club.status != CANCELLED:
        return False
    reason = cut(clean_line(club.cancel_reason or ""), rules.MAX_SKIP_REASON) or None  # (up to 500 there)
    week.status, week.skip_reason, week.updated_at = WEEK_SKIPPED, reason, now
    row = await session.get(Series, info.id)
    if row is not None:
        row.sequence += 1
        row.updated_at = now
    await session.flush()
    return True
