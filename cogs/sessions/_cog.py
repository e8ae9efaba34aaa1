"""/session: add, edit, cancel, announce, list, show, recap, calendar."""

from __future__ import annotations

import asyncio
import io

import discord
from discord import app_commands
from discord.ext import commands

from bot import timeutil
from bot.client import Interaction, PaperclubBot
from bot.errors import BadInput, Conflict
from bot.paging import Page, clamp_page, page_count, send_page
from bot.papers import MAX_PAPER_LIST_TEXT, MAX_URL_LENGTH
from bot.permissions import ensure_organizer, organizer_begin, require_guild_id
from bot.replies import send_ephemeral, send_reply
from bot.services.calendars import ics
from bot.services.config.guild import get_config
from bot.services.sessions import queries, rules
from bot.services.sessions import store as svc
from bot.services.sessions.draft import new_session
from bot.transformers import SessionEditWhen, SessionOption, SessionWhen, timezone_autocomplete
from cogs.sessions import _announcements as announcements
from cogs.sessions import _render as render
from cogs.sessions._buttons import CalendarButton, RemindMeButton, announcement_view
from cogs.sessions._catchup import catch_up
from cogs.sessions._edit import EditRequest, EditSessionModal, apply_edit, reply_with_card
from cogs.sessions._enriched import refresh_enriched
from cogs.sessions._events import sync_event
from cogs.sessions.publish import create_and_publish, publish_cancelled

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
LIST_PAGER = "sessions"  # bot.paging also turns /session list's old "session:list:…" buttons with it


