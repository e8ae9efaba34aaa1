"""The changes organizers make to a series (skip, unskip, move, edit, end), each in the caller's transaction,
each giving the :class:`~bot.services.series.info.Changes` for Discord to follow."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.errors import BadInput, Conflict
from bot.services.series import rules
from bot.services.series.drafts import RuleEdit
from bot.services.series.info import Changes, series_rule
from bot.services.series.rules import Rule
from bot.services.series.weeks import (
    fill_weeks,
    insert_week,
    link_session,
    reinstate,
    week_of_session,
    week_session,
)
from bot.services.sessions import store as sessions
from bot.services.sessions.draft import SessionChanges
from bot.services.sessions.info import CANCELLED, SCHEDULED
from bot.text import clean_line, cut
from db.models import ClubSession
from db.models.series import (
    WEEK_SCHEDULED,
    WEEK_SKIPPED,
    Series,
    SeriesWeek,
)

SKIPPED_NOTE = "This week is skipped."
NO_LONGER = "The series no longer meets that week."
ENDED = "The series has ended."


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
        await insert_week(session, row, day, now, status=WEEK_SKIPPED, reason=reason)
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
        reinstate(club, now)
        changes.saved.append(club.id)
    elif club is None and day in rule.horizon(now, horizon_weeks):
        session_id = await week_session(session, row, rule.start_on(day), now)
        await link_session(session, week, session_id, now)
        changes.saved.append(session_id)
    row.sequence += 1
    row.updated_at = now
    await session.flush()
    return changes


async def move_week(
    session: AsyncSession, row: Series, day: date, when: str, now: datetime
) -> tuple[Changes, datetime]:
    """One week at another time or day (``when`` read by :func:`rules.read_move`): its session moves, or
    is made there; the changes and the new start."""
    rule = series_rule(row)
    rule.require_week(day)
    week = await _week(session, row.id, day)
    club = await _club(session, week)
    _not_past(club.starts_at if club is not None else rule.start_on(day), day, now)
    if week is not None and week.status == WEEK_SKIPPED:
        raise Conflict(f"{rules.long_date(day)} is skipped; `/series unskip` it first, then move it.")
    start = rules.read_move(when, day, rule, now)
    if week is None:
        week = await insert_week(session, row, day, now)
        if week is None:
            raise Conflict("That week was just added by someone else; try again.")
    if club is None:
        session_id = await week_session(session, row, start, now)
        await link_session(session, week, session_id, now)
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
    """Apply a checked rule edit: weeks not yet begun follow the new rule (moved weeks keep their time, a
    week it no longer meets in is dropped); past weeks never change."""
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
                    f"The week of {rules.long_date(week.week_date)} was moved to "
                    f"{rules.long_date(club.starts_at.astimezone(old.tz).date())}, so it stays as a session of its "
                    f"own (#{club.id})."
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
    regular = [day for day in rule.dates(rule.anchor, rule.today(now)) if rule.start_on(day) <= now]
    found = begun + regular
    return max(found) if found else None


async def end_series(session: AsyncSession, row: Series, after: date | None, now: datetime) -> Changes:
    """End the series after ``after`` (default: after the last week that has begun): the weeks after it
    are dropped and their sessions cancelled."""
    rule = series_rule(row)
    today = rule.today(now)
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
