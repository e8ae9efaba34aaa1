"""/privacy and *Delete my data*, the servers the bot leaves, and the lifetimes of what it records."""

from __future__ import annotations

from bot.client import PaperclubBot
from cogs.privacy._cog import PrivacyCog


async def setup(bot: PaperclubBot) -> None:
    """Add the privacy cog."""
    await bot.add_cog(PrivacyCog(bot))
