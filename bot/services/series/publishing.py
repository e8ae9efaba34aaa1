"""A series on Discord after the store: its weeks published, the organizers' thread and nudges, the open weeks."""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Final, Protocol

from sqlalchemy import exists, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import claims
from bot.errors import NotConfigured
from bot.services.config.guild import get_config
from bot.services.reminders.texts import escape
from bot.services.series.info import Changes, SeriesCard, SeriesInfo, WeekInfo
from bot.services.series.store import (
    Settings,
    active_series,
    get_series,
    get_settings,
    list_series,
    load_series,
    record_board,
    set_horizon,
    set_nudge_days,
    set_organizer_thread,
)
from bot.services.series.weeks import weeks_view
from bot.services.sessions import publish
from bot.services.sessions.events import Posted, SessionsContext, Zones
from bot.services.sessions.store import get_session
from db.models import SessionPaper
from db.models.reminders import CANCELLED, NUDGE, PENDING, Reminder

log = logging.getLogger("paperclub.series")

PLAN_TRIES = 3  # a second planner may race this one to a row: plan again
WEEK_KEY = "nudge:week"  # one nudge per week, naming everything it lacks
PRESENTER, PAPER = "presenter", "paper"  # what a week may lack, each with its line in the nudge's message
ORGANIZER_THREAD: Final = "Programme · organizers"
THREAD_LEASE: Final = timedelta(minutes=2)  # longer than opening and recording the thread takes
THREAD_INTRO: Final = (
    "This thread is for the club's organizers. A few days before a week of a series that still has no "
    "presenter, or no paper, the bot posts a nudge here: one per week, naming what it still needs; "
    "`/setup series_nudge` sets how many days. Skipped weeks are never nudged."
)


class SeriesOnDiscord(Protocol):
    """The series' Discord side (the series cog's): trouble is logged, never raised, except NotConfigured."""

    def guild_ids(self) -> list[int]:
        """The servers this process serves."""

    async def is_thread(self, thread_id: int) -> bool:
        """Whether the thread is still there."""

    async def can_open_thread(self, channel_id: int) -> bool:
        """Whether the channel is a text channel the bot can see."""

    async def open_thread(self, channel_id: int, name: str, intro: str) -> int | None:
        """Open a public thread in the channel and post ``intro`` in it; its id (None: refused)."""

    async def add_to_thread(self, thread_id: int, user_id: int) -> None:
        """Add a member to the thread, so Discord tells them of each post."""

    async def check_board_channel(self, channel_id: int) -> None:
        """NotConfigured unless the bot can post the open weeks in the channel."""

    async def post_board(self, card: SeriesCard, channel_id: int) -> Posted:
        """Post the open-weeks message (NotConfigured when Discord refuses)."""

    async def edit_board(self, card: SeriesCard) -> bool:
        """Edit the posted message into ``card``; False when it was deleted."""

    async def refresh_board(self, card: SeriesCard) -> bool:
        """:meth:`edit_board`, best effort (a channel gone or hidden is left alone)."""

    async def delete_board(self, info: SeriesInfo) -> None:
        """Delete the posted message, best effort."""


@dataclass(frozen=True)
class SeriesContext:
    """The sessions' context and the series' Discord side."""

    sessions: SessionsContext
    discord: SeriesOnDiscord

    @property
    def store(self) -> async_sessionmaker[AsyncSession]:
        """The store."""
        return self.sessions.store


@dataclass(frozen=True)
class Followed:
    """A change followed on Discord: the series as it stands, notes and warnings, and what the reply names."""

    card: SeriesCard
    lines: tuple[str, ...] = ()
    day: date | None = None
    start: datetime | None = None
    made: int = 0
    changed: frozenset[str] = field(default_factory=frozenset)
    dropped: int = 0
    thread_id: int | None = None


async def card(
    factory: async_sessionmaker[AsyncSession], guild_id: int, ref: str | int, now: datetime
) -> SeriesCard:
    """The series and its coming weeks."""
    async with factory() as session:
        zones = (await get_config(session, guild_id)).display_zones
        horizon = (await get_settings(session, guild_id)).horizon_weeks
        info = await get_series(session, guild_id, ref)
        return SeriesCard(info, await weeks_view(session, info, now, horizon), zones, horizon, now)


async def follow(ctx: SeriesContext, info: SeriesInfo, done: Changes, now: datetime) -> Followed:
    """A change's sessions published, the nudges and open weeks brought up to date; the series for the reply."""
    shown = await card(ctx.store, info.guild_id, info.id, now)
    warnings = await publish_changes(ctx, info.guild_id, done, shown.zones, now)
    await refresh_guild(ctx, info.guild_id, now)
    return Followed(shown, (*done.notes, *warnings))


async def publish_changes(
    ctx: SeriesContext, guild_id: int, changes: Changes, zones: Zones, now: datetime
) -> list[str]:
    """Follow the store's changes to weeks' sessions on Discord, as for any session; the warnings, each once."""
    warnings: list[str] = []
    for ids, follow_one in ((changes.saved, publish.saved), (changes.cancelled, publish.cancelled)):
        for session_id in dict.fromkeys(ids):
            async with ctx.store() as session:
                info = await get_session(session, guild_id, session_id)
            warnings.extend(await follow_one(ctx.sessions, info, zones, now))
    return list(dict.fromkeys(warnings))


