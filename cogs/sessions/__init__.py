"""Sessions and announcements: /organize session add, edit, cancel, announce, list, show, recap, calendar."""

from __future__ import annotations

from bot.client import PaperclubBot
from cogs.sessions._cog import SessionsCog


async def setup(bot: PaperclubBot) -> None:
    """Add the sessions cog."""
    await bot.add_cog(SessionsCog(bot))
