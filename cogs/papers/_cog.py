"""/paper show, /organize paper refresh and resolve, and the papers.enrich job (``paper_enriched``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands
from sqlalchemy.ext.asyncio import AsyncSession

from bot.background import Job, every
from bot.client import Interaction, PaperclubBot
from bot.errors import BadInput, Conflict
from bot.layouts import Card, escape, escape_line
from bot.organize import organizer_group
from bot.papers import MAX_TITLE_LENGTH, parse_paper_ref
from bot.permissions import ensure_organizer, require_guild_id
from bot.replies import NO_MENTIONS, send_ephemeral, send_reply
from bot.services.papers import flows, queries
from bot.services.papers.enrich import ENRICH_EVERY, ENRICH_JOB
from bot.services.papers.resolve import Choice, Found
from bot.services.papers.store import AliasInfo
from bot.services.site.config import get_site, site_url
from bot.transformers import guild_choices
from bot.views import PaperclubLayoutView, log_component
from cogs.papers import _render as render
from cogs.site.settings import public_base

PaperText = app_commands.Range[str, 1, queries.MAX_PAPER_TEXT]
PICK_TIMEOUT = 900.0  # seconds the candidates' buttons listen
SOURCE_WAIT = 3.0  # the most a source's pacing may hold the lookup (it is deferred; a source down is skipped)
SOURCE_DEADLINE = 8.0  # a source still answering by then is left out of this look
SOURCE_LABELS = {"semantic_scholar": "Semantic Scholar", "huggingface": "Hugging Face", "arxiv": "arXiv"}

organize = organizer_group("paper", "Ask the sources about a paper afresh; say which paper a name means")


async def paper_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The guild's papers whose title or arXiv id holds what is typed (at most 25)."""
    return await guild_choices(interaction, lambda db, guild_id: queries.paper_choices(db, guild_id, current))


class PapersCog(commands.Cog):
    """The /paper commands and the papers.enrich job."""

    paper = app_commands.guild_only(app_commands.Group(name="paper", description="The club's papers"))

    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.organized = self.bot.organize.attach(organize, self)
        await self.bot.background.add(Job(ENRICH_JOB, every(ENRICH_EVERY), self.enrich))

    async def cog_unload(self) -> None:
        await self.bot.background.remove(ENRICH_JOB)
        self.bot.organize.detach(self.organized)

    async def enrich(self, now: datetime) -> int:
        """Ask the sources about the papers due and dispatch ``paper_enriched`` per guild; how many changed."""
        changed = await flows.enrich(self.bot, now)
        for guild_id, paper_ids in changed.items():
            self.bot.dispatch("paper_enriched", guild_id, paper_ids)
        return sum(map(len, changed.values()))

    @commands.Cog.listener()
    async def on_session_saved(self, guild_id: int, session_id: int) -> None:
        """A session's papers may be new: the sources are asked now, not at the job's next tick."""
        await self.bot.background.due_now(ENRICH_JOB)

    @paper.command(
        name="show", description="A paper's card: TLDR, venue, links and the club's history with it"
    )
    @app_commands.describe(
        paper="Pick one as you type, or give its arXiv id or link",
        public="Post it for everyone (default: only you see it)",
    )
    @app_commands.autocomplete(paper=paper_autocomplete)
    async def show(self, interaction: Interaction, paper: PaperText, public: bool = False) -> None:
        """Answer with the paper's card (NotFound, ephemerally, for a paper the server does not know)."""
        guild_id = require_guild_id(interaction)
        base = public_base(self.bot)  # None: no site

        async def page_of(db: AsyncSession, paper_id: int) -> str | None:
            return site_url(base, await get_site(db, guild_id), f"papers/{paper_id}/") if base else None

        card, page = await flows.show(self.bot, guild_id, paper, page_of)
        view = render.paper_view(card, now=self.bot.clock.now(), page_url=page)
        await send_reply(interaction, view=view, public=public)

    @organize.command(name="refresh", description="Ask the sources about a paper afresh")
    @app_commands.describe(paper="Pick one as you type, or give its arXiv id or link")
    @app_commands.autocomplete(paper=paper_autocomplete)
    async def refresh(self, interaction: Interaction, paper: PaperText) -> None:
        """Have every source asked about the paper again, now, for every field."""
        await ensure_organizer(interaction)
        title = await flows.refresh(self.bot, require_guild_id(interaction), paper)
        await send_ephemeral(
            interaction,
            f"The paper sources are being asked about **{escape_line(title)}** again; its card and posts "
            "change as soon as they answer.",
        )

    @organize.command(name="resolve", description="Say which paper a title-only name means")
    @app_commands.describe(paper="The name as the club writes it: TMax, Terminal-World, a title")
    async def resolve(
        self, interaction: Interaction, paper: app_commands.Range[str, 1, MAX_TITLE_LENGTH]
    ) -> None:
        """Look the name up and offer its candidates, or say what it already means."""
        await ensure_organizer(interaction)
        guild_id = require_guild_id(interaction)
        name = _name(paper)
        await interaction.response.defer(ephemeral=True, thinking=True)
        alias, found = await flows.look_up(
            self.bot, guild_id, name, max_wait=SOURCE_WAIT, deadline=SOURCE_DEADLINE
        )
        if found is None:
            assert alias is not None
            chosen = f" (chosen by <@{alias.chosen_by}>)" if alias.chosen_by else ""
            await send_reply(
                interaction,
                f"**{escape_line(alias.name, 300)}** already means **{escape(alias.paper_title, 300)}**{chosen}.",
            )
            return
        if not found.candidates:
            asked = " " + _unavailable_line(found) if found.unavailable else ""
            await send_reply(
                interaction,
                f"No source knows a paper called **{escape_line(name, 300)}**: nothing was stored. "
                f"Check the spelling, or give its arXiv id or DOI where the paper is used.{asked}",
            )
            return
        note = "-# Earlier marked “none of these”; here is a fresh look." if alias is not None else None
        await send_reply(interaction, view=ResolveView(self.bot, guild_id, found, note))


