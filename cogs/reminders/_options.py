"""Option types for /remind: a time (with a preview of how it reads), a duration, a reminder number."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Literal

import discord
from discord import app_commands
from sqlalchemy.ext.asyncio import AsyncSession

from bot import timeutil
from bot.client import Interaction
from bot.errors import BadInput, PaperclubError
from bot.permissions import member_is_organizer
from bot.replies import CHOICE_NAME_LIMIT, cut
from bot.services.reminders import queries
from bot.services.reminders import requested as svc
from bot.services.setup.config import get_config
from bot.transformers import IdTransformer, OptionTransformer, guild_choices

Repeat = Literal["none", "daily", "weekly", "monthly"]
Message = app_commands.Range[str, 1, svc.MAX_MESSAGE]


async def _preview(interaction: Interaction, text: str) -> str:
    """How ``text`` reads as the reminder's time, for the autocomplete list."""
    if interaction.guild_id is None:
        return text
    bot = interaction.client
    now = bot.clock.now()
    session_id = getattr(interaction.namespace, "session", None)
    async with bot.session_factory() as session:
        config = await get_config(session, interaction.guild_id)
        if session_id is not None:
            offset = timeutil.parse_offset(text)
            return f"{timeutil.format_offset(offset)} before session #{session_id}"
    parsed = timeutil.parse_when(text, timeutil.resolve_timezone(config.timezone), now)
    timeutil.ensure_future(parsed.utc, now, what="reminder")
    return timeutil.format_club_time(parsed.utc, config.display_zones[:2], with_year=True)


class WhenTransformer(OptionTransformer):
    """A time as typed ('tomorrow 9am', '2026-12-03 09:00', or '1h' before a session). The service reads
    it in the guild's zone; the autocomplete shows how it will be read before the command is sent."""

    maximum = 100

    async def transform(self, interaction: discord.Interaction[Any], value: Any) -> str:
        text = " ".join(str(value).split())
        if not text:
            raise BadInput("Please give a time, e.g. tomorrow 9am, 2026-12-03 09:00, or 1h with a session.")
        return text

    async def autocomplete(  # type: ignore[override]  # discord.py types `value` loosely
        self, interaction: Interaction, value: int | float | str
    ) -> list[app_commands.Choice[str]]:
        text = " ".join(str(value).split())[:100]
        if not text:
            return []
        try:
            shown = await _preview(interaction, text)
        except PaperclubError as error:
            shown = f"⚠ {error.user_message}"
        return [app_commands.Choice(name=cut(f"{text} → {shown}", CHOICE_NAME_LIMIT), value=text)]


class DurationTransformer(OptionTransformer):
    """A duration such as 1h, 30m, 2d or 1h30m."""

    maximum = 40

    async def transform(self, interaction: discord.Interaction[Any], value: Any) -> timedelta:
        return timeutil.parse_offset(str(value))


class ReminderIdTransformer(IdTransformer):
    """A pending reminder picked by number, with autocomplete (for organizers only: the choices show
    the reminders' text and channels)."""

    noun = "reminder"

    async def autocomplete(  # type: ignore[override]
        self, interaction: Interaction, value: int | float | str
    ) -> list[app_commands.Choice[int]]:
        async def query(session: AsyncSession, guild_id: int) -> list[tuple[str, int]]:
            config = await get_config(session, guild_id)
            member = interaction.user
            if not isinstance(member, discord.Member) or not member_is_organizer(member, config):
                return []
            return await queries.cancel_choices(
                session, guild_id, current=str(value)[:100], zone=config.timezone
            )

        return await guild_choices(interaction, query)


When = app_commands.Transform[str, WhenTransformer]
Duration = app_commands.Transform[timedelta, DurationTransformer]
ReminderId = app_commands.Transform[int, ReminderIdTransformer]
