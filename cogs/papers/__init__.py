"""The paper record: /paper (resolve a title-only name; the card comes with /paper show)."""

from __future__ import annotations

from bot.client import PaperclubBot
from cogs.papers._cog import PapersCog


async def setup(bot: PaperclubBot) -> None:
    """Add the papers cog."""
    await bot.add_cog(PapersCog(bot))
