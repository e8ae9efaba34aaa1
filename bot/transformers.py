"""Slash-command option types and autocomplete helpers shared by features (the services check ids' guilds)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime, time
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import discord
from discord import app_commands
from sqlalchemy.ext.asyncio import AsyncSession

from bot import timeutil, when
from bot.errors import BadInput, PaperclubError
from bot.ids import MAX_ID, parse_id, require_id
from bot.services.config.guild import GuildConfig, get_config
from bot.services.sessions import rules as session_rules
from bot.services.sessions.queries import MAX_CHOICES, session_choices
from bot.services.sessions.store import get_session
from bot.text import CHOICE_NAME_LIMIT, cut

if TYPE_CHECKING:
    from bot.client import Interaction, PaperclubBot  # noqa: F401  (PaperclubBot: the base class's string)

ChoiceT = TypeVar("ChoiceT", str, int, float)


async def guild_choices(
    interaction: Interaction, query: Callable[[AsyncSession, int], Awaitable[Iterable[tuple[str, ChoiceT]]]]
) -> list[app_commands.Choice[ChoiceT]]:
    """Autocomplete from ``query(session, guild_id)``'s (name, value) pairs; none in DMs, at most 25."""
    if interaction.guild_id is None:
        return []
    async with interaction.client.session_factory() as session:
        pairs = list(await query(session, interaction.guild_id))
    return [app_commands.Choice(name=name, value=value) for name, value in pairs][:MAX_CHOICES]


async def timezone_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Time-zone choices matching what the member typed."""
    return [app_commands.Choice(name=n, value=v) for n, v in timeutil.timezone_choices(current)][:MAX_CHOICES]


class OptionTransformer(app_commands.Transformer["PaperclubBot"]):
    """A Transformer whose option type and bounds (a string's: its length) are class attributes."""

    option_type: ClassVar[discord.AppCommandOptionType] = discord.AppCommandOptionType.string
    minimum: ClassVar[int | None] = None
    maximum: ClassVar[int | None] = None
    type = property(lambda self: self.option_type)
    min_value = property(lambda self: self.minimum)
    max_value = property(lambda self: self.maximum)


class IdTransformer(OptionTransformer):
    """An integer option naming a stored row by its number; ``noun`` names the row in the errors."""

    option_type = discord.AppCommandOptionType.integer
    minimum = 1
    maximum = MAX_ID
    noun: ClassVar[str] = "row"

    async def transform(self, interaction: Interaction, value: Any) -> int:
        """The id the member gave, or BadInput."""
        return require_id(value, self.noun)


class SessionIdTransformer(IdTransformer):
    """An integer option with session autocomplete; gives the id."""

    noun = "session"

    async def autocomplete(  # type: ignore[override]  # discord.py types `value` loosely
        self, interaction: Interaction, value: int | float | str
    ) -> list[app_commands.Choice[int]]:
        """The guild's sessions matching what the member typed."""

        async def query(session: AsyncSession, guild_id: int) -> list[tuple[str, int]]:
            config = await get_config(session, guild_id)
            now = interaction.client.clock.now()
            return await session_choices(session, guild_id, now, str(value)[:100], config.timezone)

        return await guild_choices(interaction, query)


WHEN_EXAMPLES = "tomorrow 9am, 2026-12-03 09:00, Thursday 9:30am"


class WhenTransformer(OptionTransformer):
    """A time as typed or pasted, spaces tidied; its autocomplete previews how it reads (or "⚠" why not)."""

    minimum = 1
    maximum = when.MAX_TEXT
    #: For "That <what> time is in the past".
    what: ClassVar[str] = "session"
    #: The service's furthest time ahead, checked in the preview too (None: no check).
    max_days_ahead: ClassVar[int | None] = session_rules.MAX_DAYS_AHEAD
    #: The time of day the service reads a day alone at ('next thursday'; None: it asks for one).
    default_clock: ClassVar[time | None] = None
    examples: ClassVar[str] = WHEN_EXAMPLES  # in the answer to an empty time

    async def transform(self, interaction: Interaction, value: Any) -> str:
        """The time text on one line, or BadInput when empty."""
        text = " ".join(str(value).split())
        if not text:
            raise BadInput(f"Please give a time, e.g. {self.examples}.")
        return text

    async def zone(self, interaction: Interaction, session: AsyncSession, config: GuildConfig) -> str:
        """The zone the command will read the time in: the `timezone` option's, else the server's."""
        typed = getattr(interaction.namespace, "timezone", None)
        return timeutil.resolve_timezone(str(typed)).key if typed else config.timezone

    async def preview(self, interaction: Interaction, text: str) -> str:
        """How ``text`` reads: the club time line with the year (a pasted timestamp: in every display zone)."""
        if interaction.guild_id is None:
            return text
        now = interaction.client.clock.now()
        async with interaction.client.session_factory() as session:
            config = await get_config(session, interaction.guild_id)
            zone = await self.zone(interaction, session, config)
        parsed = when.parse_when(text, timeutil.resolve_timezone(zone), now, default_clock=self.default_clock)
        return self.club_time(parsed.utc, text, config, now)

    def club_time(self, utc: datetime, text: str, config: GuildConfig, now: datetime) -> str:
        """The preview's line for a start ``utc`` read from ``text``, checked as the service checks it."""
        timeutil.ensure_future(utc, now, what=self.what)
        if self.max_days_ahead is not None:
            timeutil.ensure_within(utc, now, self.max_days_ahead)
        zones = config.display_zones if when.is_timestamp(text) else config.display_zones[:2]
        return timeutil.format_club_time(utc, zones, with_year=True)

    async def autocomplete(  # type: ignore[override]  # discord.py types `value` loosely
        self, interaction: Interaction, value: int | float | str
    ) -> list[app_commands.Choice[str]]:
        """One choice showing how the typed time reads in club time (or why it cannot be read)."""
        text = " ".join(str(value).split())[: self.maximum]
        if not text:
            return []
        try:
            shown = await self.preview(interaction, text)
        except PaperclubError as error:
            shown = f"⚠ {error.user_message}"
        # A timestamp's markup shows as typed in a choice (no markdown there): its reading stands alone.
        name = shown if when.is_timestamp(text) and not shown.startswith("⚠") else f"{text} → {shown}"
        return [app_commands.Choice(name=cut(name, CHOICE_NAME_LIMIT), value=text)]


class SessionEditWhenTransformer(WhenTransformer):
    """`when` of /organize session edit: without a `timezone`, read in the session's own zone (as the edit does)."""

    async def zone(self, interaction: Interaction, session: AsyncSession, config: GuildConfig) -> str:
        """The zone to read the time in: the typed one, else the edited session's, else the guild's."""
        typed = getattr(interaction.namespace, "timezone", None)
        session_id = parse_id(getattr(interaction.namespace, "session", None))
        if typed or session_id is None or interaction.guild_id is None:
            return await super().zone(interaction, session, config)
        try:
            return (await get_session(session, interaction.guild_id, session_id)).timezone
        except PaperclubError:  # not (yet) a session of this server: the server's zone, as a guess
            return config.timezone


SessionOption = app_commands.Transform[int, SessionIdTransformer]
#: `when` of /organize session add; `SessionEditWhen` for /organize session edit.
SessionWhen = app_commands.Transform[str, WhenTransformer]
SessionEditWhen = app_commands.Transform[str, SessionEditWhenTransformer]
