"""The club's public website, Discord side: /calendar link and reset, the site's routes on the bot's web
server, Session page links; /setup website and /setup about (declared in cogs/setup) in `settings`."""

from __future__ import annotations

from bot.client import PaperclubBot
from cogs.site._cog import SiteCog


async def setup(bot: PaperclubBot) -> None:
    """Add the site's cog."""
    await bot.add_cog(SiteCog(bot))