async def organizer_thread(
    ctx: SeriesContext, guild_id: int, now: datetime, *, add_user: int | None = None
) -> int | None:
    """The organizers' thread in announcements, opened the first time (None: refused); ``add_user`` joins it."""
    async with ctx.store() as session:
        settings = await get_settings(session, guild_id)
        parent = (await get_config(session, guild_id)).announcements_channel_id
    thread_id = settings.organizer_thread_id
    if thread_id is None or not await ctx.discord.is_thread(thread_id):
        if parent is None or not await ctx.discord.can_open_thread(parent):
            return None
        thread_id = await _open_thread(ctx, guild_id, parent, now, replacing=settings.organizer_thread_id)
        if thread_id is None:
            async with ctx.store() as session:  # another process opened it (or is opening it)
                return (await get_settings(session, guild_id)).organizer_thread_id
    if add_user is not None:
        await ctx.discord.add_to_thread(thread_id, add_user)
    return thread_id


async def _open_thread(
    ctx: SeriesContext, guild_id: int, parent: int, now: datetime, *, replacing: int | None
) -> int | None:
    """Open and record the thread under a claim in the store, so two processes never open two."""
    token, key = secrets.token_hex(8), f"series-thread-claim:{guild_id}"
    async with ctx.store() as session, session.begin():
        if not await claims.claim(session, key, token, now, THREAD_LEASE):
            return None
    try:
        async with ctx.store() as session:
            if (await get_settings(session, guild_id)).organizer_thread_id != replacing:
                return None  # recorded meanwhile by the claim's last holder
        thread_id = await ctx.discord.open_thread(parent, ORGANIZER_THREAD, THREAD_INTRO)
        if thread_id is not None:
            async with ctx.store() as session, session.begin():
                await set_organizer_thread(session, guild_id, thread_id, now, replacing=replacing)
        return thread_id
    finally:
        async with ctx.store() as session, session.begin():
            await claims.release(session, key, token)


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
    """/organize series open: post or edit the open weeks; the series, the link, whether it was edited in place."""
    async with ctx.store() as session:
        info = await get_series(session, guild_id, ref)
        announcements = (await get_config(session, guild_id)).announcements_channel_id
    target = channel_id or info.board_channel_id or announcements or here_id
    if target is None:
        raise NotConfigured("Pick a text channel for the open weeks with the `channel` option.")
    await ctx.discord.check_board_channel(target)
    shown = await card(ctx.store, guild_id, info.id, now)
    if info.board_message_id and target == info.board_channel_id and await ctx.discord.edit_board(shown):
        url, edited = message_url(guild_id, target, info.board_message_id), True
    else:
        posted = await ctx.discord.post_board(shown, target)
        if info.board_message_id and info.board_channel_id != target:
            await ctx.discord.delete_board(info)
        async with ctx.store() as session, session.begin():
            await record_board(
                session, await load_series(session, guild_id, info.id), target, posted.message_id
            )
        url, edited = posted.jump_url, False
    await organizer_thread(ctx, guild_id, now, add_user=organizer)
    await refresh_guild(ctx, guild_id, now)
    return info, url, edited


async def refresh_boards(ctx: SeriesContext, guild_id: int, now: datetime) -> None:
    """Bring the server's posted open-weeks messages up to date; one deleted by someone is forgotten."""
    async with ctx.store() as session:
        infos = [info for info in await list_series(session, guild_id) if info.board_message_id]
    for info in infos:
        if not await ctx.discord.refresh_board(await card(ctx.store, guild_id, info.id, now)):
            async with ctx.store() as session, session.begin():
                await record_board(session, await load_series(session, guild_id, info.id), None, None)


async def refresh_guild(ctx: SeriesContext, guild_id: int, now: datetime) -> None:
    """Plan the server's nudges and update its open-weeks messages (after any change to a week)."""
    try:
        await plan_guild_nudges(ctx.store, guild_id, now)
    except Exception:  # planned again on the next change or daily run
        log.exception("guild %s: could not plan the nudges", guild_id)
    await refresh_boards(ctx, guild_id, now)


async def change_horizon(ctx: SeriesContext, guild_id: int, weeks: int, now: datetime) -> Settings:
    """/setup series_horizon: save the weeks ahead (the caller then runs the horizon for the server)."""
    async with ctx.store() as session, session.begin():
        return await set_horizon(session, guild_id, weeks, now)


async def change_nudge_days(ctx: SeriesContext, guild_id: int, days: int, now: datetime) -> Settings:
    """/setup series_nudge: save the days, then plan the nudges again."""
    async with ctx.store() as session, session.begin():
        settings = await set_nudge_days(session, guild_id, days, now)
    await refresh_guild(ctx, guild_id, now)
    return settings


