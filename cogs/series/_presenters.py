"""/presenters: who has presented, how often and when last (the imported history included), who presents
next, and who offered to present suggested papers; paged, the pages restart-proof (bot.paging)."""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, PaperclubBot
from bot.paging import Page, clamp_page, page_count, send_page
from bot.permissions import require_guild_id
from bot.services.config.guild import get_config
from bot.services.series import presenters as presenter_svc
from cogs.series import _render as render

PRESENTERS_PAGER = "presenters"


@app_commands.guild_only()
class PresentersCog(commands.Cog):
    """/presenters: who has presented, how often, when last, and who offered to present on suggestions."""

    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot
        super().__init__()

    async def cog_load(self) -> None:
        self.bot.pagers.register(PRESENTERS_PAGER, self.render_page)

    async def cog_unload(self) -> None:
        self.bot.pagers.unregister(PRESENTERS_PAGER)

    async def render_page(self, guild_id: int, arg: str, page: int) -> Page:
        now = self.bot.clock.now()
        async with self.bot.session_factory() as session:
            config = await get_config(session, guild_id)
            stats = await presenter_svc.presenter_stats(session, guild_id, now)
            offers = await presenter_svc.presenter_offers(session, guild_id)
        lines = render.presenter_lines(stats, offers, now, config.timezone)
        pages = page_count(len(lines), render.PRESENTERS_PAGE)
        page = clamp_page(page, pages)
        return Page(render.presenters_embed(lines, page, pages), page, pages, note=f"{len(stats)} presenters")

    @app_commands.command(
        name="presenters", description="Who has presented, how often and when last; who offered to"
    )
    @app_commands.describe(public="Post it for everyone (default: only you see it)")
    async def presenters(self, interaction: Interaction, public: bool = False) -> None:
        guild_id = require_guild_id(interaction)
        await send_page(
            interaction, PRESENTERS_PAGER, "", await self.render_page(guild_id, "", 0), public=public
        )
