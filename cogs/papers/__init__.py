"""Papers: /paper show (the paper's card: what the sources said and the club's history with it) and
/organize paper resolve (which paper a title-only name means)."""

from __future__ import annotations

from bot.client import PaperclubBot
from cogs.papers._cog import PapersCog


async def setup(bot: PaperclubBot) -> None:
    """Add the papers cog."""
    await bot.add_cog(PapersCog(bot))
