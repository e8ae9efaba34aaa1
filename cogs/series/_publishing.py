"""The Discord side of the series (best effort once the store is written): weeks' events and announcements,
the organizers' thread, the open-weeks message."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from datetime import timedelta
from typing import Any, Final

import discord

from bot import claims
from bot.client import PaperclubBot
from bot.errors import NotConfigured
from bot.hidden_channels import cannot_see, hidden_from_bot, usable
from bot.replies import NO_MENTIONS
from bot.services.config.guild import get_config
from bot.services.series import store as svc
from bot.services.series import weeks as weeks_svc
from bot.services.series.info import Changes, SeriesInfo
from bot.services.sessions import store as sessions
from bot.timeutil import DisplayZone
from cogs.series import _render as render
from cogs.sessions.publish import publish_cancelled, publish_saved

log = logging.getLogger("paperclub.series")

ORGANIZER_THREAD: Final = "Programme · organizers"
THREAD_LEASE: Final = timedelta(minutes=2)  # longer than opening and recording the thread takes
THREAD_ARCHIVE_MINUTES: Final = 10080  # a week; "sending a message will automatically unarchive the thread,
# unless the thread has been locked by a moderator" (docs: Threads), so a nudge a month later still lands.
THREAD_INTRO: Final = (
    "This thread is for the club's organizers. A few days before a week of a series that still has no "
    "presenter, or no paper, the bot posts a nudge here (once per week and kind); `/setup series_nudge` sets "
    "how many days. Skipped weeks are never nudged."
)


async def _channel(bot: PaperclubBot, channel_id: int) -> Any:
    channel = bot.get_channel(channel_id)
    if channel is None:
        try:
            channel = await bot.fetch_channel(channel_id)
        except (discord.NotFound, discord.Forbidden):
            return None
    return channel


async def publish(
    bot: PaperclubBot, guild_id: int, changes: Changes, zones: Sequence[DisplayZone]
) -> list[str]:
    """Follow the store's changes on Discord, as the sessions feature does for its own; warnings for the
    organizer (each once)."""
    warnings: list[str] = []
    for session_id in dict.fromkeys(changes.saved):
        async with bot.session_factory() as session:
            info = await sessions.get_session(session, guild_id, session_id)
        warnings.extend(await publish_saved(bot, info, zones))
    for session_id in dict.fromkeys(changes.cancelled):
        async with bot.session_factory() as session:
            info = await sessions.get_session(session, guild_id, session_id)
        warnings.extend(await publish_cancelled(bot, bot.get_guild(guild_id), info, zones))
    return list(dict.fromkeys(warnings))


# ---------------------------------------------------------------- the organizers' thread


async def organizer_thread(bot: PaperclubBot, guild_id: int, *, add_user: int | None = None) -> int | None:
    """The organizers' thread in the announcements channel, opened the first time (None: no announcements
    channel, or the bot may not open a thread there). ``add_user`` joins it (an organizer setting up a
    series), so Discord tells them of each nudge.

    A public thread: a private one needs Create Private Threads, which the bot is not given
    (bot.permissions.REQUIRED_PERMISSIONS), and the nudges invite members to claim the week anyway. Only
    one is recorded per server, even when two processes open one at the same moment."""
    async with bot.session_factory() as session:
        settings = await svc.get_settings(session, guild_id)
        config = await get_config(session, guild_id)
    thread: Any = await _channel(bot, settings.organizer_thread_id) if settings.organizer_thread_id else None
    if not isinstance(thread, discord.Thread):
        parent = (
            await _channel(bot, config.announcements_channel_id) if config.announcements_channel_id else None
        )
        if not isinstance(parent, discord.TextChannel) or not usable(parent, "the organizers' thread"):
            return None
        thread = await _open_thread(bot, guild_id, parent, replacing=settings.organizer_thread_id)
        if thread is None:
            async with bot.session_factory() as session:  # another process opened it (or is opening it)
                return (await svc.get_settings(session, guild_id)).organizer_thread_id
    if add_user is not None:
        try:
            await thread.add_user(discord.Object(id=add_user))
        except discord.HTTPException as error:
            log.info("guild %s: could not add %s to the organizers' thread: %s", guild_id, add_user, error)
    return int(thread.id)


async def _open_thread(
    bot: PaperclubBot, guild_id: int, parent: discord.TextChannel, *, replacing: int | None
) -> discord.Thread | None:
    """Open and record the thread under a claim in the store, so two processes never open two."""
    token, key = secrets.token_hex(8), f"series-thread-claim:{guild_id}"
    async with bot.session_factory() as session, session.begin():
        if not await claims.claim(session, key, token, bot.clock.now(), THREAD_LEASE):
            return None
    try:
        async with bot.session_factory() as session:
            current = (await svc.get_settings(session, guild_id)).organizer_thread_id
        if current != replacing:
            return None  # recorded meanwhile by the claim's last holder
        try:
            thread = await parent.create_thread(
                name=ORGANIZER_THREAD,
                type=discord.ChannelType.public_thread,
                auto_archive_duration=THREAD_ARCHIVE_MINUTES,
            )
        except discord.HTTPException as error:
            log.warning("guild %s: could not open the organizers' thread: %s", guild_id, error)
            return None
        async with bot.session_factory() as session, session.begin():
            await svc.set_organizer_thread(session, guild_id, thread.id, bot.clock.now(), replacing=replacing)
        try:
            await thread.send(THREAD_INTRO, allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as error:
            log.warning("guild %s: could not post in the organizers' thread: %s", guild_id, error)
        return thread
    finally:
        async with bot.session_factory() as session, session.begin():
            await claims.release(session, key, token)


# ---------------------------------------------------------------- the open-weeks message


async def _board(bot: PaperclubBot, info: SeriesInfo) -> discord.ui.LayoutView:
    now = bot.clock.now()
    async with bot.session_factory() as session:
        config = await get_config(session, info.guild_id)
        settings = await svc.get_settings(session, info.guild_id)
        weeks = await weeks_svc.weeks_view(session, info, now, settings.horizon_weeks)
    return render.board_card(info, weeks, config.display_zones, now).view()


async def post_board(
    bot: PaperclubBot, info: SeriesInfo, channel: discord.TextChannel | discord.Thread | None
) -> tuple[str, bool]:
    """Post the open-weeks message in ``channel``, or edit the posted one in place (``channel`` None, or
    the same). Gives its link and whether it was edited."""
    view = await _board(bot, info)
    message: discord.Message | None = None
    old = await _channel(bot, info.board_channel_id) if info.board_channel_id else None
    target = channel or old
    if isinstance(target, discord.TextChannel | discord.Thread) and hidden_from_bot(target):
        raise NotConfigured(f"Not posted: {cannot_see(target.id)}, or pick another `channel`.")
    if (
        info.board_message_id
        and isinstance(old, discord.TextChannel | discord.Thread)
        and (channel is None or channel.id == old.id)
    ):
        try:
            message = await old.get_partial_message(info.board_message_id).edit(
                content=None, embeds=[], view=view, allowed_mentions=NO_MENTIONS
            )
            return message.jump_url, True
        except discord.NotFound:
            message = None  # deleted by someone: post it again
    if not isinstance(target, discord.TextChannel | discord.Thread):
        raise NotConfigured("Pick a text channel for the open weeks with the `channel` option.")
    try:
        message = await target.send(view=view, allowed_mentions=NO_MENTIONS)
    except discord.Forbidden:
        raise NotConfigured(
            f"I can't post in {target.mention}: give the bot View Channel and Send Messages there."
        ) from None
    if (
        info.board_message_id
        and isinstance(old, discord.TextChannel | discord.Thread)
        and old.id != target.id
    ):
        try:
            await old.get_partial_message(info.board_message_id).delete()
        except discord.HTTPException as error:
            log.info("series %s: the old open-weeks message stays: %s", info.id, error)
    async with bot.session_factory() as session, session.begin():
        row = await svc.load_series(session, info.guild_id, info.id)
        await svc.record_board(session, row, target.id, message.id)
    return message.jump_url, False


async def refresh_board(bot: PaperclubBot, info: SeriesInfo) -> None:
    """Bring the posted open-weeks message up to date (a claim, a skip, a week gone by)."""
    if not (info.board_channel_id and info.board_message_id):
        return
    channel = await _channel(bot, info.board_channel_id)
    if not isinstance(channel, discord.TextChannel | discord.Thread) or not usable(
        channel, f"updating the open weeks of series {info.id}"
    ):
        return
    view = await _board(bot, info)
    try:
        await channel.get_partial_message(info.board_message_id).edit(
            content=None, embeds=[], view=view, allowed_mentions=NO_MENTIONS
        )
    except discord.NotFound:
        async with bot.session_factory() as session, session.begin():
            row = await svc.load_series(session, info.guild_id, info.id)
            await svc.record_board(session, row, None, None)
    except discord.HTTPException as error:
        log.warning("series %s: could not update the open-weeks message: %s", info.id, error)
