"""/reading: history, lists, show, add, remove, search, export. Thin: read the interaction, call the
service, render the reply. Paged replies use bot.paging, so their ◀ ▶ buttons work after a restart."""

from __future__ import annotations

import io
from dataclasses import replace

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, PaperclubBot
from bot.errors import BadInput
from bot.message_papers import papers_in_message
from bot.paging import LayoutPage, clamp_page, page_count, send_page
from bot.permissions import ensure_organizer, require_guild_id
from bot.replies import NO_MENTIONS, send_ephemeral
from bot.services.config.guild import get_config
from bot.services.papers.metadata import fill_missing_metadata
from bot.services.reading import exports, saved_queries
from bot.services.reading import lists as svc
from bot.services.reading import search as full_text
from bot.timeutil import resolve_timezone
from cogs.reading import _render as render
from cogs.reading._forms import LIST_CHOICES, AddFromMessageModal
from cogs.reading._options import (
    EXPORT_CHOICES,
    EXPORT_NAMES,
    ListName,
    Note,
    PageNumber,
    PaperArg,
    Query,
    any_paper_autocomplete,
    export_format,
    list_name_autocomplete,
    list_paper_autocomplete,
    query_autocomplete,
)

HISTORY_PAGER = "reading_history"
LISTS_PAGER = "reading_lists"
LIST_PAGER = "reading_list"
SEARCH_PAGER = "reading_search"
ATTACHMENT_LIMIT = 10 * 1024 * 1024
PUBLIC_HELP = "Post the answer in the channel for everyone (default: only you see it)"
PAPER_HELP = "arXiv id or link, DOI, any https:// link, or the title"


