"""The suggestion flow, and what the posts' buttons and the session form do (the suggestions cog holds one
:class:`SuggestionActions` and hands it the presses)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any

import discord
from discord.utils import escape_markdown
from sqlalchemy.ext.asyncio import AsyncSession

from bot import timeutil
from bot.client import Interaction, PaperclubBot
from bot.errors import BadInput, Conflict
from bot.papers import PaperRef
from bot.permissions import ensure_organizer, require_guild_id
from bot.replies import one_line, send_ephemeral
from bot.services.config.guild import get_config
from bot.services.sessions.draft import new_session
from bot.services.sessions.info import SessionInfo
from bot.services.suggestions.actions import (
    SourceMessage,
    SuggestionDraft,
    in_transaction,
    link_session,
    set_post_location,
    submit_suggestion,
    toggle_volunteer,
    validate_draft,
)
from bot.services.suggestions.duplicates import TitleIndex, find_duplicate
from bot.services.suggestions.metadata import stored_metadata_is_fresh
from bot.services.suggestions.queries import SuggestionCard, card_by_id, get_card
from bot.services.suggestions.votes import Press, ToggleResult, VoteWriter
from bot.sources.arxiv import ArxivClient, ArxivMetadata
from bot.sources.http import SourceUnavailable
from cogs.sessions.publish import create_and_publish, reply_lines
from cogs.suggestions._components import SessionFromSuggestionModal
from cogs.suggestions._posting import PostRefresher, edit_post, publish, resolve_channel
from cogs.suggestions._render import card_embed, duplicate_message, plural, post_link, safe_title

log = logging.getLogger("paperclub.suggestions")

VOTE_DEFER_AFTER = 1.5
"""Seconds a press waits for its vote to be written before the bot acknowledges it (a deferred, thinking
ephemeral answer the confirmation then replaces), well inside Discord's 3 s to answer an interaction."""


def guild_id_of(interaction: Interaction) -> int:
    return require_guild_id(interaction, "Suggestions work in a server, not in DMs.")


