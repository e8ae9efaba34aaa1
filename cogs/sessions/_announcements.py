"""A session's posts in Discord: the announcement message and its thread, the cancellation notice and
the recap post (the scheduled event is cogs/sessions/_events.py; creating a session and publishing it,
cogs/sessions/publish.py).

Each step is best effort once the session is saved: a missing permission becomes a short warning for
the organizer (returned as text), never a lost session. A channel hidden from the bot
(bot.hidden_channels) is not asked at all: the warning says so by the channel's id.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import discord

from bot.client import PaperclubBot
from bot.errors import NotConfigured
from bot.hidden_channels import cannot_see, hidden_from_bot, usable
from bot.replies import NO_MENTIONS
from bot.services.sessions import store as svc
from bot.services.sessions.info import SessionInfo
from bot.timeutil import DisplayZone
from cogs.sessions import _render as render
from cogs.sessions._buttons import announcement_view

log = logging.getLogger("paperclub.sessions")

THREAD_ARCHIVE_MINUTES: Final = 10080  # a week


@dataclass
class Outcome:
    """Warnings for the organizer, and the announcement message when there is one."""

    warnings: list[str] = field(default_factory=list)
    message: discord.Message | None = None
    jump_url: str | None = None
    edited: bool = False


async def _channel(bot: PaperclubBot, channel_id: int) -> Any:
    channel = bot.get_channel(channel_id)
    if channel is None:
        try:
            channel = await bot.fetch_channel(channel_id)
        except (discord.NotFound, discord.Forbidden):  # gone, or not the bot's to see
            return None
    return channel


def _hidden(channel: discord.abc.GuildChannel | discord.Thread, work: str) -> str | None:
    """The organizer's warning when the bot cannot see ``channel`` (logged once for background work)."""
    return None if usable(channel, work) else f"{cannot_see(channel.id)}. Not done: {work}."


async def _open_thread(bot: PaperclubBot, message: discord.Message, info: SessionInfo) -> int | None:
    try:
        thread = await message.create_thread(
            name=render.thread_name(info), auto_archive_duration=THREAD_ARCHIVE_MINUTES
        )
    except discord.HTTPException as error:
        log.warning("could not open a thread for session %s: %s", info.id, error)
        return None
    return thread.id


async def _add_presenter(bot: PaperclubBot, thread_id: int, presenter_id: int) -> str | None:
    thread = await _channel(bot, thread_id)
    if not isinstance(thread, discord.Thread):
        return None
    try:
        await thread.add_user(discord.Object(id=presenter_id))
    except discord.HTTPException as error:
        log.warning("could not add presenter %s to thread %s: %s", presenter_id, thread_id, error)
        return "I could not add the presenter to the discussion thread."
    return None


async def announce(
    bot: PaperclubBot,
    info: SessionInfo,
    zones: Sequence[DisplayZone],
    *,
    channel_id: int | None,
    default_channel_id: int | None,
) -> Outcome:
    """Post the announcement, or edit the posted one. The first post also opens the thread.

    The channel is the one asked for, else where it was announced before, else the configured one.
    """
    target_id = channel_id or info.announcement_channel_id or default_channel_id
    if target_id is None:
        raise NotConfigured(
            "There is no announcements channel yet: ask an admin to run `/setup announcements`, "
            "or pick a channel with the `channel` option."
        )
    channel = await _channel(bot, target_id)
    if not isinstance(channel, discord.TextChannel):
        raise NotConfigured(f"I can't post in <#{target_id}>; pick a text channel I can see.")
    if hidden_from_bot(channel):
        raise NotConfigured(f"Not announced: {cannot_see(channel.id)}, or pick another `channel`.")
    now = bot.clock.now()
    view = await announcement_view(bot, info, zones, now)
    outcome = Outcome()
    message: discord.Message | None = None
    if info.announcement_message_id and info.announcement_channel_id == channel.id:
        try:
            message = await _edit_card(channel.get_partial_message(info.announcement_message_id), view)
            outcome.edited = True
        except discord.NotFound:
            message = None  # deleted by someone: post it again
    elif info.announcement_message_id and info.announcement_channel_id:
        await delete_announcement(bot, info)  # moved to another channel: no duplicate left behind
    if message is None:
        try:
            message = await channel.send(view=view, allowed_mentions=NO_MENTIONS)
        except discord.Forbidden:
            raise NotConfigured(
                f"I can't post in {channel.mention}: give the bot View Channel, Send Messages and Embed Links there."
            ) from None
    thread_id = info.thread_id if outcome.edited else None
    if thread_id is None:
        thread_id = await _open_thread(bot, message, info)
        if thread_id is None:
            outcome.warnings.append("I could not open a discussion thread (Create Public Threads).")
    if thread_id is not None and info.presenter_id is not None:
        warning = await _add_presenter(bot, thread_id, info.presenter_id)
        if warning:
            outcome.warnings.append(warning)
    async with bot.session_factory() as session, session.begin():
        await svc.record_announcement(
            session,
            info.guild_id,
            info.id,
            channel_id=channel.id,
            message_id=message.id,
            thread_id=thread_id,
        )
    outcome.message = message
    outcome.jump_url = message.jump_url
    return outcome


