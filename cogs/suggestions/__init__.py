"""Paper suggestions: /suggest, voting and presenter buttons on each post, review, withdraw, polls."""

from __future__ import annotations

from bot.client import PaperclubBot
from cogs.suggestions._cog import SuggestionsCog


async def setup(bot: PaperclubBot) -> None:
    """Add the suggestions cog."""
    await bot.add_cog(SuggestionsCog(bot))