class SuggestionActions:
    """/suggest and its form, the presses on a post, the session made from an accepted suggestion; the
    posts' refresher (re-renders after votes) and the server's title index (duplicates)."""

    def __init__(self, bot: PaperclubBot, titles: TitleIndex) -> None:
        self.bot = bot
        self.arxiv: ArxivClient = bot.arxiv  # shared, owned and closed by the bot
        self.titles = titles
        self.refresher = PostRefresher(self.refresh_post)
        self._vote_writer: VoteWriter | None = None

    @property
    def votes(self) -> VoteWriter:
        """This process's vote writer (presses are written many at a time; see bot.services.suggestions.votes)."""
        if self._vote_writer is None:
            self._vote_writer = VoteWriter(self.bot.session_factory)
        return self._vote_writer

    # ------------------------------------------------------------------ suggesting

    async def _arxiv_metadata(self, guild_id: int, ref: PaperRef) -> tuple[ArxivMetadata | None, bool]:
        """(metadata, arXiv unavailable). No lookup when the paper is known or already stands."""
        if ref.arxiv_id is None:
            return None, False
        async with self.bot.session_factory() as session:
            if await stored_metadata_is_fresh(session, guild_id, ref):
                return None, False
            if await find_duplicate(session, guild_id, ref, None, self.bot.clock.now(), self.titles):
                return None, False
        try:
            metadata = await self.arxiv.fetch(ref.arxiv_id)
        except SourceUnavailable as exc:
            log.warning("arXiv lookup of %s failed; saving without metadata: %s", ref.arxiv_id, exc)
            return None, True
        if metadata is None:
            raise BadInput(
                f"arXiv has no paper with the id {ref.arxiv_id}. Check the id, or paste the paper's link instead."
            )
        return metadata, False

    async def suggest_paper(
        self,
        interaction: Interaction,
        paper: str | PaperRef,
        title: str | None,
        why: str | None,
        topic: str | None,
        *,
        volunteer: bool = False,
        source: SourceMessage | None = None,
    ) -> None:
        """Everything /suggest and its form do: validate, defer, look up arXiv, store, post, answer."""
        guild_id = guild_id_of(interaction)
        async with self.bot.session_factory() as session:
            config = await get_config(session, guild_id)
        draft = validate_draft(
            paper,
            title=title,
            reason=why,
            topic=topic,
            topics=config.suggestion_topics,
            volunteer=volunteer,
            source=source,
        )
        # Finding the channel may fetch it (REST): defer first. Refusals still reach the member.
        await interaction.response.defer(ephemeral=True, thinking=True)
        channel = await resolve_channel(self.bot, config.suggestions_channel_id)
        metadata, arxiv_down = await self._arxiv_metadata(guild_id, draft.ref)
        result = await self._store(guild_id, interaction.user.id, draft, metadata)
        if result.duplicate is not None:
            if result.duplicate.vote_added and result.duplicate.standing.suggestion_id is not None:
                self.refresher.request(result.duplicate.standing.suggestion_id)
            text = duplicate_message(result.duplicate, guild_id, config.timezone, self.bot.clock.now())
            await send_ephemeral(interaction, text)
            return
        assert result.card is not None
        card = result.card
        lines = [f"Thanks! Your suggestion is #{card.id}."]
        if draft.volunteer:
            lines.append(
                "You offered to present it; press **I'd present this** on the post to take that back."
            )
        try:
            channel_id, message_id = await publish(channel, card)
        except discord.HTTPException as exc:
            log.warning("could not post suggestion %s in channel %s: %s", card.id, channel.id, exc)
            lines.append(
                f"I could not post it in <#{channel.id}> (Discord said: {one_line(str(exc), 120)}); "
                "an organizer should check my permissions there. It is saved and listed in `/suggest list`."
            )
        else:
            async with self.bot.session_factory() as session, session.begin():
                await set_post_location(session, guild_id, card.id, channel_id, message_id)
            link = f"https://discord.com/channels/{guild_id}/{channel_id}/{message_id}"
            lines.append(f"It is posted here: {link} — members can vote on it there.")
        if arxiv_down:
            lines.append(
                "arXiv did not answer just now, so I saved what you gave; I'll add the details later."
            )
        await send_ephemeral(interaction, "\n".join(lines), embed=card_embed(card))

    async def _store(
        self, guild_id: int, user_id: int, draft: SuggestionDraft, metadata: ArxivMetadata | None
    ) -> Any:
        now = self.bot.clock.now()
        per_day = self.bot.settings.suggestions_per_day
        return await in_transaction(
            self.bot.session_factory,
            lambda session: submit_suggestion(
                session,
                guild_id=guild_id,
                user_id=user_id,
                draft=draft,
                metadata=metadata,
                now=now,
                per_day=per_day,
                index=self.titles,
            ),
        )

    # ------------------------------------------------------------------ the post's buttons

    async def refresh_post(self, suggestion_id: int) -> None:
        """Re-render a suggestion's post from the store."""
        async with self.bot.session_factory() as session:
            card = await card_by_id(session, suggestion_id)
        if card is not None:
            await edit_post(self.bot, card)

    async def press_vote(self, interaction: Interaction, suggestion_id: int) -> None:
        guild_id = guild_id_of(interaction)
        press = Press(guild_id, suggestion_id, interaction.user.id, self.bot.clock.now())
        result = await self._written_in_time(interaction, self.votes.toggle(press))
        votes = plural(result.count, "vote")
        if result.added:
            text = f"👍 Your vote is in ({votes} now). Press **Upvote** again to take it back."
        else:
            text = f"Your vote was taken back ({votes} now)."
        await send_ephemeral(interaction, text)
        self.refresher.request(suggestion_id)

    @staticmethod
    async def _written_in_time(interaction: Interaction, writing: Awaitable[ToggleResult]) -> ToggleResult:
        """The vote, once committed; if that takes longer than VOTE_DEFER_AFTER, acknowledge the press
        first (the member sees the bot thinking) so the confirmation can follow after Discord's 3 s."""
        task = asyncio.ensure_future(writing)
        done, _ = await asyncio.wait({task}, timeout=VOTE_DEFER_AFTER)
        if not done:
            await interaction.response.defer(ephemeral=True, thinking=True)
        return await task

    async def press_present(self, interaction: Interaction, suggestion_id: int) -> None:
        guild_id = guild_id_of(interaction)
        async with self.bot.session_factory() as session, session.begin():
            result = await toggle_volunteer(
                session, guild_id, suggestion_id, interaction.user.id, self.bot.clock.now()
            )
        if result.added:
            text = "🎤 Thank you! The organizers will see that you offered to present this paper."
        else:
            text = "You are no longer listed as offering to present this paper."
        await send_ephemeral(interaction, text)
        self.refresher.request(suggestion_id)

    # ------------------------------------------------------------------ accepted → session

    async def _accepted_card(self, guild_id: int, suggestion_id: int) -> SuggestionCard:
        async with self.bot.session_factory() as session:
            card = await get_card(session, guild_id, suggestion_id)
        if card.status != "accepted":
            raise Conflict(
                f"Suggestion #{card.id} is {card.status}; accept it first to make a session from it."
            )
        if card.session_id is not None:
            raise Conflict(f"Session #{card.session_id} was already made from suggestion #{card.id}.")
        return card

    async def open_session_form(self, interaction: Interaction, suggestion_id: int) -> None:
        config = await ensure_organizer(interaction)
        card = await self._accepted_card(guild_id_of(interaction), suggestion_id)
        await interaction.response.send_modal(
            SessionFromSuggestionModal(card.id, one_line(card.paper.title, 200), config.timezone)
        )

    async def create_session_from(
        self,
        interaction: Interaction,
        suggestion_id: int,
        title: str,
        when: str,
        timezone: str | None,
    ) -> None:
        """The session form of an accepted suggestion: its paper, the one volunteer (if exactly one
        offered) as presenter, through the sessions' create-and-publish flow (arXiv titles, event)."""
        config = await ensure_organizer(interaction)
        guild_id = guild_id_of(interaction)
        now = self.bot.clock.now()
        card = await self._accepted_card(guild_id, suggestion_id)  # a quick refusal; link_session re-checks
        presenter = card.volunteer_ids[0] if len(card.volunteer_ids) == 1 else None
        draft = new_session(
            title=title,
            when=when,
            zone=timezone,
            default_zone=config.timezone,
            now=now,
            presenter_id=presenter,
            papers=[card.paper.url or card.paper.title],
        )
        await interaction.response.defer(ephemeral=True, thinking=True)  # the event is made over REST

        async def link(session: AsyncSession, info: SessionInfo) -> None:
            # Conflict (rolling the session back) if another submit linked one first.
            await link_session(session, guild_id, card.id, info.id, now=now)

        published = await create_and_publish(
            self.bot, guild_id, draft, created_by=interaction.user.id, zones=config.display_zones, then=link
        )
        # The post now shows the session and the paper's arXiv title. Awaited here, not left to the
        # background refresher, so no refresh is still reading the store when the cog unloads.
        await self.refresh_post(card.id)
        info = published.info
        lines = [
            f"Made session #{info.id} **{escape_markdown(one_line(info.title, 150))}** for "
            f"{timeutil.discord_timestamp(info.starts_at, 'F')} from suggestion #{card.id}.",
            f"Announce it with `/organize session announce session:{info.id}` (or change it with `/organize session edit`).",
        ]
        if presenter is not None:
            lines.append(f"<@{presenter}> offered to present, so they are down as the presenter.")
        lines.extend(reply_lines(published))
        await send_ephemeral(interaction, "\n".join(lines))

    # ------------------------------------------------------------------ telling the submitter

    def decision_dm(self, card: SuggestionCard, guild_name: str) -> str:
        """The submitter's DM after a review."""
        verb = {"shortlisted": "shortlisted", "accepted": "accepted 🎉", "declined": "declined"}[card.status]
        text = (
            f"Your paper suggestion **{safe_title(card.paper.title, 200)}** (#{card.id}) in **{escape_markdown(guild_name)}** "
            f"was {verb} by the organizers."
        )
        if card.review_note:
            text += f"\nTheir note: {card.review_note}"
        link = post_link(card.guild_id, card)
        if link:
            text += f"\n{link}"
        return text
