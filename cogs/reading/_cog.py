"""/reading history, lists, show, search and export; /organize reading add, remove; *Add to reading list*."""

from __future__ import annotations

import io

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, PaperclubBot
from bot.message_papers import papers_in_message
from bot.organize import PERMISSIONS as ORGANIZERS
from bot.organize import organizer_group
from bot.paging import LayoutPage, send_page
from bot.permissions import ensure_organizer, organizer_begin, require_guild_id
from bot.replies import NO_MENTIONS, send_ephemeral
from bot.services.reading.actions import Reading
from bot.services.reading.exports import FORMATS
from bot.services.reading.lists import PaperInput
from cogs.reading import _render as render
from cogs.reading._forms import AddFromMessageModal
from cogs.reading._options import (
    EXPORT_CHOICES,
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
PUBLIC_HELP = "Post the answer in the channel for everyone (default: only you see it)"
PAPER_HELP = "arXiv id or link, DOI, any https:// link, or the title"

organize = organizer_group("reading", "Put papers on reading lists, or take them off")


@app_commands.guild_only()
class ReadingCog(
    commands.GroupCog,
    group_name="reading",
    group_description="What the club has read: history, reading lists, search and exports",
):
    """/reading and *Add to reading list*: each one call into the reading service, its answer rendered."""

    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot
        self.reading = Reading(bot)
        super().__init__()
        # Right-click a message → Apps → Add to reading list: shown to organizers (as /organize), checked in
        # the callback too.
        self.add_menu = app_commands.guild_only(
            app_commands.default_permissions(ORGANIZERS)(
                app_commands.ContextMenu(name="Add to reading list", callback=self.add_from_message)
            )
        )

    async def cog_load(self) -> None:
        """Add the message command and register the pagers."""
        self.bot.tree.add_command(self.add_menu)
        self.organized = self.bot.organize.attach(organize, self)
        self.bot.pagers.register(HISTORY_PAGER, self.history_page)
        self.bot.pagers.register(LISTS_PAGER, self.lists_page)
        self.bot.pagers.register(LIST_PAGER, self.list_page)
        self.bot.pagers.register(SEARCH_PAGER, self.search_page)

    async def cog_unload(self) -> None:
        """Remove them."""
        self.bot.pagers.unregister(HISTORY_PAGER, LISTS_PAGER, LIST_PAGER, SEARCH_PAGER)
        self.bot.organize.detach(self.organized)
        self.bot.tree.remove_command(self.add_menu.name, type=self.add_menu.type)

    # The pagers call these for each page, also after a restart.
    async def history_page(self, guild_id: int, arg: str, page: int) -> LayoutPage:
        """A page of /reading history."""
        now = self.bot.clock.now()
        found = await self.reading.history(guild_id, now, page, render.HISTORY_PAGE_SIZE)
        return LayoutPage(render.history_card(found, now), found.page, found.pages)

    async def lists_page(self, guild_id: int, arg: str, page: int) -> LayoutPage:
        """A page of /reading lists."""
        found = await self.reading.lists(guild_id, page, render.LISTS_PAGE_SIZE)
        return LayoutPage(render.lists_card(found.items, found.total), found.page, found.pages)

    async def list_page(self, guild_id: int, arg: str, page: int) -> LayoutPage:
        """A page of /reading show (``arg``: the list's id)."""
        found = await self.reading.list_page(guild_id, int(arg or 0), page, render.LIST_PAGE_SIZE)
        if found is None:
            return LayoutPage(render.gone_card("Reading list", "This list no longer exists."), 0, 1)
        return LayoutPage(render.list_card(found), found.page, found.pages)

    async def search_page(self, guild_id: int, arg: str, page: int) -> LayoutPage:
        """A page of /reading search (``arg``: the saved query's id)."""
        found = await self.reading.search_page(guild_id, int(arg or 0), page, render.SEARCH_PAGE_SIZE)
        if found is None:
            return LayoutPage(render.gone_card("Search", "This search has expired; run it again."), 0, 1)
        return LayoutPage(render.search_card(found, self.bot.clock.now()), found.page, found.pages)

    @app_commands.command(name="history", description="Sessions the club has held, newest first")
    @app_commands.describe(page="Which page to open (5 sessions a page)", public=PUBLIC_HELP)
    async def history(self, interaction: Interaction, page: PageNumber = 1, public: bool = False) -> None:
        """/reading history."""
        shown = await self.history_page(require_guild_id(interaction), "", page - 1)
        await send_page(interaction, HISTORY_PAGER, "", shown, public=public)

    @app_commands.command(name="lists", description="The server's reading lists and their sizes")
    @app_commands.describe(public=PUBLIC_HELP)
    async def lists(self, interaction: Interaction, public: bool = False) -> None:
        """/reading lists."""
        shown = await self.lists_page(require_guild_id(interaction), "", 0)
        await send_page(interaction, LISTS_PAGER, "", shown, public=public)

    @app_commands.command(name="show", description="The papers on a reading list, with notes")
    @app_commands.rename(list_name="list")
    @app_commands.describe(list_name="The reading list", public=PUBLIC_HELP)
    @app_commands.autocomplete(list_name=list_name_autocomplete)
    async def show(self, interaction: Interaction, list_name: ListName, public: bool = False) -> None:
        """/reading show."""
        found = await self.reading.show(require_guild_id(interaction), list_name, render.LIST_PAGE_SIZE)
        shown = LayoutPage(render.list_card(found), found.page, found.pages)
        await send_page(interaction, LIST_PAGER, str(found.summary.id), shown, public=public)

    @app_commands.command(name="search", description="Search sessions, papers, presenters and reading lists")
    @app_commands.describe(
        query="A few words: a paper, an author, a topic, a presenter or a list", public=PUBLIC_HELP
    )
    @app_commands.autocomplete(query=query_autocomplete)
    async def search(self, interaction: Interaction, query: Query, public: bool = False) -> None:
        """/reading search: its page buttons carry a saved query's id, so they work after a restart."""
        now = self.bot.clock.now()
        found, query_id = await self.reading.search(
            require_guild_id(interaction), query, now, render.SEARCH_PAGE_SIZE
        )
        shown = LayoutPage(render.search_card(found, now), found.page, found.pages)
        await send_page(interaction, SEARCH_PAGER, str(query_id), shown, public=public)

    @app_commands.command(name="export", description="The reading history or one list as a file")
    @app_commands.rename(list_name="list", file_format="format")
    @app_commands.describe(
        file_format="Markdown (the club page's form), BibTeX, CSV or JSON (default Markdown)",
        list_name="A reading list to export instead of the history",
    )
    @app_commands.autocomplete(list_name=list_name_autocomplete)
    @app_commands.choices(file_format=EXPORT_CHOICES)
    async def export(
        self, interaction: Interaction, file_format: str = "markdown", list_name: ListName | None = None
    ) -> None:
        """/reading export."""
        guild_id = require_guild_id(interaction)
        fmt = export_format(file_format)
        await interaction.response.defer(ephemeral=True, thinking=True)
        file = await self.reading.export(guild_id, fmt, list_name, self.bot.clock.now())
        what = f"“{list_name.strip()}”" if list_name is not None else "the reading history"
        await interaction.followup.send(
            content=f"Here is {what} as {FORMATS[fmt][2]}.",
            file=discord.File(io.BytesIO(file.data), filename=file.filename),
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
        )

    @organize.command(name="add", description="Put a paper on a reading list, creating the list if new")
    @app_commands.rename(list_name="list")
    @app_commands.describe(
        list_name="The reading list (a new name starts a list)",
        paper=PAPER_HELP,
        note="Why it is on the list",
    )
    @app_commands.autocomplete(list_name=list_name_autocomplete, paper=any_paper_autocomplete)
    async def add(
        self, interaction: Interaction, list_name: ListName, paper: PaperArg, note: Note | None = None
    ) -> None:
        """/organize reading add."""
        await self.add_paper(interaction, list_name, paper, note)

    async def add_paper(
        self, interaction: Interaction, list_name: str, paper: PaperInput, note: str | None
    ) -> None:
        """/organize reading add and the *Add to reading list* form (organizers)."""
        _, guild_id, now = await organizer_begin(interaction)
        outcome = await self.reading.add(
            guild_id, list_name, paper, note, user_id=interaction.user.id, now=now
        )
        await send_ephemeral(interaction, render.add_message(outcome))

    @organize.command(name="remove", description="Take a paper off a reading list")
    @app_commands.rename(list_name="list")
    @app_commands.describe(list_name="The reading list", paper="The paper to take off it")
    @app_commands.autocomplete(list_name=list_name_autocomplete, paper=list_paper_autocomplete)
    async def remove(self, interaction: Interaction, list_name: ListName, paper: PaperArg) -> None:
        """/organize reading remove."""
        await ensure_organizer(interaction)
        outcome = await self.reading.remove(require_guild_id(interaction), list_name, paper)
        await send_ephemeral(interaction, render.remove_message(outcome))

    async def add_from_message(self, interaction: Interaction, message: discord.Message) -> None:
        """*Add to reading list*: organizers only; the form filled with the message's paper links."""
        await ensure_organizer(interaction)
        guild_id = require_guild_id(interaction)
        links = await papers_in_message(interaction, message)
        names = await self.reading.list_names(guild_id)
        await interaction.response.send_modal(AddFromMessageModal(links, names, self.add_paper))
