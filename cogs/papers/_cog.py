"""/paper: show (anyone), refresh and resolve (organizers; resolve is cogs.papers._resolve, added to this cog's
``paper`` group); the papers.enrich job, which tells the other features whose fields changed (``paper_enriched``)."""

from __future__ import annotations

from datetime import datetime

from discord import app_commands
from discord.ext import commands
from sqlalchemy.ext.asyncio import AsyncSession

from bot.background import Job, every
from bot.client import Interaction, PaperclubBot
from bot.layouts import escape_line
from bot.organize import organizer_group
from bot.permissions import ensure_organizer, require_guild_id
from bot.replies import send_ephemeral, send_reply
from bot.services.papers import flows, queries
from bot.services.papers.enrich import ENRICH_EVERY, ENRICH_JOB
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
    """The /paper commands and the papers.enrich job."""

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
        base = _public_base(self.bot)

        async def page_of(db: AsyncSession, paper_id: int) -> str | None:
            return paper_page_url(base, await get_site(db, guild_id), paper_id) if base else None

        card, page = await flows.show(self.bot, guild_id, paper, page_of)
        view = render.paper_view(card, now=self.bot.clock.now(), page_url=page)
        await send_reply(interaction, view=view, public=public)

    @organize.command(name="refresh", description="Ask the sources about a paper afresh")
    @app_commands.describe(paper="Pick one as you type, or give its arXiv id or link")
    @app_commands.autocomplete(paper=paper_autocomplete)
    async def refresh(self, interaction: Interaction, paper: PaperText) -> None:
        """Have every source asked about the paper again, now, every field (the weekly refresh takes only the
        counts and links)."""
        await ensure_organizer(interaction)
        title = await flows.refresh(self.bot, require_guild_id(interaction), paper)
        await send_ephemeral(
            interaction,
            f"The paper sources are being asked about **{escape_line(title)}** again; its card and posts "
            "change as soon as they answer.",
        )
