"""The club's settings for this server: /setup."""

from __future__ import annotations

from bot.client import PaperclubBot
from cogs.setup._cog import SetupCog


async def setup(bot: PaperclubBot) -> None:
    """Add the setup cog."""
    await bot.add_cog(SetupCog(bot))
