"""/paper show; /organize paper refresh and resolve (organizers; resolve from cogs.papers._resolve, added to
the bot's copy of the group); and the papers' enrichment job, which tells the other features which
papers' fields changed (``paper_enriched``)."""

from __future__ import annotations

from datetime import datetime

from discord import app_commands
from discord.ext import commands

from bot.background import Job, every
from bot.client import Interaction, PaperclubBot
from bot.layouts import escape_line
from bot.organize import organizer_group
from bot.permissions import ensure_organizer, require_guild_id
from bot.replies import send_ephemeral, send_reply
from bot.services.papers import queries
from bot.services.papers.enrich import ENRICH_EVERY, ENRICH_JOB, ask_again, by_guild, enrich_due
from bot.services.site.config import get_site, paper_page_url
from bot.transformers import guild_choices
from cogs.papers import _render as render
from cogs.papers._resolve import resolve_command

PaperText = app_commands.Range[str, 1, queries.MAX_PAPER_TEXT]

organize = organizer_group("paper", "Ask the sources about a paper afresh; say which paper a name means")


async def paper_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The guild's papers whose title or arXiv id holds what is typed (at most 25)."""
    return await guild_choices(interaction, lambda db, guild_id: queries.paper_choices(db, guild_id, current))


def _public_base(bot: PaperclubBot) -> str | None:
    """PUBLIC_URL, else the bot's own web server; None when the site can be reached nowhere."""
    if bot.settings.public_url:
        return bot.settings.public_url
    return bot.web.public_url if bot.web is not None else None


class PapersCog(commands.Cog):
    """/paper and /organize paper."""

    paper = app_commands.guild_only(app_commands.Group(name="paper", description="The club's papers"))

    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.organized = self.bot.organize.attach(organize, self)
        self.organized.add_command(resolve_command(self.bot))
        await self.bot.background.add(Job(ENRICH_JOB, every(ENRICH_EVERY), self.enrich))

    async def cog_unload(self) -> None:
        await self.bot.background.remove(ENRICH_JOB)
        self.bot.organize.detach(self.organized)

    async def enrich(self, now: datetime) -> int:
        """Ask the sources about the papers due, then dispatch ``paper_enriched(guild_id, paper_ids)`` per
        guild for the features showing them; returns how many papers changed."""
        changed = await enrich_due(self.bot.sources, self.bot.session_factory, now)
        for guild_id, paper_ids in by_guild(changed).items():
            self.bot.dispatch("paper_enriched", guild_id, paper_ids)
        return len(changed)

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
        async with self.bot.session_factory() as db:
            card = await queries.paper_card(db, guild_id, paper)
            base = _public_base(self.bot)
            page = paper_page_url(base, await get_site(db, guild_id), card.paper.id) if base else None
        await send_reply(interaction, view=render.paper_view(card, page_url=page), public=public)

    @organize.command(name="refresh", description="Ask the sources about a paper afresh")
    @app_commands.describe(paper="Pick one as you type, or give its arXiv id or link")
    @app_commands.autocomplete(paper=paper_autocomplete)
    async def refresh(self, interaction: Interaction, paper: PaperText) -> None:
        """Have the next enrichment run ask every source about the paper again, every field (the weekly
        refresh takes only the counts and links)."""
        await ensure_organizer(interaction)
        guild_id = require_guild_id(interaction)
        async with self.bot.session_factory() as db, db.begin():
            row = await queries.find_paper_for(db, guild_id, paper)
            ask_again(row)
            title = row.title
        await send_ephemeral(
            interaction,
            f"The sources will be asked about **{escape_line(title)}** again within a few minutes; "
            "its card and posts change when their answers land.",
        )
