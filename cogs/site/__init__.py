"""The club's public website, Discord side: /calendar, the site's routes, Session page links, /setup."""

from __future__ import annotations

from bot.client import PaperclubBot
from cogs.site._cog import SiteCog


async def setup(bot: PaperclubBot) -> None:
    """Add the site's cog."""
    await bot.add_cog(SiteCog(bot))
