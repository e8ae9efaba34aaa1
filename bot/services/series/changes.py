"""What organizers do to a series (add, skip, unskip, move, edit, end): one transaction, then followed on Discord."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.errors import BadInput, Conflict
from bot.services.config.guild import GuildConfig, get_config
from bot.services.series import rules
from bot.services.series.info import Changes, series_info, series_rule
from bot.services.series.publishing import Followed, SeriesContext, follow, organizer_thread
from bot.services.series.store import create_series, get_settings, load_series
from bot.services.series.weeks import (
    fill_weeks,
    find_week,
    insert_week,
    keep_skipped,
    reinstate,
    stored_weeks,
    week_of_session,
    week_session,
)
from bot.services.sessions import store as sessions
from bot.services.sessions.info import CANCELLED, SCHEDULED
from bot.services.sessions.rules import SessionChanges
from bot.text import clean_line, cut
from bot.timeutil import format_long_date as long_date
from db.models import ClubSession
from db.models.series import WEEK_SCHEDULED, WEEK_SKIPPED, Series, SeriesWeek

SKIPPED_NOTE = "This week is skipped."
NO_LONGER = "The series no longer meets that week."
ENDED = "The series has ended."


def _bump(row: Series, now: datetime) -> None:
    row.sequence += 1
    row.updated_at = now


async def add(
    ctx: SeriesContext, guild_id: int, draft: rules.SeriesDraft, *, created_by: int, now: datetime
) -> Followed:
    """/organize series add: the series and its weeks ahead; the organizer joins the organizers' thread."""
    async with ctx.store() as session, session.begin():
        row = await create_series(session, guild_id, draft, created_by=created_by, now=now)
        made = await fill_weeks(session, row, now, (await get_settings(session, guild_id)).horizon_weeks)
        info = series_info(row)
    thread_id = await organizer_thread(ctx, guild_id, now, add_user=created_by)
    followed = await follow(ctx, info, Changes(saved=made), now)
    return replace(followed, made=len(made), thread_id=thread_id)


async def _coming(
    session: AsyncSession, row: Series, day: date, now: datetime, *, skipped: bool = False
) -> tuple[SeriesWeek | None, ClubSession | None]:
    """The week ``day`` and its session; BadInput unless a week of the series (``skipped``), not yet begun."""
    rule = series_rule(row)
    rule.require_week(day)
    week = await find_week(session, row.id, day)
    if skipped and (week is None or week.status != WEEK_SKIPPED):
        raise BadInput(f"{long_date(day)} is not skipped.")
    club = None
    if week is not None and week.session_id is not None:
        club = await session.get(ClubSession, week.session_id, populate_existing=True)
    if (club.starts_at if club is not None else rule.start_on(day)) <= now:
        raise BadInput(f"The week of {long_date(day)} has already begun or taken place; pick a coming week.")
    return week, club


async def skip(
    ctx: SeriesContext, guild_id: int, ref: str, date_text: str, reason: str | None, *, now: datetime
) -> Followed:
    """/organize series skip: one coming week skipped (its session, if it has one yet, cancelled)."""
    done = Changes()
    async with ctx.store() as session, session.begin():
        row = await load_series(session, guild_id, ref)
        day = rules.parse_date(date_text, series_rule(row).tz, now)
        reason = rules.clean_reason(reason)
        week, club = await _coming(session, row, day, now)
        if week is not None and week.status == WEEK_SKIPPED:
            raise Conflict(f"{long_date(day)} is already skipped.")
        await keep_skipped(session, row, day, reason, now)
        if club is not None and club.status == SCHEDULED:
            await sessions.cancel_session(session, guild_id, club.id, reason=reason or SKIPPED_NOTE, now=now)
            done.cancelled.append(club.id)
        _bump(row, now)
        info = series_info(row)
    return replace(await follow(ctx, info, done, now), day=day)


