"""Reminders: /organize reminder add, list, cancel and me; automatic session reminders; the runner that sends them."""

from __future__ import annotations

from bot.client import PaperclubBot
from cogs.reminders._cog import RemindersCog


async def setup(bot: PaperclubBot) -> None:
    """Add the reminders cog."""
    await bot.add_cog(RemindersCog(bot))
