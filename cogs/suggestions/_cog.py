"""/suggest paper, list, show and withdraw: members suggest papers and vote; /organize suggestions review and
poll (organizers)."""

from __future__ import annotations

import asyncio
import functools
import logging
from datetime import timedelta
from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, PaperclubBot
from bot.errors import BadInput
from bot.message_papers import papers_in_message
from bot.organize import organizer_group
from bot.paging import Page, clamp_page, page_count
from bot.permissions import ensure_organizer, guild_config_for, member_is_organizer, organizer_begin
from bot.replies import NO_MENTIONS, cut, one_line, send_ephemeral, send_reply
from bot.services.config.guild import get_config
from bot.services.suggestions.actions import (
    SourceMessage,
    match_topic,
    review_suggestion,
    withdraw_suggestion,
)
from bot.services.suggestions.duplicates import TitleIndex
from bot.services.suggestions.polls import choose_poll_options, record_poll
from bot.services.suggestions.queries import SortOrder, StatusFilter, get_card, list_suggestions
from cogs.suggestions._actions import SuggestionActions, guild_id_of
from cogs.suggestions._background import SuggestionBackground
from cogs.suggestions._components import DYNAMIC_ITEMS, SuggestModal, session_offer_view
from cogs.suggestions._options import (
    ActiveSuggestionOption,
    PaperOption,
    PaperTitle,
    ReviewNote,
    SuggestionOption,
    Topic,
    Why,
    topic_autocomplete,
)
from cogs.suggestions._posting import dm_member, note_in_thread
from cogs.suggestions._render import STATUS_LABELS, card_embed, list_embed, post_link, safe_title
from db.engine import read_only_session_factory

log = logging.getLogger("paperclub.suggestions")

PAGER = "suggestions"
PAGE_SIZE = 8
POLL_ANSWER_LIMIT = 55
POLL_QUESTION = "Which paper should the club read next?"
Decision = Literal["shortlist", "accept", "decline"]
LIST_HEADINGS = {
    "active": "Paper suggestions",
    "all": "All paper suggestions",
}

organize = organizer_group("suggestions", "Review suggestions; poll the club on the next paper")