def candidate_text(number: int, choice: Choice) -> str:
    """One candidate as markdown: title, authors, year, venue, ids and the sources that found it."""
    more = " et al." if len(choice.authors) > 3 else ""
    authors = escape_line(", ".join(choice.authors[:3]), 200) + more if choice.authors else "authors unknown"
    facts = " · ".join(
        part for part in (authors, str(choice.year or ""), escape_line(choice.venue, 120)) if part
    )
    arxiv = f"arXiv:{choice.arxiv_id}" if choice.arxiv_id else ""
    doi = f"doi:{escape_line(choice.doi, 200)}" if choice.doi else ""
    found_by = ", ".join(SOURCE_LABELS.get(s, s) for s in choice.sources)
    below = " · ".join(part for part in (arxiv, doi, f"found by {found_by}") if part)
    return f"**{number}. {escape_line(choice.title, 300)}**\n{facts}\n-# {below}"


def _unavailable_line(found: Found) -> str:
    names = ", ".join(SOURCE_LABELS.get(s, s) for s in found.unavailable)
    return f"-# Not heard from this time (down, slow or rate-limited): {names}." if names else ""


def chosen_text(alias: AliasInfo, choice: Choice | None) -> str:
    """What the organizer is told once the pick is stored."""
    name = escape_line(alias.name, 300)
    if choice is None:
        return (
            f"Noted: none of these is **{name}**. The walk over unresolved papers won't ask about it again; "
            "`/organize paper resolve` looks it up afresh."
        )
    ref = f" ({choice.reference})" if choice.reference else ""
    return (
        f"**{name}** now means **{escape_line(alias.paper_title or choice.title, 300)}**{ref}; "
        f"the next “{name}” resolves at once. Its TLDR, venue and links follow on its card as soon as the "
        "paper sources answer."
    )


class ResolveView(PaperclubLayoutView):
    """The candidates, each with a Pick button, and None of these; the first press decides."""

    def __init__(self, bot: PaperclubBot, guild_id: int, found: Found, note: str | None) -> None:
        super().__init__(timeout=PICK_TIMEOUT)
        self.bot, self.guild_id, self.found, self.decided = bot, guild_id, found, False
        card = Card(accent=discord.Colour.blurple()).heading(f"Which paper is “{found.name}”?")
        for number, choice in enumerate(found.candidates, 1):
            card.section(candidate_text(number, choice), self._button(f"Pick {number}", number - 1))
        card.text(_unavailable_line(found))
        card.row([self._button("None of these", None)])
        if note:
            self.add_item(discord.ui.TextDisplay(note))
        self.add_item(card.container(reserve=(1, len(note)) if note else (0, 0)))

    def _button(self, label: str, index: int | None) -> discord.ui.Button[Any]:
        """A candidate's Pick button (``index`` None: None of these)."""
        style = discord.ButtonStyle.primary if index is not None else discord.ButtonStyle.secondary
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=label, style=style, custom_id=f"paper:resolve:{'none' if index is None else index}"
        )

        async def pressed(interaction: Interaction) -> None:
            await self.pick(interaction, index)

        button.callback = pressed  # type: ignore[method-assign,assignment]
        return button

    async def pick(self, interaction: Interaction, index: int | None) -> None:
        """Store the pick (organizers only, checked here too) and replace the candidates with the outcome."""
        await ensure_organizer(interaction)
        if self.decided:
            raise Conflict("This name was already resolved from these candidates.")
        self.decided = True
        choice = None if index is None else self.found.candidates[index]
        now = self.bot.clock.now()
        alias = await flows.pick(
            self.bot, self.guild_id, self.found.name, choice, chosen_by=interaction.user.id, now=now
        )
        self.stop()
        done = discord.ui.LayoutView(timeout=None)
        done.add_item(discord.ui.TextDisplay(chosen_text(alias, choice)))
        await interaction.response.edit_message(view=done, allowed_mentions=NO_MENTIONS)
        log_component(interaction)


def _name(paper: str) -> str:
    name = " ".join(paper.split())
    if not name.strip(" \"'`*_"):
        raise BadInput("Give the paper's name or title, e.g. `TMax`.")
    ref = parse_paper_ref(name)
    if ref.kind != "title":
        raise BadInput(
            "That is already an id or a link, so there is nothing to resolve: give the name the club "
            "uses (a title or a short name like `TMax`)."
        )
    return name