@app_commands.guild_only()
class SessionsCog(commands.GroupCog, group_name="session", group_description="The club's reading sessions"):
    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot
        self._caught_up: dict[int, asyncio.Event] = {}
        self._refreshing: set[asyncio.Task[object]] = set()
        super().__init__()

    async def cog_load(self) -> None:
        self.bot.pagers.register(LIST_PAGER, self.render_page)
        self.bot.add_dynamic_items(RemindMeButton, CalendarButton)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(RemindMeButton, CalendarButton)
        self.bot.pagers.unregister(LIST_PAGER)
        await self.announcements_refreshed()

    # ------------------------------------------------------------------ papers' new fields

    @commands.Cog.listener()
    async def on_paper_enriched(self, guild_id: int, paper_ids: tuple[int, ...]) -> None:
        """The sources' fields of these papers changed: edit the announcements showing them."""
        task = asyncio.current_task()
        if task is not None:
            self._refreshing.add(task)
        try:
            await refresh_enriched(self.bot, guild_id, paper_ids)
        finally:
            if task is not None:
                self._refreshing.discard(task)

    async def announcements_refreshed(self) -> None:
        """Wait for the announcements' edits set off by ``paper_enriched`` (tests, unload)."""
        await asyncio.sleep(0)  # one turn of the loop: a just-dispatched listener has started and is listed
        pending = [t for t in self._refreshing if t is not asyncio.current_task()]
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)

    async def render_page(self, guild_id: int, arg: str, page: int) -> Page:
        """One page of /session list (``arg`` unused). The ◀ ▶ buttons call it again."""
        now = self.bot.clock.now()
        async with self.bot.session_factory() as session:
            config = await get_config(session, guild_id)
            total = await queries.count_upcoming(session, guild_id, now)
            pages = page_count(total, render.LIST_PAGE_SIZE)
            page = clamp_page(page, pages)
            infos = await queries.list_upcoming(
                session, guild_id, now, limit=render.LIST_PAGE_SIZE, offset=page * render.LIST_PAGE_SIZE
            )
        embed = render.list_embed(infos, config.display_zones, total=total, now=now)
        return Page(embed, page, pages, note=f"{total} upcoming")

    # ------------------------------------------------------------------ Discord events of imported sessions

    def events_caught_up(self, guild_id: int) -> asyncio.Event:
        """Set once the server's sessions have had their missing Discord events made since start-up (tests,
        the demo)."""
        return self._caught_up.setdefault(guild_id, asyncio.Event())

    @commands.Cog.listener()
    async def on_guild_available(self, guild: discord.Guild) -> None:
        """Upcoming sessions without a Discord event (imported ones) get theirs (cogs/sessions/_catchup.py)."""
        await self._catch_up(guild)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        """The same when the bot joins a server that already has sessions."""
        await self._catch_up(guild)

    async def _catch_up(self, guild: discord.Guild) -> None:
        try:
            await catch_up(self.bot, guild)
        finally:
            self.events_caught_up(guild.id).set()

    # ------------------------------------------------------------------ organizers

    @app_commands.command(name="add", description="Add a session (organizers)")
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
    ) -> None:
        config, guild_id, now = await organizer_begin(interaction)
        draft = new_session(
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
        )
        published = await create_and_publish(
            self.bot, guild_id, draft, created_by=interaction.user.id, zones=config.display_zones
        )
        info = published.info
        lines = [
            f"Added session #{info.id}. This is how its announcement will look; "
            f"post it with `/session announce session:{info.id}`.",
            *published.notes,
            *published.warnings,
        ]
        await reply_with_card(interaction, lines, info, config, now)

    @app_commands.command(name="edit", description="Change a session; with no options, edit it in a form")
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
    ) -> None:
        config = await ensure_organizer(interaction)
        guild_id = require_guild_id(interaction)
        request = EditRequest(
            title=title,
            when=when,
            timezone=timezone,
            presenter=presenter,
            presenter_name=presenter_name,
            papers=papers,
            signup_url=signup_url,
            duration=duration,
            description=description,
        )
        if request.is_empty():
            async with self.bot.session_factory() as db:
                info = await svc.get_session(db, guild_id, session)
            if info.is_cancelled:
                raise Conflict(f"Session #{info.id} was cancelled; add a new session instead.")
            await interaction.response.send_modal(EditSessionModal(self.bot, info))
            return
        await apply_edit(self.bot, interaction, config, session, request)

    @app_commands.command(name="cancel", description="Cancel a session (organizers)")
    @app_commands.describe(session="The session to cancel", reason="Shown in the cancellation notice")
    async def cancel(
        self,
        interaction: Interaction,
        session: SessionOption,
        reason: app_commands.Range[str, 1, rules.MAX_CANCEL_REASON] | None = None,
    ) -> None:
        config, guild_id, now = await organizer_begin(interaction)
        async with self.bot.session_factory() as db, db.begin():
            info = await svc.cancel_session(db, guild_id, session, reason=reason, now=now)
        warnings = await publish_cancelled(self.bot, interaction.guild, info, config.display_zones)
        lines = [f"Cancelled session #{info.id}."]
        if info.is_announced:
            lines.append(f"A notice is posted in <#{info.announcement_channel_id}>.")
        lines.extend(warnings)
        await reply_with_card(interaction, lines, info, config, now)

    @app_commands.command(
        name="announce", description="Post (or update) a session's announcement (organizers)"
    )
    @app_commands.describe(
        session="The session to announce",
        channel="Where to post (default: the announcements channel, or where it was posted before)",
    )
    async def announce(
        self,
        interaction: Interaction,
        session: SessionOption,
        channel: discord.TextChannel | None = None,
    ) -> None:
        config, guild_id, now = await organizer_begin(interaction)
        async with self.bot.session_factory() as db:
            info = await svc.get_session(db, guild_id, session)
        if info.is_cancelled:
            raise Conflict(f"Session #{info.id} was cancelled; there is nothing to announce.")
        if info.has_ended(now):
            raise BadInput(
                f"Session #{info.id} is over; use `/session recap` to add its recording and notes."
            )
        outcome = await announcements.announce(
            self.bot,
            info,
            config.display_zones,
            channel_id=channel.id if channel else None,
            default_channel_id=config.announcements_channel_id,
        )
        verb = "Updated the announcement of" if outcome.edited else "Announced"
        lines = [f"{verb} session #{info.id}: {outcome.jump_url}"]
        if info.event_id is None and interaction.guild is not None:
            warning = await sync_event(self.bot, interaction.guild, info, config.display_zones)
            if warning:
                outcome.warnings.append(warning)
        lines.extend(outcome.warnings)
        await send_ephemeral(interaction, "\n".join(lines))

    @app_commands.command(
        name="recap", description="Add the recording and notes after a session (organizers)"
    )
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
        async with self.bot.session_factory() as db, db.begin():
            info = await svc.recap_session(
                db,
                guild_id,
                session,
                now=now,
                recording_url=recording_url,
                notes_url=notes_url,
                wiki_url=wiki_url,
            )
        lines = [f"Saved the recap of session #{info.id}."]
        if info.is_announced:
            lines.append("The announcement now links it.")
        warnings = [
            await announcements.refresh_announcement(self.bot, info, config.display_zones),
            await announcements.post_recap(self.bot, info),
        ]
        lines.extend(w for w in warnings if w)
        await reply_with_card(interaction, lines, info, config, now)

    # ------------------------------------------------------------------ everyone

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
        now = self.bot.clock.now()
        async with self.bot.session_factory() as db:
            config = await get_config(db, guild_id)
            info = await svc.get_session(db, guild_id, session)
        view = await announcement_view(self.bot, info, config.display_zones, now)
        await send_reply(interaction, view=view, public=public)

    @app_commands.command(name="calendar", description="A calendar file (.ics) of all upcoming sessions")
    async def calendar(self, interaction: Interaction) -> None:
        guild_id = require_guild_id(interaction)
        now = self.bot.clock.now()
        name = interaction.guild.name if interaction.guild else "Paper club"
        async with self.bot.session_factory() as db:
            data, count = await ics.guild_calendar(db, guild_id, now, name=name[:100])
        await send_ephemeral(
            interaction,
            f"{count} upcoming session{'s' if count != 1 else ''}. Open the file to add them to your calendar; "
            "importing it again later updates them.",
            file=discord.File(io.BytesIO(data), filename="paperclub-sessions.ics"),
        )