@app_commands.guild_only()
class ReadingCog(
    commands.GroupCog,
    group_name="reading",
    group_description="What the club has read: history, reading lists, search and exports",
):
    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot
        super().__init__()
        # Right-click a message → Apps → Add to reading list (organizers, checked in the callback).
        self.add_menu = app_commands.guild_only(
            app_commands.ContextMenu(name="Add to reading list", callback=self.add_from_message)
        )

    async def cog_load(self) -> None:
        self.bot.tree.add_command(self.add_menu)
        self.bot.pagers.register(HISTORY_PAGER, self.history_page)
        self.bot.pagers.register(LISTS_PAGER, self.lists_page)
        self.bot.pagers.register(LIST_PAGER, self.list_page)
        self.bot.pagers.register(SEARCH_PAGER, self.search_page)

    async def cog_unload(self) -> None:
        self.bot.pagers.unregister(HISTORY_PAGER, LISTS_PAGER, LIST_PAGER, SEARCH_PAGER)
        self.bot.tree.remove_command(self.add_menu.name, type=self.add_menu.type)

    async def add_from_message(self, interaction: Interaction, message: discord.Message) -> None:
        """ "Add to reading list": organizers only; the form filled with the message's paper link."""
        await ensure_organizer(interaction)
        guild_id = require_guild_id(interaction)
        links = await papers_in_message(interaction, message)
        async with self.bot.session_factory() as session:
            names = await svc.list_name_choices(session, guild_id, "", LIST_CHOICES)
        await interaction.response.send_modal(AddFromMessageModal(links, names))

    # ------------------------------------------------------------------ page renderers (also after restarts)

    async def history_page(self, guild_id: int, arg: str, page: int) -> LayoutPage:
        now = self.bot.clock.now()
        async with self.bot.session_factory() as session:
            history = await svc.history_page(
                session, guild_id, now, page=page, per_page=render.HISTORY_PAGE_SIZE
            )
        return LayoutPage(render.history_card(history, now), history.page, history.pages)

    async def lists_page(self, guild_id: int, arg: str, page: int) -> LayoutPage:
        async with self.bot.session_factory() as session:
            summaries = await svc.list_summaries(session, guild_id)
        pages = page_count(len(summaries), render.LISTS_PAGE_SIZE)
        page = clamp_page(page, pages)
        shown = summaries[page * render.LISTS_PAGE_SIZE : (page + 1) * render.LISTS_PAGE_SIZE]
        return LayoutPage(render.lists_card(shown, len(summaries)), page, pages)

    async def list_page(self, guild_id: int, arg: str, page: int) -> LayoutPage:
        async with self.bot.session_factory() as session:
            found = await svc.list_page(
                session, guild_id, int(arg or 0), page=page, per_page=render.LIST_PAGE_SIZE
            )
        if found is None:
            return LayoutPage(render.gone_card("Reading list", "This list no longer exists."), 0, 1)
        return LayoutPage(render.list_card(found), found.page, found.pages)

    async def search_page(self, guild_id: int, arg: str, page: int) -> LayoutPage:
        now = self.bot.clock.now()
        async with self.bot.session_factory() as session:
            query = await saved_queries.saved_query(session, guild_id, int(arg or 0))
            if query is None:
                expired = render.gone_card("Search", "This search has expired; run it again.")
                return LayoutPage(expired, 0, 1)
            result = await full_text.search(
                session, guild_id, query, page=page, per_page=render.SEARCH_PAGE_SIZE
            )
        return LayoutPage(render.search_card(result, now), result.page, result.pages)

    # ------------------------------------------------------------------ everyone

    @app_commands.command(name="history", description="Sessions the club has held, newest first")
    @app_commands.describe(page="Which page to open (5 sessions a page)", public=PUBLIC_HELP)
    async def history(self, interaction: Interaction, page: PageNumber = 1, public: bool = False) -> None:
        shown = await self.history_page(require_guild_id(interaction), "", page - 1)
        await send_page(interaction, HISTORY_PAGER, "", shown, public=public)

    @app_commands.command(name="lists", description="The server's reading lists and their sizes")
    @app_commands.describe(public=PUBLIC_HELP)
    async def lists(self, interaction: Interaction, public: bool = False) -> None:
        guild_id = require_guild_id(interaction)
        await send_page(interaction, LISTS_PAGER, "", await self.lists_page(guild_id, "", 0), public=public)

    @app_commands.command(name="show", description="The papers on a reading list, with notes")
    @app_commands.rename(list_name="list")
    @app_commands.describe(list_name="The reading list", public=PUBLIC_HELP)
    @app_commands.autocomplete(list_name=list_name_autocomplete)
    async def show(self, interaction: Interaction, list_name: ListName, public: bool = False) -> None:
        guild_id = require_guild_id(interaction)
        async with self.bot.session_factory() as session:
            list_id = await svc.list_id_for(session, guild_id, list_name)
        arg = str(list_id)
        await send_page(interaction, LIST_PAGER, arg, await self.list_page(guild_id, arg, 0), public=public)

    @app_commands.command(name="search", description="Search sessions, papers, presenters and reading lists")
    @app_commands.describe(
        query="A few words: a paper, an author, a topic, a presenter or a list", public=PUBLIC_HELP
    )
    @app_commands.autocomplete(query=query_autocomplete)
    async def search(self, interaction: Interaction, query: Query, public: bool = False) -> None:
        guild_id = require_guild_id(interaction)
        now = self.bot.clock.now()
        async with self.bot.session_factory() as session:
            result = await full_text.search(session, guild_id, query, per_page=render.SEARCH_PAGE_SIZE)
        page = LayoutPage(render.search_card(result, now), result.page, result.pages)
        query_id = 0
        if result.pages > 1:  # the buttons carry a saved query's id, so they work after a restart
            async with self.bot.session_factory() as session, session.begin():
                query_id = await saved_queries.save_query(session, guild_id, result.query, now)
        await send_page(interaction, SEARCH_PAGER, str(query_id), page, public=public)

    @app_commands.command(name="export", description="The reading history or one list as a file")
    @app_commands.rename(list_name="list", file_format="format")
    @app_commands.describe(
        file_format="Markdown (the club page's form), BibTeX, CSV or JSON (default Markdown)",
        list_name="A reading list to export instead of the history",
    )
    @app_commands.autocomplete(list_name=list_name_autocomplete)
    @app_commands.choices(file_format=EXPORT_CHOICES)
    async def export(
        self,
        interaction: Interaction,
        file_format: str = "markdown",
        list_name: ListName | None = None,
    ) -> None:
        guild_id = require_guild_id(interaction)
        fmt = export_format(file_format)
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with self.bot.session_factory() as session:
            if list_name is not None:
                file = exports.export_list(fmt, await svc.list_detail(session, guild_id, list_name))
                what = f"“{list_name.strip()}”"
            else:
                zone = resolve_timezone((await get_config(session, guild_id)).timezone)
                entries = await svc.all_history(session, guild_id, self.bot.clock.now())
                file = exports.export_history(fmt, entries, zone)
                what = "the reading history"
        if len(file.data) > ATTACHMENT_LIMIT:
            raise BadInput("That export is over 10 MB, too big to attach; export a single list instead.")
        await interaction.followup.send(
            content=f"Here is {what} as {EXPORT_NAMES[fmt]}.",
            file=discord.File(io.BytesIO(file.data), filename=file.filename),
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
        )

    # ------------------------------------------------------------------ organizers

    @app_commands.command(
        name="add", description="Put a paper on a reading list, creating the list if new (organizers)"
    )
    @app_commands.rename(list_name="list")
    @app_commands.describe(
        list_name="The reading list (a new name starts a list)",
        paper=PAPER_HELP,
        note="Why it is on the list",
    )
    @app_commands.autocomplete(list_name=list_name_autocomplete, paper=any_paper_autocomplete)
    async def add(
        self,
        interaction: Interaction,
        list_name: ListName,
        paper: PaperArg,
        note: Note | None = None,
    ) -> None:
        await ensure_organizer(interaction)
        await self.add_paper(interaction, list_name, paper, note)

    async def add_paper(
        self, interaction: Interaction, list_name: str, paper: svc.PaperInput, note: str | None
    ) -> None:
        """/reading add and "Add to reading list": store in one transaction, fill in arXiv's title, answer."""
        guild_id = require_guild_id(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)  # an arXiv lookup may follow
        async with self.bot.session_factory() as session, session.begin():
            outcome = await svc.add_to_list(
                session,
                guild_id,
                list_name,
                paper,
                note=note,
                user_id=interaction.user.id,
                now=self.bot.clock.now(),
            )
        # After the commit: an arXiv paper new to the store gets its title (arXiv trouble keeps the id).
        stored = await fill_missing_metadata(
            self.bot.arxiv, self.bot.session_factory, [outcome.paper.id], self.bot.clock.now()
        )
        if any(paper.title_changed for paper in stored):
            async with self.bot.session_factory() as session:
                outcome = replace(outcome, paper=(await svc.paper_infos(session, [outcome.paper.id]))[0])
        await send_ephemeral(interaction, render.add_message(outcome))

    @app_commands.command(name="remove", description="Take a paper off a reading list (organizers)")
    @app_commands.rename(list_name="list")
    @app_commands.describe(list_name="The reading list", paper="The paper to take off it")
    @app_commands.autocomplete(list_name=list_name_autocomplete, paper=list_paper_autocomplete)
    async def remove(self, interaction: Interaction, list_name: ListName, paper: PaperArg) -> None:
        await ensure_organizer(interaction)
        guild_id = require_guild_id(interaction)
        async with self.bot.session_factory() as session, session.begin():
            outcome = await svc.remove_from_list(session, guild_id, list_name, paper)
        await send_ephemeral(interaction, render.remove_message(outcome))