def message_url(guild_id: int, channel_id: int, message_id: int) -> str:
    """The link to a Discord message."""
    return f"https://discord.com/channels/{guild_id}/{channel_id}/{message_id}"


def _claim_line(info: SeriesInfo, week: WeekInfo, gap: str) -> str:
    session = week.session
    assert session is not None
    day = week.week_date
    pick = f"pick **{escape(session.title)}** of {day:%a} {day.day} {day:%b} as you type"
    if gap == PAPER:
        return f"Set its paper with `/organize session edit` ({pick}, then fill `papers`)."
    if info.board_channel_id and info.board_message_id:
        return f"Members can claim it here: {message_url(info.guild_id, info.board_channel_id, info.board_message_id)}"
    if session.announcement_channel_id and session.announcement_message_id:
        url = message_url(info.guild_id, session.announcement_channel_id, session.announcement_message_id)
        return f"Members can claim it on its announcement: {url}"
    return (
        f"Post the open weeks with `/organize series open` so members can claim it, or set a presenter with "
        f"`/organize session edit` ({pick})."
    )


async def _plan(session: AsyncSession, guild_id: int, now: datetime) -> None:
    """Bring the guild's nudges in line with its weeks (none without an organizers' thread)."""
    settings = await get_settings(session, guild_id)
    if settings.organizer_thread_id is None:
        return
    for info in await active_series(session, guild_id, now):
        for week in await weeks_view(session, info, now, settings.horizon_weeks):
            if week.session is not None and not week.session.has_started(now):
                await _plan_week(session, info, week, settings.nudge_days, settings.organizer_thread_id, now)
    await session.flush()


async def _plan_week(
    session: AsyncSession, info: SeriesInfo, week: WeekInfo, days: int, thread: int, now: datetime
) -> None:
    assert week.session is not None
    lacks = not (week.has_presenter and week.has_paper)
    due = None  # when the week's nudge is due (None: it needs none)
    if days > 0 and week.is_scheduled and not week.session.is_cancelled and lacks:
        due = week.session.starts_at - timedelta(days=days)
    query = select(Reminder).where(Reminder.session_id == week.session.id, Reminder.kind == NUDGE)
    rows = list(await session.scalars(query.execution_options(populate_existing=True)))
    live = None
    for row in rows:
        if row.status != PENDING:
            continue
        if row.plan_key != WEEK_KEY:  # one nudge per kind, before one per week: replaced below
            await _set(session, row, now, status=CANCELLED, last_error="Replaced by one nudge for the week.")
        elif due is None:
            await _set(
                session, row, now, status=CANCELLED, last_error="No longer needed: the week has it now."
            )
        else:
            live = row
    if due is None:
        return
    gaps = [gap for gap, has in ((PRESENTER, week.has_presenter), (PAPER, week.has_paper)) if not has]
    message = "\n".join(f"{gap}|{_claim_line(info, week, gap)}" for gap in gaps)  # a `gap|line` line per gap
    if live is not None:
        values: dict[str, object] = {}
        if live.message != message:
            values["message"] = message
        if live.channel_id != thread:
            values["channel_id"] = thread
        if due > now and live.due_at != due:
            values.update(due_at=due, next_attempt_at=due)
        if values:
            await _set(session, live, now, **values)
    elif not any(row.status not in (CANCELLED, PENDING) for row in rows):
        # none sent, or being sent right now, for this week (of either kind, before one per week)
        at = max(due, now)
        session.add(
            Reminder(
                guild_id=info.guild_id,
                kind=NUDGE,
                channel_id=thread,
                message=message,
                due_at=at,
                next_attempt_at=at,
                session_id=week.session.id,
                plan_key=WEEK_KEY,
                status=PENDING,
                created_at=now,
                updated_at=now,
            )
        )


async def _set(session: AsyncSession, row: Reminder, now: datetime, **values: object) -> None:
    await session.execute(
        update(Reminder)
        .where(Reminder.id == row.id, Reminder.status == PENDING)
        .values(updated_at=now, **values)
        .execution_options(synchronize_session=False)
    )


async def cancel_presenter_nudge(session: AsyncSession, session_id: int, now: datetime) -> None:
    """A member just claimed the week: its pending nudge goes if the week has its paper (else it names the paper)."""
    has_paper = await session.scalar(select(exists().where(SessionPaper.session_id == session_id)))
    if not has_paper:
        return
    await session.execute(
        update(Reminder)
        .where(Reminder.session_id == session_id, Reminder.kind == NUDGE, Reminder.status == PENDING)
        .values(status=CANCELLED, last_error="No longer needed: a member claimed the week.", updated_at=now)
        .execution_options(synchronize_session=False)
    )


async def plan_guild_nudges(
    session_factory: async_sessionmaker[AsyncSession], guild_id: int, now: datetime
) -> None:
    """Plan the guild's nudges in one transaction (again, if a second planner raced it to a row)."""
    for attempt in range(1, PLAN_TRIES + 1):
        try:
            async with session_factory() as session, session.begin():
                await _plan(session, guild_id, now)
            return
        except IntegrityError:
            if attempt == PLAN_TRIES:
                raise
