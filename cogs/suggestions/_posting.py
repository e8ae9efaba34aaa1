"""Posting suggestions in the suggestions channel (a message, or a forum post tagged with the topic),
keeping the post up to date, and telling submitters by DM."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from bot.errors import NotConfigured
from bot.hidden_channels import named, usable
from bot.replies import CONTENT_LIMIT, NO_MENTIONS, THREAD_NAME_LIMIT, cut, one_line
from bot.services.suggestions.queries import SuggestionCard
from cogs.suggestions._components import card_layout

log = logging.getLogger("paperclub.suggestions")

SuggestionsChannel = discord.TextChannel | discord.ForumChannel | discord.Thread


async def resolve_channel(bot: discord.Client, channel_id: int | None) -> SuggestionsChannel:
    """The configured suggestions channel, or NotConfigured (checked before anything is stored), also when
    the bot cannot see it (bot.hidden_channels): nothing is stored or posted then."""
    if channel_id is None:
        raise NotConfigured(
            "Suggestions are not set up here yet: an admin needs to run `/setup suggestions`."
        )
    channel = bot.get_channel(channel_id)
    if channel is None:
        try:
            channel = await bot.fetch_channel(channel_id)
        except discord.HTTPException:
            channel = None
    if not isinstance(channel, discord.TextChannel | discord.ForumChannel | discord.Thread):
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


def _forum_tags(forum: discord.ForumChannel, topic: str | None) -> list[discord.ForumTag]:
    if not topic:
        return []
    return [tag for tag in forum.available_tags if tag.name.casefold() == topic.casefold()][:1]


async def publish(channel: SuggestionsChannel, card: SuggestionCard) -> tuple[int, int]:
    """Post the card; returns (channel or thread id, message id). Raises discord.HTTPException."""
    view = card_layout(card)
    if isinstance(channel, discord.ForumChannel):
        created = await channel.create_thread(
            name=cut(one_line(card.paper.title, THREAD_NAME_LIMIT), THREAD_NAME_LIMIT),
            view=view,
            applied_tags=_forum_tags(channel, card.topic),
            allowed_mentions=NO_MENTIONS,
        )
        return created.thread.id, created.message.id
    message = await channel.send(view=view, allowed_mentions=NO_MENTIONS)
    return channel.id, message.id


async def edit_post(bot: discord.Client, card: SuggestionCard) -> bool:
    """Re-render the post from the card; False (logged) when the post is gone or cannot be edited."""
    if card.channel_id is None or card.message_id is None:
        return False
    channel = bot.get_channel(card.channel_id)
    if isinstance(channel, discord.abc.GuildChannel | discord.Thread) and not usable(
        channel, "updating suggestion posts"
    ):
        return False
    message = bot.get_partial_messageable(card.channel_id).get_partial_message(card.message_id)
    try:
        # An embed post from before layouts becomes one in the same edit (content and embeds cleared).
        await message.edit(content=None, embeds=[], view=card_layout(card), allowed_mentions=NO_MENTIONS)
    except discord.HTTPException as exc:
        log.warning("could not update the post of suggestion %s: %s", card.id, exc)
        return False
    return True


async def note_in_thread(bot: discord.Client, card: SuggestionCard, text: str) -> None:
    """A line in the forum post's thread (text-channel posts are only re-rendered)."""
    if card.channel_id is None:
        return
    channel = bot.get_channel(card.channel_id)
    if not isinstance(channel, discord.Thread) or not usable(channel, "updating suggestion posts"):
        return
    try:
        await channel.send(cut(text, CONTENT_LIMIT), allowed_mentions=NO_MENTIONS)
    except discord.HTTPException as exc:
        log.warning("could not post in the thread of suggestion %s: %s", card.id, exc)


async def dm_member(bot: discord.Client, user_id: int, text: str) -> bool:
    """Send a DM; closed DMs (or any Discord refusal) are logged, never an error for the caller."""
    try:
        user = bot.get_user(user_id) or await bot.fetch_user(user_id)
        await user.send(cut(text, CONTENT_LIMIT), allowed_mentions=NO_MENTIONS)
    except discord.HTTPException as exc:
        log.info("could not DM user %s: %s", user_id, exc)
        return False
    return True


class PostRefresher:
    """Re-renders suggestion posts after votes, coalescing bursts: while one refresh of a post runs,
    further requests only mark it dirty, and it renders once more at the end, so 50 concurrent votes
    cost a few edits and the post always ends on the stored count."""

    def __init__(self, refresh: Callable[[int], Awaitable[Any]]) -> None:
        self._refresh = refresh
        self._running: dict[int, asyncio.Task[None]] = {}
        self._dirty: set[int] = set()
        self._requesters: set[asyncio.Task[Any]] = set()

    def request(self, suggestion_id: int) -> None:
        if suggestion_id in self._running:
            self._dirty.add(suggestion_id)
            return
        self._running[suggestion_id] = asyncio.create_task(
            self._run(suggestion_id), name=f"suggestion-refresh-{suggestion_id}"
        )

    async def _run(self, suggestion_id: int) -> None:
        try:
            while True:
                self._dirty.discard(suggestion_id)
                await self._refresh(suggestion_id)
                if suggestion_id not in self._dirty:
                    return
        finally:
            self._running.pop(suggestion_id, None)

    def follow(self, task: asyncio.Task[Any] | None) -> None:
        """Count ``task`` (a listener about to request refreshes) as pending until it ends."""
        if task is not None:
            self._requesters.add(task)
            task.add_done_callback(self._requesters.discard)

    async def wait_idle(self) -> None:
        """Until every pending refresh, and every followed requester, has finished (tests, shutdown)."""
        await asyncio.sleep(0)  # a just-dispatched listener starts, and is followed
        while self._running or self._requesters - {asyncio.current_task()}:
            pending = [*self._running.values(), *(self._requesters - {asyncio.current_task()})]
            await asyncio.gather(*pending, return_exceptions=True)

    async def cancel_all(self) -> None:
        """Cancel every refresh and wait for each to end (before the bot disposes of the engine)."""
        running = list(self._running.values())
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
