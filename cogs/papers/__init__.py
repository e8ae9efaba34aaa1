"""Papers: /paper show and /organize paper refresh and resolve."""

from __future__ import annotations

from bot.client import PaperclubBot
from cogs.papers._cog import PapersCog


async def setup(bot: PaperclubBot) -> None:
    """Add the papers cog."""
    await bot.add_cog(PapersCog(bot))
