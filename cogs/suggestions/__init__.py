"""Paper suggestions: /suggest, voting and presenter buttons on each post, review, withdraw, polls."""

from __future__ import annotations

from typing import Any

from cogs.suggestions._cog import SuggestionsCog


async def setup(bot: Any) -> None:
    await bot.add_cog(SuggestionsCog(bot))
