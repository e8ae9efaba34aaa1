"""/organize paper resolve paper: the organizer picks which paper a title-only name means, or none of these."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.client import Interaction, PaperclubBot
from bot.errors import BadInput, Conflict
from bot.layouts import Card, escape, escape_line
from bot.papers import MAX_TITLE_LENGTH, parse_paper_ref
from bot.permissions import ensure_organizer, require_guild_id
from bot.replies import NO_MENTIONS, send_reply
from bot.services.papers import flows
from bot.services.papers.aliases import AliasInfo
from bot.services.papers.resolve import Choice, Found
from bot.views import PaperclubLayoutView, log_component

PICK_TIMEOUT = 900.0  # seconds the candidates' buttons listen
SOURCE_WAIT = 3.0  # the most a source's pacing may hold the lookup (it is deferred; a source down is skipped)
SOURCE_DEADLINE = 8.0  # a source still answering by then is left out of this look
SOURCE_LABELS = {"semantic_scholar": "Semantic Scholar", "huggingface": "Hugging Face", "arxiv": "arXiv"}
ACCENT = discord.Colour.blurple()


def candidate_text(number: int, choice: Choice) -> str:
    """One candidate as markdown: title, authors, year and venue, its ids and the sources that found it
    (best match first; the score itself is no member's business)."""
    more = " et al." if len(choice.authors) > 3 else ""
    authors = escape_line(", ".join(choice.authors[:3]), 200) + more if choice.authors else "authors unknown"
    facts = " · ".join(
        part for part in (authors, str(choice.year or ""), escape_line(choice.venue, 120)) if part
    )
    ids = " · ".join(
        part
        for part in (
            f"arXiv:{choice.arxiv_id}" if choice.arxiv_id else None,
            f"doi:{escape_line(choice.doi, 200)}" if choice.doi else None,
        )
        if part
    )
    found_by = ", ".join(SOURCE_LABELS.get(s, s) for s in choice.sources)
    below = " · ".join(part for part in (ids, f"found by {found_by}") if part)
    return f"**{number}. {escape_line(choice.title, 300)}**\n{facts}\n-# {below}"


def _unavailable_line(found: Found) -> str | None:
    if not found.unavailable:
        return None
    names = ", ".join(SOURCE_LABELS.get(s, s) for s in found.unavailable)
    return f"-# Not heard from this time (down, slow or rate-limited): {names}."


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
        card = Card(accent=ACCENT).heading(f"Which paper is “{found.name}”?")
        for number, choice in enumerate(found.candidates, 1):
            card.section(candidate_text(number, choice), self._button(f"Pick {number}", number - 1))
        card.text(_unavailable_line(found) or "")
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


async def resolve(interaction: Interaction, paper: str) -> None:
    """Look the name up and offer its candidates, or say what it already means."""
    bot = interaction.client
    await ensure_organizer(interaction)
    guild_id = require_guild_id(interaction)
    name = _name(paper)
    await interaction.response.defer(ephemeral=True, thinking=True)
    looked = await flows.look_up(bot, guild_id, name, max_wait=SOURCE_WAIT, deadline=SOURCE_DEADLINE)
    alias, found = looked.alias, looked.found
    if found is None:
        assert alias is not None
        chosen = f" (chosen by <@{alias.chosen_by}>)" if alias.chosen_by else ""
        await send_reply(
            interaction,
            f"**{escape_line(alias.name, 300)}** already means **{escape(alias.paper_title, 300)}**{chosen}.",
        )
        return
    if not found.candidates:
        asked = "" if not found.unavailable else " " + (_unavailable_line(found) or "")
        await send_reply(
            interaction,
            f"No source knows a paper called **{escape_line(name, 300)}**: nothing was stored. "
            f"Check the spelling, or give its arXiv id or DOI where the paper is used.{asked}",
        )
        return
    note = "-# Earlier marked “none of these”; here is a fresh look." if alias is not None else None
    await send_reply(interaction, view=ResolveView(bot, guild_id, found, note))


def resolve_command(bot: PaperclubBot) -> app_commands.Command[Any, ..., None]:
    """/organize paper resolve (organizers only, checked in code)."""

    @app_commands.command(name="resolve", description="Say which paper a title-only name means")
    @app_commands.describe(paper="The name as the club writes it: TMax, Terminal-World, a title")
    async def command(interaction: Interaction, paper: app_commands.Range[str, 1, MAX_TITLE_LENGTH]) -> None:
        await resolve(interaction, paper)

    return command
