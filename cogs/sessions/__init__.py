"""Sessions and announcements: /session add, edit, cancel, announce, list, show, recap, calendar."""

from __future__ import annotations

from bot.client import PaperclubBot
from cogs.sessions._catchup import EventCatchUp
from cogs.sessions._cog import SessionsCog

__all__ = ["EventCatchUp", "SessionsCog", "setup"]


async def setup(bot: PaperclubBot) -> None:
    await bot.add_cog(SessionsCog(bot))
    await bot.add_cog(EventCatchUp(bot))
