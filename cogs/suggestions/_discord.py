"""The suggestions' Discord side: the posts, their edits, the DMs, the polls' messages."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import timedelta

import discord

from bot.client import Interaction, PaperclubBot
from bot.errors import NotConfigured
from bot.hidden_channels import named, usable
from bot.replies import CONTENT_LIMIT, NO_MENTIONS, THREAD_NAME_LIMIT, cut, one_line
from bot.services.suggestions.context import Place, PostFailed, TryLater
from bot.services.suggestions.polls import PollResult, RunningPoll
from bot.services.suggestions.queries import SuggestionCard, SuggestionSummary
from cogs.suggestions import _render as render
from cogs.suggestions._components import card_layout

log = logging.getLogger("paperclub.suggestions")

SuggestionsChannel = discord.TextChannel | discord.ForumChannel | discord.Thread


class DiscordSuggestions:
    """What the suggestions' flows do on Discord (bot.services.suggestions.context.SuggestionsOnDiscord)."""

    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot

    async def _channel(self, channel_id: int | None) -> SuggestionsChannel:
        if channel_id is None:
            raise NotConfigured(
                "Suggestions are not set up here yet: an admin needs to run `/setup suggestions`."
            )
        channel = self.bot.get_channel(channel_id)
        if channel is None:
            try:
                channel = await self.bot.fetch_channel(channel_id)
            except discord.HTTPException:
                channel = None
        if not isinstance(channel, SuggestionsChannel):
            raise NotConfigured(
                "The suggestions channel is gone or is not a text or forum channel: "
                "an admin needs to run `/setup suggestions` again."
            )
        if not usable(channel, "posting suggestions"):
            raise NotConfigured(
                f"Suggestions can't be posted right now: Discord hides the suggestions channel, {named(channel.id)}, "
                "from the bot. An admin needs to grant the bot **View Channels** there, or run `/setup suggestions` "
                "with another channel."
            )
        return channel

    async def check_channel(self, channel_id: int | None) -> int:
        """The suggestions channel's id; NotConfigured (nothing is stored) when the bot cannot post there."""
        return (await self._channel(channel_id)).id

    async def post(self, channel_id: int, card: SuggestionCard) -> Place:
        """Post the card; PostFailed with Discord's words when refused."""
        channel = await self._channel(channel_id)
        view = card_layout(card, self.bot.clock.now())
        try:
            if isinstance(channel, discord.ForumChannel):
                tags = [
                    t
                    for t in channel.available_tags
                    if card.topic and t.name.casefold() == card.topic.casefold()
                ]
                created = await channel.create_thread(
                    name=cut(one_line(card.paper.title, THREAD_NAME_LIMIT), THREAD_NAME_LIMIT),
                    view=view,
                    applied_tags=tags[:1],
                    allowed_mentions=NO_MENTIONS,
                )
                return Place(created.thread.id, created.message.id)
            message = await channel.send(view=view, allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as exc:
            log.warning("could not post suggestion %s in channel %s: %s", card.id, channel.id, exc)
            raise PostFailed(str(exc)) from None
        return Place(channel.id, message.id)

    async def edit(self, card: SuggestionCard) -> None:
        """Re-render the post (logged when it is gone or cannot be edited)."""
        if card.channel_id is None or card.message_id is None:
            return
        channel = self.bot.get_channel(card.channel_id)
        if isinstance(channel, discord.abc.GuildChannel | discord.Thread) and not usable(
            channel, "updating suggestion posts"
        ):
            return
        message = self.bot.get_partial_messageable(card.channel_id).get_partial_message(card.message_id)
        try:
            # An embed post from before layouts becomes one in the same edit (content and embeds cleared).
            await message.edit(
                content=None,
                embeds=[],
                view=card_layout(card, self.bot.clock.now()),
                allowed_mentions=NO_MENTIONS,
            )
        except discord.HTTPException as exc:
            log.warning("could not update the post of suggestion %s: %s", card.id, exc)

    async def reviewed(self, card: SuggestionCard, reviewer_id: int) -> bool:
        """A line in the forum post's thread (a text channel's post is only re-rendered), the submitter's DM."""
        thread = self.bot.get_channel(card.channel_id) if card.channel_id is not None else None
        if isinstance(thread, discord.Thread) and usable(thread, "updating suggestion posts"):
            try:
                await thread.send(
                    cut(render.thread_note(card, reviewer_id), CONTENT_LIMIT), allowed_mentions=NO_MENTIONS
                )
            except discord.HTTPException as exc:
                log.warning("could not post in the thread of suggestion %s: %s", card.id, exc)
        return await self._dm(card, render.submitter_dm(card, self._guild_name(card)))

    async def withdrawn(self, card: SuggestionCard) -> None:
        """The submitter's DM: an organizer withdrew it."""
        await self._dm(card, render.submitter_dm(card, self._guild_name(card), withdrawn=True))

    def _guild_name(self, card: SuggestionCard) -> str:
        guild = self.bot.get_guild(card.guild_id)
        return guild.name if guild is not None else "the club"

    async def _dm(self, card: SuggestionCard, text: str) -> bool:
        """Closed DMs (or any refusal) are logged, never an error."""
        if card.submitter_id is None:
            return False
        try:
            user = self.bot.get_user(card.submitter_id) or await self.bot.fetch_user(card.submitter_id)
            await user.send(cut(text, CONTENT_LIMIT), allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as exc:
            log.info("could not DM user %s: %s", card.submitter_id, exc)
            return False
        return True

    async def poll_counts(self, poll: RunningPoll) -> dict[int, int] | None:
        """Votes per answer from the poll's message (no polls intent needed); None when it is gone."""
        if poll.message_id is None:
            return None
        channel = self.bot.get_partial_messageable(poll.channel_id)
        try:
            message = await channel.fetch_message(poll.message_id)
        except (discord.NotFound, discord.Forbidden):
            return None
        except discord.HTTPException as exc:
            raise TryLater(str(exc)) from None
        if message.poll is None:
            return None
        return {answer.id: answer.vote_count for answer in message.poll.answers}

    async def poll_ended(self, result: PollResult) -> None:
        """The result, replying to the poll."""
        channel = self.bot.get_partial_messageable(result.channel_id)
        reference = (
            discord.MessageReference(
                message_id=result.message_id, channel_id=result.channel_id, fail_if_not_exists=False
            )
            if result.message_id
            else discord.utils.MISSING
        )
        try:
            await channel.send(
                render.poll_result_message(result), reference=reference, allowed_mentions=NO_MENTIONS
            )
        except discord.HTTPException as exc:
            log.warning("could not post the result of poll %s: %s", result.poll_id, exc)


class InteractionPoll:
    """The poll an organizer's /organize suggestions poll posts as its answer (the flows' PollMessage)."""

    def __init__(self, interaction: Interaction, hours: int) -> None:
        self.interaction = interaction
        self.hours = hours

    async def post(self, options: Sequence[SuggestionSummary]) -> Place:
        """Post the poll, with each paper and its votes so far above it."""
        poll = discord.Poll(question=render.POLL_QUESTION, duration=timedelta(hours=self.hours))
        for option in options:
            poll.add_answer(text=render.poll_answer(option))
        text = cut(render.poll_text(options, self.hours), CONTENT_LIMIT)
        await self.interaction.response.send_message(text, poll=poll, allowed_mentions=NO_MENTIONS)
        message = await self.interaction.original_response()
        return Place(message.channel.id, message.id)

    async def take_down(self) -> None:
        """Delete the poll, best effort."""
        try:
            await self.interaction.delete_original_response()
        except discord.HTTPException as error:
            log.warning("could not delete an unrecorded poll: %s", error)