class SuggestionsCog(commands.Cog):
    """/suggest and /organize suggestions; hands the posts' presses and forms to its :class:`SuggestionActions` and
    runs the poll-result and metadata jobs (:class:`SuggestionBackground`)."""

    # guild_only as a decorator: it sets the contexts the group is synced with too (servers only).
    suggestions = app_commands.guild_only(
        app_commands.Group(
            name="suggest", description="Suggest a paper; see the club's suggestions; take yours back"
        )
    )

    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot
        self.actions = SuggestionActions(bot, TitleIndex())
        self.background = SuggestionBackground(
            bot, self.actions.titles, self.actions.refresh_post, self.actions.refresher.request
        )
        self._readers = read_only_session_factory(bot.engine)  # lists only read: no SQLite write lock
        # Right-click a message → Apps → Suggest this paper (a message command; no privileged intent).
        self.suggest_menu = app_commands.guild_only(
            app_commands.ContextMenu(name="Suggest this paper", callback=self.suggest_from_message)
        )

    # ------------------------------------------------------------------ lifecycle

    async def cog_load(self) -> None:
        self.bot.tree.add_command(self.suggest_menu)
        self.organized = self.bot.organize.attach(organize, self)
        self.bot.add_dynamic_items(*DYNAMIC_ITEMS)
        self.bot.pagers.register(PAGER, self.render_page)
        await self.background.start()  # the poll-result and metadata jobs (bot/background.py)

    async def cog_unload(self) -> None:
        await self.background.stop()
        await self.actions.refresher.cancel_all()
        self.bot.remove_dynamic_items(*DYNAMIC_ITEMS)
        self.bot.pagers.unregister(PAGER)
        self.bot.organize.detach(self.organized)
        self.bot.tree.remove_command(self.suggest_menu.name, type=self.suggest_menu.type)

    @commands.Cog.listener()
    async def on_paper_enriched(self, guild_id: int, paper_ids: tuple[int, ...]) -> None:
        """The sources' fields of these papers changed: re-render the posts showing them."""
        self.actions.refresher.follow(asyncio.current_task())
        await self.background.refresh_papers(guild_id, paper_ids)

    @commands.Cog.listener()
    async def on_suggestions_changed(self, guild_id: int, suggestion_ids: tuple[int, ...]) -> None:
        """Another feature changed these suggestions in the store (a member's data deleted): edit their posts."""
        for suggestion_id in suggestion_ids:
            self.actions.refresher.request(suggestion_id)

    # ------------------------------------------------------------------ /suggest paper

    @suggestions.command(name="paper", description="Suggest a paper for the club to read")
    @app_commands.describe(
        paper="arXiv id or link, DOI, OpenReview/ACL link, any https link, or the title (leave out for a form)",
        why="Why the club should read it (up to 1,000 characters)",
        topic="What it is about (the club's topics)",
        title="The paper's title, if you want to give it yourself (found automatically for arXiv)",
    )
    @app_commands.autocomplete(topic=topic_autocomplete)
    async def suggest(
        self,
        interaction: Interaction,
        paper: PaperOption | None = None,
        why: Why | None = None,
        topic: Topic | None = None,
        title: PaperTitle | None = None,
    ) -> None:
        if paper is None:
            async with self.bot.session_factory() as session:
                config = await get_config(session, guild_id_of(interaction))
            topics = config.suggestion_topics
            modal = SuggestModal(topics, topic=match_topic(topic, topics), why=why, title=title)
            await interaction.response.send_modal(modal)
            return
        await self.actions.suggest_paper(interaction, paper, title, why, topic)

    async def suggest_from_message(self, interaction: Interaction, message: discord.Message) -> None:
        """ "Suggest this paper": the suggestion form filled with the message's paper link (a select of
        them when it has several), credited to the member, linking back to the message."""
        guild_id = guild_id_of(interaction)
        links = await papers_in_message(interaction, message)
        async with self.bot.session_factory() as session:
            config = await get_config(session, guild_id)
        source = SourceMessage(channel_id=message.channel.id, message_id=message.id)
        modal = SuggestModal(config.suggestion_topics, paper=links[0], source=source, links=tuple(links))
        await interaction.response.send_modal(modal)

    # ------------------------------------------------------------------ /suggest list and show

    @suggestions.command(name="list", description="The club's paper suggestions, most voted or newest first")
    @app_commands.describe(
        status="Which suggestions (default: open, shortlisted and accepted)",
        topic="Only this topic",
        sort="Most votes first, or newest first",
    )
    @app_commands.autocomplete(topic=topic_autocomplete)
    async def list_command(
        self,
        interaction: Interaction,
        status: StatusFilter = "active",
        topic: Topic | None = None,
        sort: SortOrder = "votes",
    ) -> None:
        guild_id = guild_id_of(interaction)
        topic_index = ""
        if topic is not None:
            config = await guild_config_for(interaction)
            wanted = topic.strip().casefold()
            matches = [i for i, t in enumerate(config.suggestion_topics) if t.casefold() == wanted]
            if not matches:
                raise BadInput(f"“{topic[:50]}” is not a topic here: {', '.join(config.suggestion_topics)}.")
            topic_index = str(matches[0])
        embed, view = await self.bot.pagers.first_page(PAGER, guild_id, f"{status}.{topic_index}.{sort}")
        await send_reply(interaction, embed=embed, view=view)

    async def render_page(self, guild_id: int, arg: str, page: int) -> Page:
        """One page of /suggest list; ``arg`` is 'status.topic-index.sort' (kept in the buttons)."""
        status_text, topic_text, sort_text = (arg.split(".") + ["", "", ""])[:3]
        status: StatusFilter = status_text if status_text in STATUS_FILTERS else "active"  # type: ignore[assignment]
        sort: SortOrder = "newest" if sort_text == "newest" else "votes"
        async with self._readers() as session:
            config = await get_config(session, guild_id)
            topics = config.suggestion_topics
            topic = (
                topics[int(topic_text)] if topic_text.isdigit() and int(topic_text) < len(topics) else None
            )
            fetch = functools.partial(
                list_suggestions, session, guild_id, status=status, topic=topic, sort=sort, limit=PAGE_SIZE
            )
            items, total = await fetch(offset=page * PAGE_SIZE)
            pages = page_count(total, PAGE_SIZE)
            if clamp_page(page, pages) != page:
                page = clamp_page(page, pages)
                items, total = await fetch(offset=page * PAGE_SIZE)
        heading = LIST_HEADINGS.get(status) or f"{STATUS_LABELS[status]} suggestions"
        if topic:
            heading += f" · {topic}"
        heading += " · newest first" if sort == "newest" else " · most voted first"
        return Page(embed=list_embed(items, total, cut(heading, 256)), page=page, pages=pages)

    @suggestions.command(
        name="show", description="A suggestion's full card: who voted, who offered to present"
    )
    @app_commands.describe(suggestion="The suggestion (type words of its title or its number)")
    async def show(self, interaction: Interaction, suggestion: SuggestionOption) -> None:
        guild_id = guild_id_of(interaction)
        async with self.bot.session_factory() as session:
            card = await get_card(session, guild_id, suggestion)
        link = post_link(guild_id, card)
        await send_ephemeral(
            interaction, f"Post: {link}" if link else None, embed=card_embed(card, full=True)
        )

    # ------------------------------------------------------------------ organizers: review

    @organize.command(name="review", description="Shortlist, accept or decline a suggestion")
    @app_commands.describe(
        suggestion="The suggestion to review",
        decision="Shortlist, accept or decline (you can change it later)",
        note="A short note for the submitter and the post (optional)",
    )
    async def review(
        self,
        interaction: Interaction,
        suggestion: SuggestionOption,
        decision: Decision,
        note: ReviewNote | None = None,
    ) -> None:
        _, guild_id, now = await organizer_begin(interaction)
        async with self.bot.session_factory() as session, session.begin():
            result = await review_suggestion(
                session,
                guild_id=guild_id,
                suggestion_id=suggestion,
                decision=decision,
                note=note,
                reviewer_id=interaction.user.id,
                now=now,
            )
        card = result.card
        await self.actions.refresh_post(card.id)
        status = STATUS_LABELS[card.status]
        await note_in_thread(
            self.bot,
            card,
            f"{status} by <@{interaction.user.id}>" + (f": {card.review_note}" if card.review_note else "."),
        )
        guild_name = interaction.guild.name if interaction.guild else "the club"
        lines = [f"Suggestion #{card.id} **{safe_title(card.paper.title, 150)}** is now {status.lower()}."]
        if card.submitter_id is not None:  # None: its member deleted their data; nobody to tell
            told = await dm_member(self.bot, card.submitter_id, self.actions.decision_dm(card, guild_name))
            lines.append(
                f"<@{card.submitter_id}> was told by DM."
                if told
                else f"I could not DM <@{card.submitter_id}> (DMs closed)."
            )
        offer = card.status == "accepted" and card.session_id is None
        if offer:
            lines.append("Make a session from it now, or later with the button:")
        await send_ephemeral(
            interaction,
            "\n".join(lines),
            view=session_offer_view(card.id) if offer else discord.utils.MISSING,
        )

    # ------------------------------------------------------------------ withdraw

    @suggestions.command(name="withdraw", description="Take back a suggestion (yours, or any for organizers)")
    @app_commands.describe(suggestion="The suggestion to withdraw")
    async def withdraw(self, interaction: Interaction, suggestion: ActiveSuggestionOption) -> None:
        guild_id = guild_id_of(interaction)
        config = await guild_config_for(interaction)
        is_organizer = isinstance(interaction.user, discord.Member) and member_is_organizer(
            interaction.user, config
        )
        async with self.bot.session_factory() as session, session.begin():
            card = await withdraw_suggestion(
                session,
                guild_id=guild_id,
                suggestion_id=suggestion,
                user_id=interaction.user.id,
                is_organizer=is_organizer,
                now=self.bot.clock.now(),
            )
        await send_ephemeral(
            interaction, f"Suggestion #{card.id} **{safe_title(card.paper.title, 150)}** is withdrawn."
        )
        await self.actions.refresh_post(card.id)
        if card.submitter_id is not None and card.submitter_id != interaction.user.id:
            guild_name = interaction.guild.name if interaction.guild else "the club"
            await dm_member(
                self.bot,
                card.submitter_id,
                f"Your paper suggestion **{safe_title(card.paper.title, 200)}** (#{card.id}) in **{guild_name}** "
                "was withdrawn by an organizer.",
            )

    # ------------------------------------------------------------------ organizers: poll

    @organize.command(
        name="poll", description="A Discord poll of the top suggestions, to pick the next paper"
    )
    @app_commands.describe(
        count="How many suggestions to offer (2–10; shortlisted first, else the most voted)",
        hours="How long the poll runs, in hours (1–768)",
    )
    async def poll(
        self,
        interaction: Interaction,
        count: app_commands.Range[int, 2, 10] = 5,
        hours: app_commands.Range[int, 1, 768] = 24,
    ) -> None:
        await ensure_organizer(interaction)
        guild_id = guild_id_of(interaction)
        async with self.bot.session_factory() as session:
            options = await choose_poll_options(session, guild_id, count)
        poll = discord.Poll(question=POLL_QUESTION, duration=timedelta(hours=hours))
        for option in options:
            poll.add_answer(text=cut(f"#{option.id} {one_line(option.title, 80)}", POLL_ANSWER_LIMIT))
        lines = [f"🗳️ Vote for the paper the club reads next (poll open for {hours} h):"]
        lines += [f"`#{o.id}` {safe_title(o.title, 120)} — 👍 {o.votes}" for o in options]
        await interaction.response.send_message(
            cut("\n".join(lines), 2000), poll=poll, allowed_mentions=NO_MENTIONS
        )
        message = await interaction.original_response()
        now = self.bot.clock.now()
        ends_at = now + timedelta(hours=hours)
        try:
            async with self.bot.session_factory() as session, session.begin():
                await record_poll(
                    session,
                    guild_id=guild_id,
                    channel_id=message.channel.id,
                    message_id=message.id,
                    created_by=interaction.user.id,
                    ends_at=ends_at,
                    suggestion_ids=[o.id for o in options],
                    now=now,
                )
        except Exception:
            # A poll that is not recorded would never have its result counted: take it down (best
            # effort) and let the error reach the organizer through the tree's handler.
            try:
                await interaction.delete_original_response()
            except discord.HTTPException as error:
                log.warning("could not delete unrecorded poll message %s: %s", message.id, error)
            raise


STATUS_FILTERS = ("active", "open", "shortlisted", "accepted", "declined", "withdrawn", "all")
