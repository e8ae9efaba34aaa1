"""Slash-command option types and autocomplete helpers shared by features.

``SessionOption`` is a session picked by id, with autocomplete (upcoming first, then recent; at most
25 choices, names within 100 characters). It only turns the option into an ``int``: the service
checks that the id belongs to the guild (``get_session`` raises NotFound otherwise), so the check
and the write happen in one transaction. ``TimezoneOption`` is an IANA name or club abbreviation
(PT, UK, IST...) with autocomplete, given to the command as the IANA name.

    from bot.transformers import SessionOption, TimezoneOption

    async def remind(self, interaction, session: SessionOption, timezone: TimezoneOption | None = None): ...

For a feature's own options: :class:`OptionTransformer` (the option's type and bounds as class
attributes), :class:`IdTransformer` (a row picked by number) and :func:`guild_choices` (autocomplete
read from the store for the user's guild).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import discord
from discord import app_commands
from sqlalchemy.ext.asyncio import AsyncSession

from bot import timeutil
from bot.errors import BadInput
from bot.services.sessions.queries import MAX_CHOICES, session_choices
from bot.services.setup.config import get_config

if TYPE_CHECKING:
    from bot.client import Interaction

MAX_ID = 2**31 - 1
MAX_SESSION_ID = MAX_ID

ChoiceT = TypeVar("ChoiceT", str, int, float)


async def guild_choices(
    interaction: Interaction,
    query: Callable[[AsyncSession, int], Awaitable[Iterable[tuple[str, ChoiceT]]]],
) -> list[app_commands.Choice[ChoiceT]]:
    """Autocomplete read from the store: ``query(session, guild_id)`` gives (name, value) pairs, names
    already fit for display. None in DMs; at most 25."""
    if interaction.guild_id is None:
        return []
    async with interaction.client.session_factory() as session:
        pairs = list(await query(session, interaction.guild_id))
    return [app_commands.Choice(name=name, value=value) for name, value in pairs][:MAX_CHOICES]


async def session_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[int]]:
    """Choices for a `session` option in the user's guild."""

    async def query(session: AsyncSession, guild_id: int) -> list[tuple[str, int]]:
        config = await get_config(session, guild_id)
        now = interaction.client.clock.now()
        return await session_choices(session, guild_id, now, current[:100], config.timezone)

    return await guild_choices(interaction, query)


async def timezone_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=n, value=v) for n, v in timeutil.timezone_choices(current)][:MAX_CHOICES]


class OptionTransformer(app_commands.Transformer):
    """A Transformer whose option type and bounds are class attributes (for a string option the bounds
    are its length). Subclasses add ``transform`` and, when they offer one, ``autocomplete``."""

    option_type: ClassVar[discord.AppCommandOptionType] = discord.AppCommandOptionType.string
    minimum: ClassVar[int | None] = None
    maximum: ClassVar[int | None] = None

    @property
    def type(self) -> discord.AppCommandOptionType:
        return self.option_type

    @property
    def min_value(self) -> int | None:
        return self.minimum

    @property
    def max_value(self) -> int | None:
        return self.maximum


class IdTransformer(OptionTransformer):
    """An integer option naming a stored row by its number (1 … 2**31-1); gives the ``int``. The service
    checks that it belongs to the guild. ``noun`` names the row in the error for a non-number."""

    option_type = discord.AppCommandOptionType.integer
    minimum = 1
    maximum = MAX_ID
    noun: ClassVar[str] = "row"

    async def transform(self, interaction: discord.Interaction[Any], value: Any) -> int:
        try:
            return int(value)
        except (TypeError, ValueError):
            raise BadInput(f"Pick a {self.noun} from the list (or type its number).") from None


class SessionIdTransformer(IdTransformer):
    """An integer option with session autocomplete; gives the id."""

    noun = "session"

    async def transform(self, interaction: discord.Interaction[Any], value: Any) -> int:
        session_id = await super().transform(interaction, value)
        if not 1 <= session_id <= MAX_SESSION_ID:
            raise BadInput(f"There is no session #{session_id} in this server.")
        return session_id

    async def autocomplete(  # type: ignore[override]  # discord.py types `value` loosely
        self, interaction: Interaction, value: int | float | str
    ) -> list[app_commands.Choice[int]]:
        return await session_autocomplete(interaction, str(value))


class TimezoneTransformer(OptionTransformer):
    """An IANA zone name or club abbreviation; gives the IANA name (BadInput when unknown)."""

    maximum = 64

    async def transform(self, interaction: discord.Interaction[Any], value: Any) -> str:
        return timeutil.resolve_timezone(str(value)).key

    async def autocomplete(  # type: ignore[override]
        self, interaction: Interaction, value: int | float | str
    ) -> list[app_commands.Choice[str]]:
        return await timezone_autocomplete(interaction, str(value))


SessionOption = app_commands.Transform[int, SessionIdTransformer]
TimezoneOption = app_commands.Transform[str, TimezoneTransformer]
