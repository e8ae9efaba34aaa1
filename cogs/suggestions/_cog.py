"""/suggest paper, list, show and withdraw; /organize suggestions review and poll: one call into flows each."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from functools import partial
from typing import get_args

import discord
from discord import app_commands
from discord.ext import commands

from bot.background import Job, every
from bot.client import Interaction, PaperclubBot
from bot.layouts import escape_line
from bot.message_papers import papers_in_message
from bot.organize import organizer_group
from bot.paging import LayoutPage, send_page
from bot.permissions import (
    ensure_organizer,
    guild_config_for,
    member_is_organizer,
    organizer_begin,
    require_guild_id,
)
from bot.replies import send_ephemeral, send_reply
from bot.services.sessions import publish
from bot.services.sessions.rules import new_session
from bot.services.suggestions import flows
from bot.services.suggestions.actions import Decision
from bot.services.suggestions.context import Suggestions
from bot.services.suggestions.polls import POLLS_EVERY, POLLS_JOB
from bot.services.suggestions.queries import Place, SortOrder, StatusFilter
from bot.services.suggestions.votes import Press
from bot.text import one_line, plural
from bot.timeutil import discord_timestamp
from cogs.sessions.edit import reply_lines
from cogs.sessions.publish import sessions_of
from cogs.suggestions import _render as render
from cogs.suggestions._components import (
    DYNAMIC_ITEMS,
    SessionFromSuggestionModal,
    SuggestModal,
    session_offer_view,
)
from cogs.suggestions._discord import DiscordSuggestions, InteractionPoll
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

PAGER = "suggestions"
VOTE_DEFER_AFTER = 1.5  # seconds a press waits for its vote before the bot defers (Discord allows 3)


def guild_id_of(interaction: Interaction) -> int:
    """The server of the interaction (suggestions are per server)."""
    return require_guild_id(interaction, "Suggestions work in a server, not in DMs.")


organize = organizer_group("suggestions", "Review suggestions; poll the club on the next paper")


class SuggestionsCog(commands.Cog):
    """/suggest, /suggestions, the posts' buttons and forms, and the poll-result job."""

    # guild_only as a decorator: it sets the contexts the group is synced with too (servers only).
    suggestions = app_commands.guild_only(
        app_commands.Group(
            name="suggest", description="Suggest a paper; see the club's suggestions; take yours back"
        )
    )

    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot
        self.ctx = Suggestions(bot, DiscordSuggestions(bot))
        # Right-click a message → Apps → Suggest this paper (a message command; no privileged intent).
        self.suggest_menu = app_commands.guild_only(
            app_commands.ContextMenu(name="Suggest this paper", callback=self.suggest_from_message)
        )

    async def cog_load(self) -> None:
        self.bot.tree.add_command(self.suggest_menu)
        self.organized = self.bot.organize.attach(organize, self)
        self.bot.add_dynamic_items(*DYNAMIC_ITEMS)
        self.bot.pagers.register(PAGER, self.render_page)
        await self.bot.background.add(
            Job(POLLS_JOB, every(POLLS_EVERY), partial(flows.finish_polls, self.ctx))
        )

    async def cog_unload(self) -> None:
        await self.bot.background.remove(POLLS_JOB)
        await self.ctx.posts.cancel_all()
        self.bot.remove_dynamic_items(*DYNAMIC_ITEMS)
        self.bot.pagers.unregister(PAGER)
        self.bot.organize.detach(self.organized)
        self.bot.tree.remove_command(self.suggest_menu.name, type=self.suggest_menu.type)

    async def settle(self) -> None:
        """Until every post re-render asked for has been made (tests, the demo)."""
        await self.ctx.posts.wait_idle()

    @commands.Cog.listener()
    async def on_paper_enriched(self, guild_id: int, paper_ids: tuple[int, ...]) -> None:
        """The sources' fields of these papers changed: re-render the posts showing them."""
        self.ctx.posts.follow(asyncio.current_task())
        await flows.papers_changed(self.ctx, guild_id, paper_ids)

    @commands.Cog.listener()
    async def on_suggestions_changed(self, guild_id: int, suggestion_ids: tuple[int, ...]) -> None:
        """Another feature changed these suggestions in the store (a member's data deleted): re-render them."""
        for suggestion_id in suggestion_ids:
            self.ctx.posts.request(suggestion_id)

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
        if paper is not None:
            await self.suggest_paper(interaction, flows.Typed(paper, title, why, topic))
            return
        topics, matched = await flows.topics(self.ctx, guild_id_of(interaction), topic)
        await interaction.response.send_modal(SuggestModal(topics, topic=matched, why=why, title=title))

    async def suggest_from_message(self, interaction: Interaction, message: discord.Message) -> None:
        """ "Suggest this paper": the form filled with the message's paper link(s), linking back to it."""
        guild_id = guild_id_of(interaction)
        links = await papers_in_message(interaction, message)
        topics, _ = await flows.topics(self.ctx, guild_id)
        source = Place(message.channel.id, message.id)
        await interaction.response.send_modal(
            SuggestModal(topics, paper=links[0], source=source, links=tuple(links))
        )

    async def suggest_paper(self, interaction: Interaction, typed: flows.Typed) -> None:
        """/suggest and its form: the flow (deferred once the values are checked), then what happened."""

        async def checked() -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)

        now = self.bot.clock.now()
        result = await flows.suggest(
            self.ctx,
            typed,
            guild_id=guild_id_of(interaction),
            user_id=interaction.user.id,
            now=now,
            checked=checked,
        )
        await send_ephemeral(interaction, render.suggested_text(result, typed.volunteer, now))

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
        topics, matched = await flows.topics(self.ctx, guild_id, topic)
        arg = f"{status}.{topics.index(matched) if matched is not None else ''}.{sort}"
        await send_page(interaction, PAGER, arg, await self.render_page(guild_id, arg, 0))

    async def render_page(self, guild_id: int, arg: str, page: int) -> LayoutPage:
        """One page of /suggest list; ``arg`` is 'status.topic-index.sort' (kept in the buttons)."""
        status_text, topic_text, sort_text = (arg.split(".") + ["", "", ""])[:3]
        status: StatusFilter = status_text if status_text in get_args(StatusFilter) else "active"  # type: ignore[assignment]
        sort: SortOrder = "newest" if sort_text == "newest" else "votes"
        index = int(topic_text) if topic_text.isdigit() else None
        found, topic = await flows.list_page(
            self.ctx, guild_id, status=status, topic_index=index, sort=sort, page=page
        )
        card = render.list_card(found, render.list_heading(status, topic, sort))
        return LayoutPage(card, found.page, found.pages)

    @suggestions.command(
        name="show", description="A suggestion's full card: who voted, who offered to present"
    )
    @app_commands.describe(suggestion="The suggestion (type words of its title)")
    async def show(self, interaction: Interaction, suggestion: SuggestionOption) -> None:
        card = await flows.card(self.ctx, guild_id_of(interaction), suggestion)
        await send_reply(interaction, view=render.show_view(card, self.bot.clock.now()))

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
        card, told = await flows.review(
            self.ctx,
            guild_id=guild_id,
            suggestion_id=suggestion,
            decision=decision,
            note=note,
            reviewer_id=interaction.user.id,
            now=now,
        )
        offer = card.status == "accepted" and card.session_id is None
        view = session_offer_view(card.id) if offer else discord.utils.MISSING
        await send_ephemeral(interaction, render.reviewed_text(card, told), view=view)

    @suggestions.command(name="withdraw", description="Take back a suggestion (yours, or any for organizers)")
    @app_commands.describe(suggestion="The suggestion to withdraw")
    async def withdraw(self, interaction: Interaction, suggestion: ActiveSuggestionOption) -> None:
        config = await guild_config_for(interaction)
        is_organizer = isinstance(interaction.user, discord.Member) and member_is_organizer(
            interaction.user, config
        )
        card = await flows.withdraw(
            self.ctx,
            guild_id=guild_id_of(interaction),
            suggestion_id=suggestion,
            user_id=interaction.user.id,
            is_organizer=is_organizer,
            now=self.bot.clock.now(),
        )
        await send_ephemeral(interaction, f"**{escape_line(card.paper.title, 150)}** is withdrawn.")

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
        now = self.bot.clock.now()
        await flows.start_poll(
            self.ctx,
            InteractionPoll(interaction, hours),
            guild_id=guild_id_of(interaction),
            count=count,
            created_by=interaction.user.id,
            ends_at=now + timedelta(hours=hours),
            now=now,
        )

    # The posts' buttons and forms call these (_components.Presses).
    async def press_vote(self, interaction: Interaction, suggestion_id: int) -> None:
        """Upvote: the vote toggled; the member told the count."""
        press = Press(guild_id_of(interaction), suggestion_id, interaction.user.id, self.bot.clock.now())
        writing = asyncio.ensure_future(flows.vote(self.ctx, press))
        done, _ = await asyncio.wait({writing}, timeout=VOTE_DEFER_AFTER)
        if not done:  # past VOTE_DEFER_AFTER the press is acknowledged first (thinking)
            await interaction.response.defer(ephemeral=True, thinking=True)
        result = await writing
        votes = plural(result.count, "vote")
        if result.added:
            text = f"👍 Your vote is in ({votes} now). Press **Upvote** again to take it back."
        else:
            text = f"Your vote was taken back ({votes} now)."
        await send_ephemeral(interaction, text)

    async def press_present(self, interaction: Interaction, suggestion_id: int) -> None:
        """I'd present this: the offer toggled."""
        now = self.bot.clock.now()
        if await flows.volunteer(self.ctx, guild_id_of(interaction), suggestion_id, interaction.user.id, now):
            text = "🎤 Thank you! The organizers will see that you offered to present this paper."
        else:
            text = "You are no longer listed as offering to present this paper."
        await send_ephemeral(interaction, text)

    async def open_session_form(self, interaction: Interaction, suggestion_id: int) -> None:
        """Create a session from it: the session form, prefilled (organizers)."""
        config = await ensure_organizer(interaction)
        card = await flows.accepted(self.ctx, guild_id_of(interaction), suggestion_id)
        title = one_line(card.paper.title, 200)
        await interaction.response.send_modal(SessionFromSuggestionModal(card.id, title, config.timezone))

    async def create_session_from(
        self, interaction: Interaction, suggestion_id: int, title: str, when: str, timezone: str | None
    ) -> None:
        """The session form: its paper, the one volunteer (if only one) presenting, the suggestion linked."""
        config = await ensure_organizer(interaction)
        guild_id, now = guild_id_of(interaction), self.bot.clock.now()
        card = await flows.accepted(self.ctx, guild_id, suggestion_id)  # a quick refusal; the link re-checks
        presenter = card.volunteer_ids[0] if len(card.volunteer_ids) == 1 else None
        paper = card.paper.url or card.paper.title
        draft = new_session(
            title=title,
            when=when,
            zone=timezone,
            default_zone=config.timezone,
            now=now,
            presenter_id=presenter,
            papers=[paper],
        )
        await interaction.response.defer(ephemeral=True, thinking=True)  # the event is made over REST
        link = flows.link_step(guild_id, card.id, now)
        published = await publish.create(
            sessions_of(self.bot),
            guild_id,
            draft,
            created_by=interaction.user.id,
            zones=config.display_zones,
            now=now,
            then=link,
        )
        await self.ctx.show_post(card.id)  # awaited: no re-render still reads the store when the cog unloads
        info = published.info
        lines = [
            f"Made the session **{escape_line(info.title, 150)}** for {discord_timestamp(info.starts_at, 'F')}.",
            f"Announce it with `/organize session announce session:{info.id}` (or change it with `/organize session edit`).",
        ]
        if presenter is not None:
            lines.append(f"<@{presenter}> offered to present, so they are down as the presenter.")
        lines.extend(reply_lines(published))
        await send_ephemeral(interaction, "\n".join(lines))
