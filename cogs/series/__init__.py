"""The club's weekly series: /organize series add, show, list, skip, unskip, move, edit, end, open, and /series presenters."""

from __future__ import annotations

from bot.client import PaperclubBot
from cogs.series._cog import SeriesCog


async def setup(bot: PaperclubBot) -> None:
    """Add the series cog."""
    await bot.add_cog(SeriesCog(bot))
