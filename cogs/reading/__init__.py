"""Reading history, named reading lists, full-text search and exports: /reading."""

from __future__ import annotations

from bot.client import PaperclubBot
from cogs.reading._cog import ReadingCog


async def setup(bot: PaperclubBot) -> None:
    """Add the reading cog."""
    await bot.add_cog(ReadingCog(bot))
