"""The series' Discord side (:class:`DiscordSeries`, the series' flows act through it): the organizers' thread
and the open-weeks message; ``series_of(bot)``, the flows' context."""

from __future__ import annotations

import logging

import discord

from bot.client import PaperclubBot
from bot.errors import NotConfigured
from bot.hidden_channels import cannot_see, hidden_from_bot, usable
from bot.replies import NO_MENTIONS
from bot.services.series.context import SeriesContext
from bot.services.series.info import SeriesCard, SeriesInfo
from bot.services.sessions.context import Posted
from cogs.series import _render as render
from cogs.sessions.publish import find_channel, sessions_of

log = logging.getLogger("paperclub.series")

# "Sending a message will automatically unarchive the thread, unless the thread has been locked by a
# moderator" (docs: Threads), so a week's archive still lets a nudge a month later land.
THREAD_ARCHIVE_MINUTES = 10080
Postable = discord.TextChannel | discord.Thread


def series_of(bot: PaperclubBot) -> SeriesContext:
    """The series' flows' context on this bot."""
    return SeriesContext(sessions_of(bot), DiscordSeries(bot))


class DiscordSeries:
    """What the series' flows do on Discord (bot.services.series.context.SeriesOnDiscord)."""

    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot

    def guild_ids(self) -> list[int]:
        """The servers this process serves."""
        return [guild.id for guild in self.bot.guilds]

    async def is_thread(self, thread_id: int) -> bool:
        """Whether the thread is still there."""
        return isinstance(await find_channel(self.bot, thread_id), discord.Thread)

    async def can_open_thread(self, channel_id: int) -> bool:
        """A text channel the bot can see (one hidden from it is logged once)."""
        channel = await find_channel(self.bot, channel_id)
        return isinstance(channel, discord.TextChannel) and usable(channel, "the organizers' thread")

    async def open_thread(self, channel_id: int, name: str, intro: str) -> int | None:
        """A public thread (a private one needs Create Private Threads, which the bot is not given)."""
        channel = await find_channel(self.bot, channel_id)
        try:
            thread = await channel.create_thread(
                name=name,
                type=discord.ChannelType.public_thread,
                auto_archive_duration=THREAD_ARCHIVE_MINUTES,
            )
        except discord.HTTPException as error:
            log.warning("channel %s: could not open the organizers' thread: %s", channel_id, error)
            return None
        try:
            await thread.send(intro, allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as error:
            log.warning("thread %s: could not post its intro: %s", thread.id, error)
        return int(thread.id)

    async def add_to_thread(self, thread_id: int, user_id: int) -> None:
        """Add the member, best effort."""
        thread = await find_channel(self.bot, thread_id)
        if not isinstance(thread, discord.Thread):
            return
        try:
            await thread.add_user(discord.Object(id=user_id))
        except discord.HTTPException as error:
            log.info("could not add %s to the organizers' thread %s: %s", user_id, thread_id, error)

    async def check_board_channel(self, channel_id: int) -> None:
        """NotConfigured unless it is a text channel or thread the bot can see."""
        channel = await find_channel(self.bot, channel_id)
        if not isinstance(channel, Postable):
            raise NotConfigured("Pick a text channel for the open weeks with the `channel` option.")
        if hidden_from_bot(channel):
            raise NotConfigured(f"Not posted: {cannot_see(channel.id)}, or pick another `channel`.")

    async def post_board(self, card: SeriesCard, channel_id: int) -> Posted:
        """Post the open weeks."""
        channel = await find_channel(self.bot, channel_id)
        try:
            message = await channel.send(view=render.board_card(card).view(), allowed_mentions=NO_MENTIONS)
        except discord.Forbidden:
            raise NotConfigured(
                f"I can't post in {channel.mention}: give the bot View Channel and Send Messages there."
            ) from None
        return Posted(message.id, message.jump_url)

    async def edit_board(self, card: SeriesCard) -> bool:
        """Edit the posted open weeks (an old embed post becomes a layout in the same edit)."""
        info = card.info
        assert info.board_channel_id is not None
        assert info.board_message_id is not None
        channel = await find_channel(self.bot, info.board_channel_id)
        try:
            await channel.get_partial_message(info.board_message_id).edit(
                content=None, embeds=[], view=render.board_card(card).view(), allowed_mentions=NO_MENTIONS
            )
        except discord.NotFound:
            return False
        return True

    async def refresh_board(self, card: SeriesCard) -> bool:
        """Edit the posted open weeks, best effort."""
        info = card.info
        assert info.board_channel_id is not None
        channel = await find_channel(self.bot, info.board_channel_id)
        if not isinstance(channel, Postable) or not usable(
            channel, f"updating the open weeks of series {info.id}"
        ):
            return True
        try:
            return await self.edit_board(card)
        except discord.HTTPException as error:
            log.warning("series %s: could not update the open-weeks message: %s", info.id, error)
            return True

    async def delete_board(self, info: SeriesInfo) -> None:
        """Delete the old open-weeks message, best effort."""
        assert info.board_channel_id is not None
        assert info.board_message_id is not None
        channel = await find_channel(self.bot, info.board_channel_id)
        if isinstance(channel, Postable):
            try:
                await channel.get_partial_message(info.board_message_id).delete()
            except discord.HTTPException as error:
                log.info("series %s: the old open-weeks message stays: %s", info.id, error)
