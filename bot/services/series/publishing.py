"""A series on Discord, best effort once the store is written: its weeks published like any session, the
organizers' thread (one per server, under a claim), the open weeks and nudges kept up to date."""

from __future__ import annotations

import logging
import secrets
from datetime import datetime, timedelta
from typing import Final

from bot import claims
from bot.errors import NotConfigured
from bot.services.config.guild import get_config
from bot.services.series.context import SeriesContext
from bot.services.series.info import Changes, SeriesInfo
from bot.services.series.nudges import message_url, plan_guild_nudges
from bot.services.series.reads import card
from bot.services.series.store import (
    get_settings,
    list_series,
    load_series,
    record_board,
    set_organizer_thread,
)
from bot.services.sessions import publish
from bot.services.sessions.context import Zones
from bot.services.sessions.store import get_session

log = logging.getLogger("paperclub.series")

ORGANIZER_THREAD: Final = "Programme · organizers"
THREAD_LEASE: Final = timedelta(minutes=2)  # longer than opening and recording the thread takes
THREAD_INTRO: Final = (
    "This thread is for the club's organizers. A few days before a week of a series that still has no "
    "presenter, or no paper, the bot posts a nudge here (once per week and kind); `/setup series_nudge` sets "
    "how many days. Skipped weeks are never nudged."
)


async def publish_changes(
    ctx: SeriesContext, guild_id: int, changes: Changes, zones: Zones, now: datetime
) -> list[str]:
    """Follow the store's changes to weeks' sessions on Discord, as for any session; the warnings, each once."""
    warnings: list[str] = []
    for ids, follow in ((changes.saved, publish.saved), (changes.cancelled, publish.cancelled)):
        for session_id in dict.fromkeys(ids):
            async with ctx.store() as session:
                info = await get_session(session, guild_id, session_id)
            warnings.extend(await follow(ctx.sessions, info, zones, now))
    return list(dict.fromkeys(warnings))


# ---------------------------------------------------------------- the organizers' thread


async def organizer_thread(
    ctx: SeriesContext, guild_id: int, now: datetime, *, add_user: int | None = None
) -> int | None:
    """The organizers' (public) thread in the announcements channel, opened the first time (None: none there,
    or refused); ``add_user`` joins it."""
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


# ---------------------------------------------------------------- the open-weeks message


async def post_board(
    ctx: SeriesContext, info: SeriesInfo, channel_id: int | None, now: datetime
) -> tuple[str, bool]:
    """Post the open-weeks message in the channel, or edit the posted one in place (no channel, or the same);
    a post moved elsewhere leaves no copy behind. Its link, and whether it was edited."""
    target = channel_id or info.board_channel_id
    if target is None:
        raise NotConfigured("Pick a text channel for the open weeks with the `channel` option.")
    await ctx.discord.check_board_channel(target)
    shown = await card(ctx.store, info.guild_id, info.id, now)
    if info.board_message_id and target == info.board_channel_id and await ctx.discord.edit_board(shown):
        return message_url(info.guild_id, target, info.board_message_id), True
    posted = await ctx.discord.post_board(shown, target)
    if info.board_message_id and info.board_channel_id != target:
        await ctx.discord.delete_board(info)
    async with ctx.store() as session, session.begin():
        await record_board(
            session, await load_series(session, info.guild_id, info.id), target, posted.message_id
        )
    return posted.jump_url, False


async def refresh_boards(ctx: SeriesContext, guild_id: int, now: datetime) -> None:
    """Bring the server's posted open-weeks messages up to date (a claim, a skip, a week gone by); one
    deleted by someone is forgotten."""
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
