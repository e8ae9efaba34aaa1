"""Each /reading action (command, page turn, form) as one call over the store: plain values in, a result out."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Protocol

from bot.clock import Host as BotHost
from bot.errors import BadInput
from bot.services.config.guild import get_config
from bot.services.papers.metadata import fill_missing_metadata
from bot.services.reading import lists as reading_lists
from bot.services.reading.autocomplete import list_name_choices
from bot.services.reading.exports import ExportFile, ExportFormat, export_history, export_list
from bot.services.reading.history import HistoryEntry, all_history, history_page
from bot.services.reading.search import SearchPage, save_query, saved_query, search
from bot.sources.arxiv import ArxivClient
from bot.text import Page
from bot.timeutil import resolve_timezone

ATTACHMENT_LIMIT = 10 * 1024 * 1024  # what a bot may attach to a message


class Host(BotHost, Protocol):
    """What the reading flows use of the bot: its store, and arXiv for a new paper's title."""

    @property
    def arxiv(self) -> ArxivClient:
        """The shared arXiv client."""


class Reading:
    """The reading feature's flows over the host's store."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.session_factory = host.session_factory

    async def history(self, guild_id: int, now: datetime, page: int, per_page: int) -> Page[HistoryEntry]:
        """A page of the sessions that took place, newest first."""
        async with self.session_factory() as session:
            return await history_page(session, guild_id, now, page=page, per_page=per_page)

    async def lists(self, guild_id: int, page: int, per_page: int) -> Page[reading_lists.ListSummary]:
        """A page of the guild's lists."""
        async with self.session_factory() as session:
            return await reading_lists.lists_page(session, guild_id, page=page, per_page=per_page)

    async def show(self, guild_id: int, name: str, per_page: int) -> reading_lists.ListPage:
        """The first page of the list called ``name`` (NotFound, naming the lists there are)."""
        async with self.session_factory() as session:
            return await reading_lists.named_list(session, guild_id, name, per_page=per_page)

    async def list_page(
        self, guild_id: int, list_id: int, page: int, per_page: int
    ) -> reading_lists.ListPage | None:
        """A page of a list by id, or None when it is gone."""
        async with self.session_factory() as session:
            return await reading_lists.list_page(session, guild_id, list_id, page=page, per_page=per_page)

    async def search(self, guild_id: int, query: str, now: datetime, per_page: int) -> tuple[SearchPage, int]:
        """The first page of hits, and the saved query's id its page buttons carry (0: one page)."""
        async with self.session_factory() as session:
            found = await search(session, guild_id, query, per_page=per_page)
        if found.pages <= 1:
            return found, 0
        async with self.session_factory() as session, session.begin():
            return found, await save_query(session, guild_id, found.query, now)

    async def search_page(self, guild_id: int, query_id: int, page: int, per_page: int) -> SearchPage | None:
        """A page of a saved search, or None when it has expired."""
        async with self.session_factory() as session:
            query = await saved_query(session, guild_id, query_id)
            if query is None:
                return None
            return await search(session, guild_id, query, page=page, per_page=per_page)

    async def export(
        self, guild_id: int, fmt: ExportFormat, list_name: str | None, now: datetime
    ) -> ExportFile:
        """The history, or the list called ``list_name``, as a file (BadInput when too big to attach)."""
        async with self.session_factory() as session:
            if list_name is not None:
                file = export_list(fmt, await reading_lists.named_list(session, guild_id, list_name))
            else:
                zone = resolve_timezone((await get_config(session, guild_id)).timezone)
                file = export_history(fmt, await all_history(session, guild_id, now), zone)
        if len(file.data) > ATTACHMENT_LIMIT:
            raise BadInput("That export is over 10 MB, too big to attach; export a single list instead.")
        return file

    async def list_names(self, guild_id: int) -> list[str]:
        """The lists a form offers to add to."""
        async with self.session_factory() as session:
            return await list_name_choices(session, guild_id, "")

    async def add(
        self,
        guild_id: int,
        list_name: str,
        paper: reading_lists.PaperInput,
        note: str | None,
        *,
        user_id: int,
        now: datetime,
    ) -> reading_lists.AddOutcome:
        """Put a paper on a list in one transaction; then a new arXiv paper gets its title."""
        async with self.session_factory() as session, session.begin():
            outcome = await reading_lists.add_to_list(
                session, guild_id, list_name, paper, note=note, user_id=user_id, now=now
            )
        stored = await fill_missing_metadata(self.host.arxiv, self.session_factory, [outcome.paper.id], now)
        if not any(paper.title_changed for paper in stored):
            return outcome
        async with self.session_factory() as session:
            return replace(outcome, paper=(await reading_lists.paper_infos(session, [outcome.paper.id]))[0])

    async def remove(
        self, guild_id: int, list_name: str, paper: reading_lists.PaperInput
    ) -> reading_lists.RemoveOutcome:
        """Take a paper off a list (a list left empty goes too)."""
        async with self.session_factory() as session, session.begin():
            return await reading_lists.remove_from_list(session, guild_id, list_name, paper)
