"""The club's weekly series: /series add, show, list, skip, unskip, move, edit, end, open, and /presenters."""

from __future__ import annotations

from bot.client import PaperclubBot

__all__ = ["setup"]


async def setup(bot: PaperclubBot) -> None:
    # Imported here, not at the top: the sessions cog's announcement buttons import cogs.series._buttons,
    # and this package's cog imports the sessions cog; importing the cog when the package is first imported
    # would make that a cycle.
    from cogs.series._background import SeriesBackground
    from cogs.series._cog import SeriesCog
    from cogs.series._presenters import PresentersCog

    background = SeriesBackground(bot)
    await bot.add_cog(background)
    await bot.add_cog(SeriesCog(bot, background))
    await bot.add_cog(PresentersCog(bot))
