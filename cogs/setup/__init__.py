"""The club's settings for this server: /setup."""

from __future__ import annotations

from bot.client import PaperclubBot
from cogs.setup._cog import SetupCog

__all__ = ["SetupCog", "setup"]


async def setup(bot: PaperclubBot) -> None:
    await bot.add_cog(SetupCog(bot))
