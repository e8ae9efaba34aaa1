"""Option types for /setup: each text takes what its setting keeps (the services' limits)."""

from __future__ import annotations

from discord import app_commands

from bot import timeutil
from bot.services.config.guild import MAX_OFFSETS_TEXT, MAX_TOPICS_TEXT, MAX_ZONES_TEXT
from bot.services.site.config import MAX_ABOUT, MAX_SLUG

Zone = app_commands.Range[str, 1, timeutil.MAX_ZONE_TEXT]
Zones = app_commands.Range[str, 1, MAX_ZONES_TEXT]
Offsets = app_commands.Range[str, 1, MAX_OFFSETS_TEXT]
Topics = app_commands.Range[str, 1, MAX_TOPICS_TEXT]
Slug = app_commands.Range[str, 1, MAX_SLUG]
AboutText = app_commands.Range[str, 1, MAX_ABOUT]
