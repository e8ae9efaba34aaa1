"""Per-guild settings: read with defaults, validate and change."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Final

from sqlalchemy import Row
from sqlalchemy.ext.asyncio import AsyncSession

from bot import timeutil
from bot.errors import BadInput
from bot.text import clean_line
from db.models import GuildSettings
from db.models.core import (
    DEFAULT_DISPLAY_ZONES,
    DEFAULT_REMINDER_OFFSETS,
    DEFAULT_SUGGESTION_TOPICS,
    DEFAULT_TIMEZONE,
)

#: The longest texts /setup takes for zones and offsets (their checked forms, kept, fit the same columns).
MAX_ZONES_TEXT: Final = 400  # guild_settings.display_zones
MAX_OFFSETS_TEXT: Final = 100  # guild_settings.reminder_offsets
MAX_TOPICS: Final = 20
MAX_TOPIC: Final = 50  # suggestions.topic
#: Every topic at its longest, with "; " between them.
MAX_TOPICS_TEXT: Final = MAX_TOPICS * (MAX_TOPIC + 2)


@dataclass(frozen=True)
class GuildConfig:
    """A guild's settings as plain values (defaults when the guild never ran /setup)."""

    guild_id: int
    announcements_channel_id: int | None = None
    suggestions_channel_id: int | None = None
    organizer_role_id: int | None = None
    ping_role_id: int | None = None
    timezone: str = DEFAULT_TIMEZONE
    display_zones_text: str = DEFAULT_DISPLAY_ZONES
    reminder_offsets_text: str = DEFAULT_REMINDER_OFFSETS
    suggestion_topics: tuple[str, ...] = field(
        default_factory=lambda: tuple(DEFAULT_SUGGESTION_TOPICS.split(";"))
    )

    @property
    def display_zones(self) -> list[timeutil.DisplayZone]:
        """The guild's display zones, parsed."""
        return timeutil.parse_display_zones(self.display_zones_text)

    @property
    def reminder_offsets(self) -> list[timedelta]:
        """The guild's default reminder offsets, parsed."""
        return timeutil.parse_offsets(self.reminder_offsets_text)


def config_from_row(row: GuildSettings | Row[Any] | None, guild_id: int) -> GuildConfig:
    """The settings from a ``guild_settings`` row (an ORM object, or a Core row with its column names)."""
    if row is None:
        return GuildConfig(guild_id=guild_id)
    return GuildConfig(
        guild_id=row.guild_id,
        announcements_channel_id=row.announcements_channel_id,
        suggestions_channel_id=row.suggestions_channel_id,
        organizer_role_id=row.organizer_role_id,
        ping_role_id=row.ping_role_id,
        timezone=row.timezone,
        display_zones_text=row.display_zones,
        reminder_offsets_text=row.reminder_offsets,
        suggestion_topics=tuple(t for t in row.suggestion_topics.split(";") if t),
    )


async def get_config(session: AsyncSession, guild_id: int) -> GuildConfig:
    """The guild's settings (the defaults when it has none)."""
    return config_from_row(await session.get(GuildSettings, guild_id), guild_id)


def normalize_change(name: str, value: object) -> object:
    """Validate one setting; returns the value to store or raises BadInput."""
    if name == "timezone":
        return timeutil.resolve_timezone(str(value)).key
    if name == "display_zones":
        return timeutil.format_display_zones(timeutil.parse_display_zones(str(value)))
    if name == "reminder_offsets":
        offsets = timeutil.parse_offsets(str(value))
        return ",".join(timeutil.format_offset(o) for o in offsets)
    if name == "suggestion_topics":
        topics = [t for t in (clean_line(t) for t in str(value).replace(",", ";").split(";")) if t]
        if not topics or len(topics) > MAX_TOPICS or any(len(t) > MAX_TOPIC for t in topics):
            raise BadInput(
                f"Give 1–{MAX_TOPICS} topics separated by `;`, each at most {MAX_TOPIC} characters."
            )
        return ";".join(topics)
    return value


async def update_config(session: AsyncSession, guild_id: int, **changes: object) -> GuildConfig:
    """Validate every change first, then write them together (caller owns the transaction)."""
    clean = {name: normalize_change(name, value) for name, value in changes.items()}
    row = await session.get(GuildSettings, guild_id)
    if row is None:
        row = GuildSettings(guild_id=guild_id)  # the columns' defaults, filled in by the flush
        session.add(row)
    for name, value in clean.items():
        setattr(row, name, value)
    await session.flush()
    return config_from_row(row, guild_id)
