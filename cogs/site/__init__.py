"""The club's public website, Discord side: /calendar link and reset, and the site's routes on the bot's
web server. (/setup website and /setup about are in cogs/setup, calling cogs/site/settings.py.)"""

from __future__ import annotations

from bot.client import PaperclubBot
from cogs.site._cog import CalendarCog

__all__ = ["CalendarCog", "setup"]


async def setup(bot: PaperclubBot) -> None:
    await bot.add_cog(CalendarCog(bot))
