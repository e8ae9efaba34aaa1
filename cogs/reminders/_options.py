"""Option types for /remind: a time (with a preview of how it reads), a duration, a reminder number."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Literal

import discord
from discord import app_commands
from sqlalchemy.ext.asyncio import AsyncSession

from bot import timeutil, when
from bot.client import Interaction
from bot.errors import BadInput
from bot.ids import parse_id
from bot.permissions import member_is_organizer
from bot.services.config.guild import get_config
from bot.services.reminders import queries
from bot.services.reminders import requested as svc
from bot.services.reminders.actions import Reminders
from bot.text import one_line
from bot.transformers import IdTransformer, OptionTransformer, guild_choices
from bot.transformers import WhenTransformer as SharedWhenTransformer

Repeat = Literal["none", "daily", "weekly", "monthly"]
Message = app_commands.Range[str, 1, svc.MAX_MESSAGE]


class WhenTransformer(SharedWhenTransformer):
    """A time as typed or pasted, or with a `session` a time before it ('1h'); the autocomplete shows how it
    will be read (or, with "⚠", why it can't)."""

    what = "reminder"
    max_days_ahead = svc.MAX_DAYS_AHEAD
    default_clock = svc.DEFAULT_CLOCK

    async def transform(self, interaction: Interaction, value: Any) -> str:
        """The time typed, checked."""
        text = " ".join(str(value).split())
        if not text:
            raise BadInput("Please give a time, e.g. tomorrow 9am, 2026-12-03 09:00, or 1h with a session.")
        return text

    async def preview(self, interaction: Interaction, text: str) -> str:
        """The autocomplete line: the time as the bot read it."""
        session_id = getattr(interaction.namespace, "session", None)
        if interaction.guild_id is None or session_id is None:
            return await super().preview(interaction, text)
        if when.pasted_instant(text, interaction.client.clock.now()) is not None:
            return await super().preview(interaction, text)  # an instant, before the session or not
        offset = timeutil.parse_offset(text)
        number = parse_id(session_id)
        reminders = getattr(interaction.client.get_cog("RemindersCog"), "reminders", None)
        title = None
        if number is not None and isinstance(reminders, Reminders):
            title = await reminders.session_title(interaction.guild_id, number)
        return f"{timeutil.format_offset(offset)} before {one_line(title, 60) if title else 'the session'}"


class DurationTransformer(OptionTransformer):
    """A duration such as 1h, 30m, 2d or 1h30m."""

    maximum = timeutil.MAX_OFFSET_TEXT

    async def transform(self, interaction: Interaction, value: Any) -> timedelta:
        """The duration typed, checked."""
        return timeutil.parse_offset(str(value))


class ReminderIdTransformer(IdTransformer):
    """A pending reminder picked by number, with autocomplete (for organizers only: the choices show
    the reminders' text and channels)."""

    noun = "reminder"

    async def autocomplete(  # type: ignore[override]
        self, interaction: Interaction, value: int | float | str
    ) -> list[app_commands.Choice[int]]:
        """The guild's pending reminders matching what is typed."""

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
