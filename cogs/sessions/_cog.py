"""/session list and show; /organize session add, edit, cancel, announce and recap (organizers)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import timeutil
from bot.background import Job, every
from bot.client import Interaction, PaperclubBot
from bot.errors import BadInput, Conflict
from bot.organize import organizer_group
from bot.paging import LayoutPage, send_page
from bot.papers import MAX_PAPER_LIST_TEXT, MAX_URL_LENGTH
from bot.permissions import ensure_organizer, organizer_begin, require_guild_id
from bot.replies import send_ephemeral, send_reply
from bot.services.sessions import events, members, publish, queries, rules
from bot.transformers import SessionEditWhen, SessionOption, SessionWhen, timezone_autocomplete
from cogs.sessions import _render as render
from cogs.sessions.buttons import BUTTONS, announcement_view, for_presenter_text
from cogs.sessions.edit import (
    CHANNEL_HELP,
    EditSessionModal,
    HeldIn,
    apply_edit,
    checked_place,
    reply_lines,
    reply_with_card,
)
from cogs.sessions.publish import COUNTS_JOB, ComingCounts, hear_interest, sessions_of

Title = app_commands.Range[str, 1, rules.MAX_TITLE]
Name = app_commands.Range[str, 1, rules.MAX_PRESENTER_NAME]
Papers = app_commands.Range[str, 1, MAX_PAPER_LIST_TEXT]
Url = app_commands.Range[str, 1, MAX_URL_LENGTH]
Duration = app_commands.Range[int, rules.MIN_DURATION, rules.MAX_DURATION]
Description = app_commands.Range[str, 1, rules.MAX_DESCRIPTION]
Zone = app_commands.Range[str, 1, timeutil.MAX_ZONE_TEXT]  # as typed: the session's draft resolves it, once

WHEN_HELP = "e.g. 2026-11-05 08:00, 5 Nov 2026 8:00 AM, Thursday 9:30am, tomorrow 17:00"
TZ_HELP = "Zone `when` is read in: PT, ET, UK, GMT, CET, IST, UTC or an IANA name (default: the server's)"
PAPERS_HELP = "One per line, or split by ; (or commas): titles, arXiv ids, DOIs, links"
HOUR_JOB = "sessions.hour"
HOUR_EVERY = timedelta(seconds=15)  # a channel session's event starts and ends within this of its times
LIST_PAGER = "sessions"  # bot.paging also turns /session list's old "session:list:…" buttons with it

organize = organizer_group("session", "Add, change, cancel, announce and recap sessions")


@app_commands.guild_only()
class SessionsCog(commands.GroupCog, group_name="session", group_description="The club's reading sessions"):
    """/session and the announcements' buttons; each action one call into bot/services/sessions."""

    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot
        self.context = sessions_of(bot)
        self._caught_up: dict[int, asyncio.Event] = {}
        self._refreshing: set[asyncio.Task[object]] = set()
        self.counts = ComingCounts(bot, self.context)
        # Interested marks taken one at a time, in gateway order: a mark and its quick unmark cannot pass.
        self._marks = asyncio.Lock()
        self._stop_hearing = lambda: None
        super().__init__()

    async def cog_load(self) -> None:
        """Register the pages and buttons; hear Interested marks; start the hour's job."""
        self.bot.pagers.register(LIST_PAGER, self.render_page)
        self.bot.add_dynamic_items(*BUTTONS)
        self.organized = self.bot.organize.attach(organize, self)
        self._stop_hearing = hear_interest(self.bot)
        await self.bot.background.add(
            Job(COUNTS_JOB, every(timedelta(hours=1)), self.counts.run_due, once=False)
        )
        await self.bot.background.add(Job(HOUR_JOB, every(HOUR_EVERY), self.run_hour, once=False))

    async def cog_unload(self) -> None:
        """Take them back; wait for the announcements' edits in flight."""
        await self.bot.background.remove(HOUR_JOB)
        self._stop_hearing()
        self.bot.organize.detach(self.organized)
        self.bot.remove_dynamic_items(*BUTTONS)
        self.bot.pagers.unregister(LIST_PAGER)
        await self.announcements_refreshed()
        await self.bot.background.remove(COUNTS_JOB)  # changes not shown yet wait for the next edit

    @commands.Cog.listener()
    async def on_scheduled_event_interest(
        self, guild_id: int, event_id: int, user_id: int, interested: bool
    ) -> None:
        """*Interested* marked or unmarked on a session's event: it counts as Remind me."""
        with self._tracked():
            async with self._marks:
                now = self.bot.clock.now()
                await members.interest_marked(self.context, guild_id, event_id, user_id, interested, now)

    @commands.Cog.listener()
    async def on_session_subscription_changed(
        self, guild_id: int, session_id: int, user_id: int, subscribed: bool
    ) -> None:
        """Show the new count on the announcement (edits coalesced)."""
        with self._tracked():
            await self.counts.changed(guild_id, session_id)

    @commands.Cog.listener()
    async def on_paper_enriched(self, guild_id: int, paper_ids: tuple[int, ...]) -> None:
        """The sources' fields of these papers changed: edit the announcements showing them."""
        with self._tracked():
            await publish.refresh_enriched(self.context, guild_id, paper_ids, self.bot.clock.now())

    @contextlib.contextmanager
    def _tracked(self) -> Iterator[None]:
        """Count the running listener among the announcements' edits unload waits for."""
        task = asyncio.current_task()
        assert task is not None  # a listener runs in its own task
        self._refreshing.add(task)
        try:
            yield
        finally:
            self._refreshing.discard(task)

    async def announcements_refreshed(self) -> None:
        """Wait for the announcements' edits the listeners set off (tests, unload)."""
        await asyncio.sleep(0)  # one turn of the loop: a just-dispatched listener has started and is listed
        pending = [t for t in self._refreshing if t is not asyncio.current_task()]
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)

    async def render_page(self, guild_id: int, arg: str, page: int) -> LayoutPage:
        """One page of /session list (``arg`` unused)."""
        now = self.bot.clock.now()
        found = await queries.upcoming_page(self.context.store, guild_id, now, page, render.LIST_PAGE_SIZE)
        card = render.list_card(found.sessions, found.zones, total=found.total, pages=found.pages, now=now)
        return LayoutPage(card, found.page, found.pages, note=f"{found.total} upcoming")

    def events_caught_up(self, guild_id: int) -> asyncio.Event:
        """Set once the server's sessions were caught up since start-up (tests, the demo)."""
        return self._caught_up.setdefault(guild_id, asyncio.Event())

    @commands.Cog.listener("on_guild_available")
    @commands.Cog.listener("on_guild_join")
    async def catch_up(self, guild: discord.Guild) -> None:
        """Imported sessions get their Discord event; Interested marks and the hour missed while down."""
        try:
            await events.catch_up(self.context, guild.id, self.bot.clock.now())
            await members.catch_up_interest(self.context, guild.id, self.bot.clock.now())
            await events.run_hour(self.context, [guild.id], self.bot.clock.now())
        finally:
            self.events_caught_up(guild.id).set()

    async def run_hour(self, now: datetime) -> int:
        """Start and end the events of this process's servers' channel sessions that are due."""
        return await events.run_hour(self.context, [guild.id for guild in self.bot.guilds], now)

    @organize.command(name="add", description="Add a session")
    @app_commands.autocomplete(timezone=timezone_autocomplete)
    @app_commands.describe(
        title="What the session is about",
        when=WHEN_HELP,
        timezone=TZ_HELP,
        presenter="The member who presents",
        presenter_name="A guest presenter's name (or how to show the member's name)",
        papers=PAPERS_HELP,
        signup_url="The sign-up page (https://…)",
        duration="Length in minutes (default 60)",
        description="A few lines on what the session covers",
        channel=CHANNEL_HELP,
    )
    async def add(
        self,
        interaction: Interaction,
        title: Title,
        when: SessionWhen,
        timezone: Zone | None = None,
        presenter: discord.Member | None = None,
        presenter_name: Name | None = None,
        papers: Papers | None = None,
        signup_url: Url | None = None,
        duration: Duration = 60,
        description: Description | None = None,
        channel: HeldIn | None = None,
    ) -> None:
        place = checked_place(interaction.guild, channel) if channel else None
        config, guild_id, now = await organizer_begin(interaction)
        draft = rules.new_session(
            title=title,
            when=when,
            zone=timezone,
            default_zone=config.timezone,
            now=now,
            presenter_id=presenter.id if presenter else None,
            presenter_name=presenter_name or (presenter.display_name if presenter else None),
            papers=papers,
            signup_url=signup_url,
            duration=duration,
            description=description,
            channel=place,
        )
        published = await publish.create(
            self.context, guild_id, draft, created_by=interaction.user.id, zones=config.display_zones, now=now
        )
        info = published.info
        lines = [
            f"Added session #{info.id}. This is how its announcement will look; "
            f"post it with `/organize session announce session:{info.id}`.",
            *reply_lines(published),
        ]
        await reply_with_card(interaction, lines, info, config, now)

    @organize.command(name="edit", description="Change a session; with no options, edit it in a form")
    @app_commands.autocomplete(timezone=timezone_autocomplete)
    @app_commands.describe(
        session="The session to change",
        title="New title",
        when=WHEN_HELP,
        timezone=TZ_HELP + "; give it with `when`",
        presenter="The member who presents",
        presenter_name="A guest presenter's name; - removes the presenter",
        papers=PAPERS_HELP + "; - removes them",
        signup_url="The sign-up page; - removes it",
        duration="Length in minutes",
        description="What the session covers; - removes it",
        channel=CHANNEL_HELP.replace(" (default: at the sign-up link)", ""),
        link_only="True: held at the sign-up link again, not in a channel",
    )
    async def edit(
        self,
        interaction: Interaction,
        session: SessionOption,
        title: Title | None = None,
        when: SessionEditWhen | None = None,
        timezone: Zone | None = None,
        presenter: discord.Member | None = None,
        presenter_name: Name | None = None,
        papers: Papers | None = None,
        signup_url: Url | None = None,
        duration: Duration | None = None,
        description: Description | None = None,
        channel: HeldIn | None = None,
        link_only: bool | None = None,
    ) -> None:
        config = await ensure_organizer(interaction)
        guild_id = require_guild_id(interaction)
        if channel is not None and link_only:
            raise BadInput("Pick a `channel` or `link_only`, not both.")
        given = {
            "title": title,
            "when": when,
            "zone": timezone,
            "presenter_name": presenter_name,
            "papers": papers,
            "signup_url": signup_url,
            "duration": duration,
            "description": description,
        }
        request: dict[str, Any] = {name: value for name, value in given.items() if value is not None}
        if presenter is not None:
            request.update(presenter_id=presenter.id, presenter_name=presenter_name or presenter.display_name)
        if channel is not None or link_only:
            request["channel"] = checked_place(interaction.guild, channel) if channel else None
        if not request:
            info, _ = await queries.session_with_zones(self.context.store, guild_id, session)
            if info.is_cancelled:
                raise Conflict(f"Session #{info.id} was cancelled; add a new session instead.")
            await interaction.response.send_modal(EditSessionModal(self.context, info))
            return
        await apply_edit(self.context, interaction, config, session, request)

    @organize.command(name="cancel", description="Cancel a session")
    @app_commands.describe(session="The session to cancel", reason="Shown in the cancellation notice")
    async def cancel(
        self,
        interaction: Interaction,
        session: SessionOption,
        reason: app_commands.Range[str, 1, rules.MAX_CANCEL_REASON] | None = None,
    ) -> None:
        config, guild_id, now = await organizer_begin(interaction)
        cancelled = await publish.cancel(
            self.context, guild_id, session, reason=reason, zones=config.display_zones, now=now
        )
        info = cancelled.info
        lines = [f"Cancelled session #{info.id}."]
        if info.is_announced:
            lines.append(f"A notice is posted in <#{info.announcement_channel_id}>.")
        lines.extend(cancelled.warnings)
        await reply_with_card(interaction, lines, info, config, now)

    @organize.command(name="announce", description="Post (or update) a session's announcement")
    @app_commands.describe(
        session="The session to announce",
        channel="Where to post (default: the announcements channel, or where it was posted before)",
    )
    async def announce(
        self, interaction: Interaction, session: SessionOption, channel: discord.TextChannel | None = None
    ) -> None:
        config, guild_id, now = await organizer_begin(interaction)
        announced = await publish.announce(
            self.context,
            guild_id,
            session,
            channel_id=channel.id if channel else None,
            default_channel_id=config.announcements_channel_id,
            zones=config.display_zones,
            now=now,
        )
        verb = "Updated the announcement of" if announced.edited else "Announced"
        lines = [f"{verb} session #{announced.info.id}: {announced.jump_url}", *announced.warnings]
        await send_ephemeral(interaction, "\n".join(lines))

    @organize.command(name="recap", description="Add the recording and notes after a session")
    @app_commands.describe(
        session="The session that took place",
        recording_url="Link to the recording",
        notes_url="Link to the notes page",
        wiki_url="Link to the papers' wiki page",
    )
    async def recap(
        self,
        interaction: Interaction,
        session: SessionOption,
        recording_url: Url | None = None,
        notes_url: Url | None = None,
        wiki_url: Url | None = None,
    ) -> None:
        config, guild_id, now = await organizer_begin(interaction)
        info, warnings = await publish.recap(
            self.context,
            guild_id,
            session,
            recording_url=recording_url,
            notes_url=notes_url,
            wiki_url=wiki_url,
            zones=config.display_zones,
            now=now,
        )
        lines = [f"Saved the recap of session #{info.id}."]
        if info.is_announced:
            lines.append("The announcement now links it.")
        lines.extend(warnings)
        await reply_with_card(interaction, lines, info, config, now)

    @organize.command(
        name="for-presenter",
        description="Who stays out of the recording, and the questions: what the presenter gets",
    )
    @app_commands.describe(session="The session")
    async def for_presenter(self, interaction: Interaction, session: SessionOption) -> None:
        _config, guild_id, _now = await organizer_begin(interaction)
        found = await members.for_presenter(self.context.store, guild_id, session)
        await send_ephemeral(interaction, for_presenter_text(found))

    @app_commands.command(name="list", description="Upcoming sessions, soonest first")
    @app_commands.describe(public="Post the list for everyone (default: only you see it)")
    async def list_(self, interaction: Interaction, public: bool = False) -> None:
        guild_id = require_guild_id(interaction)
        await send_page(interaction, LIST_PAGER, "", await self.render_page(guild_id, "", 0), public=public)

    @app_commands.command(name="show", description="A session's card, with recording and notes once known")
    @app_commands.describe(
        session="The session to show", public="Post it for everyone (default: only you see it)"
    )
    async def show(self, interaction: Interaction, session: SessionOption, public: bool = False) -> None:
        guild_id = require_guild_id(interaction)
        info, zones = await queries.session_with_zones(self.context.store, guild_id, session)
        view = await announcement_view(self.bot, info, zones, self.bot.clock.now())
        await send_reply(interaction, view=view, public=public)
