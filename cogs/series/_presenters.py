"""/presenters' pages: who has presented, how often and when last (the imported history included), who
presents next, and who offered to present suggested papers; restart-proof (bot.paging)."""

from __future__ import annotations

from bot.client import PaperclubBot
from bot.paging import Page, clamp_page, page_count
from bot.services.config.guild import get_config
from bot.services.series import presenters as presenter_svc
from cogs.series import _render as render

PRESENTERS_PAGER = "presenters"


async def presenters_page(bot: PaperclubBot, guild_id: int, page: int) -> Page:
    """One page of /presenters."""
    now = bot.clock.now()
    async with bot.session_factory() as session:
        config = await get_config(session, guild_id)
        stats = await presenter_svc.presenter_stats(session, guild_id, now)
        offers = await presenter_svc.presenter_offers(session, guild_id)
    lines = render.presenter_lines(stats, offers, now, config.timezone)
    pages = page_count(len(lines), render.PRESENTERS_PAGE)
    page = clamp_page(page, pages)
    return Page(render.presenters_embed(lines, page, pages), page, pages, note=f"{len(stats)} presenters")