async def _edit_card(message: discord.PartialMessage, view: discord.ui.LayoutView) -> discord.Message:
    """Edit a posted card into ``view``. An old embed post becomes a layout in the same edit: Discord
    refuses the IS_COMPONENTS_V2 flag unless its content and embeds are cleared with it (Edit Message)."""
    return await message.edit(content=None, embeds=[], view=view, allowed_mentions=NO_MENTIONS)


async def delete_announcement(bot: PaperclubBot, info: SessionInfo) -> None:
    """Delete the posted announcement, if there is one (best effort)."""
    if not (info.announcement_channel_id and info.announcement_message_id):
        return
    channel = await _channel(bot, info.announcement_channel_id)
    if isinstance(channel, discord.TextChannel) and usable(
        channel, f"deleting the old announcement of session #{info.id}"
    ):
        try:
            await channel.get_partial_message(info.announcement_message_id).delete()
        except discord.HTTPException as error:
            log.info("old announcement of session %s not deleted: %s", info.id, error)


async def refresh_announcement(
    bot: PaperclubBot, info: SessionInfo, zones: Sequence[DisplayZone]
) -> str | None:
    """Edit the posted announcement to match the store (after a recap or a cancel). Returns a warning."""
    if not (info.announcement_channel_id and info.announcement_message_id):
        return None
    channel = await _channel(bot, info.announcement_channel_id)
    if not isinstance(channel, discord.TextChannel):
        return "I could not find the announcement's channel any more."
    hidden = _hidden(channel, f"updating the announcement of session #{info.id}")
    if hidden:
        return hidden
    now = bot.clock.now()
    try:
        view = await announcement_view(bot, info, zones, now)
        await _edit_card(channel.get_partial_message(info.announcement_message_id), view)
    except discord.HTTPException as error:
        log.warning("could not update the announcement of session %s: %s", info.id, error)
        return "I could not update the announcement message."
    return None


async def post_cancellation(bot: PaperclubBot, info: SessionInfo, zones: Sequence[DisplayZone]) -> str | None:
    """A short notice in the announcement's channel, replying to the announcement."""
    if not (info.announcement_channel_id and info.announcement_message_id):
        return None
    channel = await _channel(bot, info.announcement_channel_id)
    if not isinstance(channel, discord.TextChannel):
        return "I could not find the announcement's channel to post the cancellation."
    hidden = _hidden(channel, f"posting the cancellation of session #{info.id}")
    if hidden:
        return hidden
    reference = discord.MessageReference(
        message_id=info.announcement_message_id, channel_id=channel.id, fail_if_not_exists=False
    )
    try:
        await channel.send(
            render.cancellation_notice(info, zones, bot.clock.now()),
            reference=reference,
            allowed_mentions=NO_MENTIONS,
        )
    except discord.HTTPException as error:
        log.warning("could not post the cancellation of session %s: %s", info.id, error)
        return "I could not post the cancellation notice."
    return None


async def post_recap(bot: PaperclubBot, info: SessionInfo) -> str | None:
    """The recording and notes, in the session's discussion thread."""
    if info.thread_id is None:
        return None
    thread = await _channel(bot, info.thread_id)
    if not isinstance(thread, discord.Thread):
        return "I could not find the session's thread to post the recap."
    hidden = _hidden(thread, f"posting the recap of session #{info.id}")
    if hidden:
        return hidden
    try:
        await thread.send(render.recap_post(info), allowed_mentions=NO_MENTIONS)
    except discord.HTTPException as error:
        log.warning("could not post the recap of session %s: %s", info.id, error)
        return "I could not post the recap in the thread."
    return None