async def unskip(ctx: SeriesContext, guild_id: int, ref: str, date_text: str, *, now: datetime) -> Followed:
    """/organize series unskip: a skipped week meets again (its session scheduled again, or made)."""
    done = Changes()
    async with ctx.store() as session, session.begin():
        row = await load_series(session, guild_id, ref)
        rule = series_rule(row)
        day = rules.parse_date(date_text, rule.tz, now)
        horizon = (await get_settings(session, guild_id)).horizon_weeks
        week, club = await _coming(session, row, day, now, skipped=True)
        assert week is not None
        week.status, week.skip_reason, week.updated_at = WEEK_SCHEDULED, None, now
        if club is not None and club.status == CANCELLED:
            reinstate(club, now)
            done.saved.append(club.id)
        elif club is None and day in rule.horizon(now, horizon):
            done.saved.append(await week_session(session, row, week, rule.start_on(day), now))
        _bump(row, now)
        info = series_info(row)
    return replace(await follow(ctx, info, done, now), day=day)


async def move(
    ctx: SeriesContext, guild_id: int, ref: str, date_text: str, when: str, *, now: datetime
) -> Followed:
    """/organize series move: one week at another time or day (its session moved, or made there)."""
    async with ctx.store() as session, session.begin():
        row = await load_series(session, guild_id, ref)
        rule = series_rule(row)
        day = rules.parse_date(date_text, rule.tz, now)
        week, club = await _coming(session, row, day, now)
        if week is not None and week.status == WEEK_SKIPPED:
            raise Conflict(f"{long_date(day)} is skipped; `/organize series unskip` it first, then move it.")
        start = rules.read_move(when, day, rule, now)
        week = week or await insert_week(session, row, day, now)
        if week is None:
            raise Conflict("That week was just added by someone else; try again.")
        if club is None:
            session_id = await week_session(session, row, week, start, now)
        else:
            changes = SessionChanges(starts_at=start)
            session_id = (await sessions.edit_session(session, guild_id, club.id, changes, now=now)).info.id
        _bump(row, now)
        info = series_info(row)
    return replace(await follow(ctx, info, Changes(saved=[session_id]), now), day=day, start=start)


async def moved_start(
    factory: async_sessionmaker[AsyncSession], guild_id: int, ref: str, week: str, when: str, now: datetime
) -> tuple[datetime, GuildConfig]:
    """Where /organize series move would put the week, and the server's settings to show it in."""
    async with factory() as session:
        config = await get_config(session, guild_id)
        rule = series_rule(await load_series(session, guild_id, ref))
    return rules.read_move(when, rules.parse_date(week, rule.tz, now), rule, now), config


async def edit(ctx: SeriesContext, guild_id: int, ref: str, *, now: datetime, **values: Any) -> Followed:
    """/organize series edit (``values`` as :func:`rules.edit_rule` takes them): the coming weeks follow the rule."""
    done = Changes()
    async with ctx.store() as session, session.begin():
        row = await load_series(session, guild_id, ref)
        old = series_rule(row)
        change = rules.edit_rule(old, row.duration_minutes, now=now, **values)
        if change.changed:
            await _edit(session, row, old, change, now, done)
        info = series_info(row)
    return replace(await follow(ctx, info, done, now), changed=change.changed)


