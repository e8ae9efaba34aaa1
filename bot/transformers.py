"""Slash-command option types shared by features.

``SessionOption`` is a session picked by id, with autocomplete (upcoming first, then recent; at most
25 choices, names within 100 characters). It only turns the option into an ``int``: the service
checks that the id belongs to the guild (``get_session`` raises NotFound otherwise), so the check
and the write happen in one transaction. ``TimezoneOption`` is an IANA name or club abbreviation
(PT, UK, IST...) with autocomplete, given to the command as the IANA name.

    from bot.transformers import SessionOption, TimezoneOption

    async def remind(self, interaction, session: SessionOption, timezone: TimezoneOption | None = None): ...
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot import timeutil
from bot.errors import BadInput
from bot.services.guild_settings import get_config
from bot.services.sessions_queries import session_choices

MAX_SESSION_ID = 2**31 - 1


async def session_autocomplete(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[int]]:
    """Choices for a `session` option in the user's guild."""
    if interaction.guild_id is None:
        return []
    bot = interaction.client
    async with bot.session_factory() as session:
        config = await get_config(session, interaction.guild_id)
        choices = await session_choices(
            session, interaction.guild_id, bot.clock.now(), current[:100], config.timezone
        )
    return [app_commands.Choice(name=name, value=value) for name, value in choices]


async def timezone_autocomplete(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=n, value=v) for n, v in timeutil.timezone_choices(current)][:25]


class SessionIdTransformer(app_commands.Transformer):
    """An integer option with session autocomplete; gives the id."""

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.integer

    @property
    def min_value(self) -> int:
        return 1

    @property
    def max_value(self) -> int:
        return MAX_SESSION_ID

    async def transform(self, interaction: discord.Interaction[Any], value: Any) -> int:
        try:
            session_id = int(value)
        except (TypeError, ValueError):
            raise BadInput("Pick a session from the list (or type its number).") from None
        if not 1 <= session_id <= MAX_SESSION_ID:
            raise BadInput(f"There is no session #{session_id} in this server.")
        return session_id

    async def autocomplete(  # type: ignore[override]  # discord.py types `value` loosely
        self, interaction: discord.Interaction[Any], value: int | float | str
    ) -> list[app_commands.Choice[int]]:
        return await session_autocomplete(interaction, str(value))


class TimezoneTransformer(app_commands.Transformer):
    """An IANA zone name or club abbreviation; gives the IANA name (BadInput when unknown)."""

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.string

    @property
    def max_value(self) -> int:
        return 64

    async def transform(self, interaction: discord.Interaction[Any], value: Any) -> str:
        return timeutil.resolve_timezone(str(value)).key

    async def autocomplete(  # type: ignore[override]
        self, interaction: discord.Interaction[Any], value: int | float | str
    ) -> list[app_commands.Choice[str]]:
        return await timezone_autocomplete(interaction, str(value))


SessionOption = app_commands.Transform[int, SessionIdTransformer]
TimezoneOption = app_commands.Transform[str, TimezoneTransformer]
