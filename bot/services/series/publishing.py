"""A series on Discord, best effort after the store: its weeks published, the organizers' thread, the open weeks."""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Final, Protocol

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import claims
from bot.errors import NotConfigured
from bot.services.config.guild import get_config
from bot.services.series.info import Changes, SeriesCard, SeriesInfo
from bot.services.series.nudges import message_url, plan_guild_nudges
from bot.services.series.store import (
    get_series,
    get_settings,
    list_series,
    load_series,
    record_board,
    set_organizer_thread,
)
from bot.services.series.weeks import weeks_view
from bot.services.sessions import publish
from bot.services.sessions.events import Posted, SessionsContext, Zones
from bot.services.sessions.store import get_session

log = logging.getLogger("paperclub.series")

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
