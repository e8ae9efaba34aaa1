"""The papers' actions, each one call from the papers cog: a paper's card, the sources asked afresh, a
title-only name resolved, and the enrichment job."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.background import Background
from bot.errors import Conflict
from bot.services.papers import queries
from bot.services.papers.aliases import AliasInfo, choose, find_alias
from bot.services.papers.enrich import ENRICH_JOB, ask_again, by_guild, enrich_due
from bot.services.papers.resolve import Choice, Found, find_candidates
from bot.sources.clients import SourceClients

PageOf = Callable[[AsyncSession, int], Awaitable[str | None]]
"""The club page of a paper (by id) on the guild's site, read in the flow's session (None: no site)."""


class Host(Protocol):
    """What the flows use of the bot (bot/client.py's PaperclubBot): the store, the sources, the jobs."""

    @property
    def session_factory(self) -> async_sessionmaker[AsyncSession]:
        """The store."""

    @property
    def sources(self) -> SourceClients:
        """The paper sources' clients."""

    @property
    def background(self) -> Background:
        """The background jobs (papers.enrich)."""


async def show(host: Host, guild_id: int, text: str, page_of: PageOf) -> tuple[queries.PaperCard, str | None]:
    """/paper show: the card of the paper a member typed or picked, and its club page."""
    async with host.session_factory() as session:
        card = await queries.paper_card(session, guild_id, text)
        return card, await page_of(session, card.paper.id)


async def refresh(host: Host, guild_id: int, text: str) -> str:
    """/organize paper refresh: every source asked about the paper afresh, now; its title."""
    async with host.session_factory() as session, session.begin():
        row = await queries.find_paper_for(session, guild_id, text)
        ask_again(row)
        title = row.title
    await host.background.due_now(ENRICH_JOB)
    return title


async def enrich(host: Host, now: datetime) -> dict[int, tuple[int, ...]]:
    """The papers.enrich job: the papers due asked about; the ids of those that changed, per guild."""
    return by_guild(await enrich_due(host.sources, host.session_factory, now))


@dataclass(frozen=True)
class Lookup:
    """/organize paper resolve's answer: what the name already means, or the sources' candidates."""

    alias: AliasInfo | None
    found: Found | None = None


async def look_up(host: Host, guild_id: int, name: str, *, max_wait: float, deadline: float) -> Lookup:
    """What a title-only name means: its alias, else the sources' candidates (none stored)."""
    async with host.session_factory() as session:
        alias = await find_alias(session, guild_id, name)
    if alias is not None and not alias.rejected:
        return Lookup(alias)
    return Lookup(alias, await find_candidates(host.sources, name, max_wait=max_wait, deadline=deadline))


async def pick(
    host: Host, guild_id: int, name: str, choice: Choice | None, *, chosen_by: int, now: datetime
) -> AliasInfo:
    """The organizer's pick for a name (None: none of these), stored; the paper's sources asked now."""
    try:
        async with host.session_factory() as session, session.begin():
            alias = await choose(session, guild_id, name, choice, chosen_by=chosen_by, now=now)
    except IntegrityError:  # another organizer resolved the same name at the same moment
        raise Conflict(
            "Another organizer resolved this name at the same moment: `/organize paper resolve` shows what it means now."
        ) from None
    if choice is not None:
        await host.background.due_now(ENRICH_JOB)
    return alias