async def _edit(
    session: AsyncSession, row: Series, old: rules.Rule, change: rules.RuleEdit, now: datetime, done: Changes
) -> None:
    new = change.rule
    weeks, clubs = await stored_weeks(session, row.id)
    future = [
        w
        for w in weeks
        if (c.starts_at if (c := clubs.get(w.session_id)) else old.start_on(w.week_date)) > now
    ]
    taken = {week.week_date for week in weeks}
    row.weekday, row.start_time, row.timezone = new.weekday, new.start.strftime("%H:%M"), new.zone
    row.interval, row.anchor_date, row.until_date = new.interval, new.anchor, new.until
    row.duration_minutes = change.duration_minutes
    _bump(row, now)
    await session.flush()
    for week in future:
        club = clubs.get(week.session_id)
        moved = club is not None and club.starts_at != old.start_on(week.week_date)
        target = week.week_date
        if change.changed & rules.MOVES:  # the new weekday in the same Monday-to-Sunday week
            target += timedelta(days=new.weekday - target.weekday())
        taken.discard(week.week_date)
        if not new.meets_on(target) or target in taken or not (moved or new.start_on(target) > now):
            await session.delete(week)
            await session.flush()
            if club is not None and moved and club.status == SCHEDULED:
                was = long_date(club.starts_at.astimezone(old.tz).date())
                done.notes.append(
                    f"The week of {long_date(week.week_date)} was moved to {was}, so it stays as a session of its own."
                )
            elif club is not None and club.status == SCHEDULED:
                await sessions.cancel_session(session, row.guild_id, club.id, reason=NO_LONGER, now=now)
                done.cancelled.append(club.id)
                done.notes.append(
                    f"{long_date(week.week_date)} is no longer a week of the series; its session is cancelled."
                )
            continue
        taken.add(target)
        if target != week.week_date:
            week.week_date, week.updated_at = target, now
            await session.flush()
        if club is not None and club.status == SCHEDULED and not moved:
            changes = SessionChanges(
                starts_at=new.start_on(target), timezone=new.zone, duration_minutes=change.duration_minutes
            )
            if (await sessions.edit_session(session, row.guild_id, club.id, changes, now=now)).changed:
                done.saved.append(club.id)
    horizon = (await get_settings(session, row.guild_id)).horizon_weeks
    done.saved.extend(await fill_weeks(session, row, now, horizon))
    await session.flush()


async def end(ctx: SeriesContext, guild_id: int, ref: str, after: str | None, *, now: datetime) -> Followed:
    """/organize series end: the weeks after ``after`` (default: the last begun) dropped, sessions cancelled."""
    done = Changes()
    async with ctx.store() as session, session.begin():
        row = await load_series(session, guild_id, ref)
        rule = series_rule(row)
        last = rules.parse_date(after, rule.tz, now, what="date") if after else None
        today = rule.today(now)
        weeks, clubs = await stored_weeks(session, row.id)
        if last is not None and last < today:
            raise BadInput(f"{long_date(last)} has passed; leave `after` out to end the series now.")
        if last is None:
            starts = [
                (w.week_date, c.starts_at if (c := clubs.get(w.session_id)) else rule.start_on(w.week_date))
                for w in weeks
            ]
            begun = [day for day, start in starts if start <= now]
            begun += [day for day in rule.dates(rule.anchor, today) if rule.start_on(day) <= now]
            last = max(begun) if begun else min(rule.anchor, today) - timedelta(days=1)
        if rule.until is not None and rule.until <= last:
            raise Conflict(f"“{row.name}” already ends on {long_date(rule.until)}.")
        for week in weeks:
            if week.week_date <= last:
                continue
            club = clubs.get(week.session_id)
            await session.delete(week)
            await session.flush()
            if club is not None and club.status == SCHEDULED and club.starts_at > now:
                await sessions.cancel_session(session, guild_id, club.id, reason=ENDED, now=now)
                done.cancelled.append(club.id)
        row.until_date = last
        _bump(row, now)
        info = series_info(row)
    return replace(await follow(ctx, info, done, now), dropped=len(done.cancelled))


async def skip_for_cancelled(session: AsyncSession, guild_id: int, session_id: int, now: datetime) -> bool:
    """A week's session was cancelled: the week is skipped, with its reason; True when a week changed."""
    found = await week_of_session(session, guild_id, session_id)
    if found is None or found[1].status != WEEK_SCHEDULED:
        return False
    info, week = found
    club = await session.get(ClubSession, session_id, populate_existing=True)
    if club is None or club.status != CANCELLED:
        return False
    reason = cut(clean_line(club.cancel_reason or ""), rules.MAX_SKIP_REASON) or None  # (up to 500 there)
    week.status, week.skip_reason, week.updated_at = WEEK_SKIPPED, reason, now
    if (row := await session.get(Series, info.id)) is not None:
        _bump(row, now)
    await session.flush()
    return True
