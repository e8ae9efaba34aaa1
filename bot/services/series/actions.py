"""What organizers and members do to a series, each one call: the change in one transaction, then its
weeks published, the nudges and open weeks brought up to date, the series for the reply."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date, datetime

from bot.services.config.guild import get_config
from bot.services.series import changes, drafts, reads, rules
from bot.services.series.background import SeriesBackground
from bot.services.series.context import SeriesContext
from bot.services.series.info import Changes, SeriesCard, SeriesInfo, series_info, series_rule
from bot.services.series.presenters import Claim, toggle_presenter
from bot.services.series.publishing import organizer_thread, post_board, publish_changes, refresh_guild
from bot.services.series.store import (
    Settings,
    create_series,
    get_series,
    get_settings,
    load_series,
    set_horizon,
    set_nudge_days,
)
from bot.services.series.weeks import fill_weeks
from bot.services.sessions.context import Zones


@dataclass(frozen=True)
class Followed:
    """A change followed on Discord: the series as it now stands, the lines it adds (notes, warnings), and
    what the reply names (the week, its start, weeks made or dropped, the rule's changed fields, the thread)."""

    card: SeriesCard
    lines: tuple[str, ...] = ()
    day: date | None = None
    start: datetime | None = None
    made: int = 0
    changed: frozenset[str] = field(default_factory=frozenset)
    dropped: int = 0
    thread_id: int | None = None


async def _follow(ctx: SeriesContext, info: SeriesInfo, done: Changes, now: datetime) -> Followed:
    card = await reads.card(ctx.store, info.guild_id, info.id, now)
    warnings = await publish_changes(ctx, info.guild_id, done, card.zones, now)
    await refresh_guild(ctx, info.guild_id, now)
    return Followed(card, (*done.notes, *warnings))


async def add(
    ctx: SeriesContext,
    guild_id: int,
    draft: drafts.SeriesDraft,
    *,
    created_by: int,
    now: datetime,
) -> Followed:
    """/series add: the series and its weeks ahead in one transaction; the organizer joins the organizers'
    thread."""
    async with ctx.store() as session, session.begin():
        row = await create_series(session, guild_id, draft, created_by=created_by, now=now)
        made = await fill_weeks(session, row, now, (await get_settings(session, guild_id)).horizon_weeks)
        info = series_info(row)
    thread_id = await organizer_thread(ctx, guild_id, now, add_user=created_by)
    followed = await _follow(ctx, info, Changes(saved=made), now)
    return replace(followed, made=len(made), thread_id=thread_id)


async def skip(
    ctx: SeriesContext,
    guild_id: int,
    ref: str,
    date_text: str,
    reason: str | None,
    *,
    now: datetime,
) -> Followed:
    """/series skip: one coming week skipped (its session cancelled)."""
    async with ctx.store() as session, session.begin():
        row = await load_series(session, guild_id, ref)
        day = rules.parse_date(date_text, series_rule(row).tz, now)
        done = await changes.skip_week(session, row, day, rules.clean_reason(reason), now)
        info = series_info(row)
    return replace(await _follow(ctx, info, done, now), day=day)


async def unskip(ctx: SeriesContext, guild_id: int, ref: str, date_text: str, *, now: datetime) -> Followed:
    """/series unskip: a skipped week meets again."""
    async with ctx.store() as session, session.begin():
        row = await load_series(session, guild_id, ref)
        day = rules.parse_date(date_text, series_rule(row).tz, now)
        horizon = (await get_settings(session, guild_id)).horizon_weeks
        done = await changes.unskip_week(session, row, day, now, horizon)
        info = series_info(row)
    return replace(await _follow(ctx, info, done, now), day=day)


async def move(
    ctx: SeriesContext, guild_id: int, ref: str, date_text: str, when: str, *, now: datetime
) -> Followed:
    """/series move: one week at another time or day."""
    async with ctx.store() as session, session.begin():
        row = await load_series(session, guild_id, ref)
        day = rules.parse_date(date_text, series_rule(row).tz, now)
        done, start = await changes.move_week(session, row, day, when, now)
        info = series_info(row)
    return replace(await _follow(ctx, info, done, now), day=day, start=start)


async def edit(
    ctx: SeriesContext,
    guild_id: int,
    ref: str,
    *,
    day: str | None,
    time: str | None,
    zone: str | None,
    every: int | None,
    until: str | None,
    duration: int | None,
    now: datetime,
) -> Followed:
    """/series edit: the rule changed (the values as typed; None: as it is); the weeks ahead follow. Nothing
    that differs: nothing changes."""
    async with ctx.store() as session, session.begin():
        row = await load_series(session, guild_id, ref)
        rule_edit = drafts.edit_rule(
            series_rule(row),
            row.duration_minutes,
            now=now,
            day=day,
            time=time,
            zone=zone,
            every=every,
            until=until,
            duration=duration,
        )
        done = Changes()
        if rule_edit.changed:
            horizon = (await get_settings(session, guild_id)).horizon_weeks
            done = await changes.edit_series(session, row, rule_edit, now, horizon)
        info = series_info(row)
    return replace(await _follow(ctx, info, done, now), changed=frozenset(rule_edit.changed))


async def end(ctx: SeriesContext, guild_id: int, ref: str, after: str | None, *, now: datetime) -> Followed:
    """/series end: the weeks after its last date (``after``, default now) dropped, their sessions
    cancelled."""
    async with ctx.store() as session, session.begin():
        row = await load_series(session, guild_id, ref)
        last = rules.parse_date(after, series_rule(row).tz, now, what="date") if after else None
        done = await changes.end_series(session, row, last, now)
        info = series_info(row)
    return replace(await _follow(ctx, info, done, now), dropped=len(done.cancelled))


async def open_weeks(
    ctx: SeriesContext,
    guild_id: int,
    ref: str,
    *,
    channel_id: int | None,
    here_id: int | None,
    organizer: int,
    now: datetime,
) -> tuple[SeriesInfo, str, bool]:
    """/series open: post (in the channel given, else where it was, else announcements, else ``here_id``) or
    edit the open weeks; the organizer joins the organizers' thread. The series, the link, whether edited."""
    async with ctx.store() as session:
        info = await get_series(session, guild_id, ref)
        announcements = (await get_config(session, guild_id)).announcements_channel_id
    if channel_id is None and not info.board_message_id:
        channel_id = announcements or here_id
    url, edited = await post_board(ctx, info, channel_id, now)
    await organizer_thread(ctx, guild_id, now, add_user=organizer)
    await refresh_guild(ctx, guild_id, now)
    return info, url, edited


async def present(
    ctx: SeriesContext,
    guild_id: int,
    session_id: int,
    user_id: int,
    display_name: str,
    *,
    now: datetime,
    series_id: int | None = None,
) -> tuple[Claim, Zones]:
    """I'll present (or a week picked from a series' select, ``series_id``): present the week or step down;
    the week, open weeks and nudges follow. The claim and the server's zones."""
    async with ctx.store() as session, session.begin():
        claim = await toggle_presenter(
            session, guild_id, session_id, user_id, display_name, now=now, series_id=series_id
        )
        zones = (await get_config(session, guild_id)).display_zones
    await publish_changes(ctx, guild_id, Changes(saved=[session_id]), zones, now)
    await refresh_guild(ctx, guild_id, now)
    return claim, zones


async def horizon_weeks(
    ctx: SeriesContext, background: SeriesBackground | None, guild_id: int, weeks: int, now: datetime
) -> Settings:
    """/setup series_horizon: saved, and the series get the weeks it now reaches."""
    async with ctx.store() as session, session.begin():
        settings = await set_horizon(session, guild_id, weeks, now)
    if background is not None:
        await background.run_horizons([guild_id])
    return settings


async def nudge_days(ctx: SeriesContext, guild_id: int, days: int, now: datetime) -> Settings:
    """/setup series_nudge: saved, and the nudges move to the new day before each week."""
    async with ctx.store() as session, session.begin():
        settings = await set_nudge_days(session, guild_id, days, now)
    await refresh_guild(ctx, guild_id, now)
    return settings
