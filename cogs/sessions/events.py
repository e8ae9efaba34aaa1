"""A session's Discord scheduled event: created, moved or cancelled to match the store.

Shared by every feature that saves a session (the sessions cog, and the suggestions cog when it makes
a session from an accepted suggestion). Best effort once the session is saved: a missing permission
becomes a short warning for the organizer, never a lost session.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import discord

from bot.client import PaperclubBot
from bot.services.sessions import store as svc
from bot.services.sessions.info import SessionInfo
from bot.timeutil import DisplayZone
from cogs.sessions import render

log = logging.getLogger("paperclub.sessions")

GRANT_MANAGE_EVENTS = (
    "I could not update the Discord event: grant the bot **Manage Events** "
    "(Server Settings → Roles). The session itself is saved."
)


def _event_fields(info: SessionInfo, zones: Sequence[DisplayZone]) -> dict[str, Any]:
    return {
        "name": render.event_name(info),
        "description": render.event_description(info, zones),
        "start_time": info.starts_at,
        "end_time": info.ends_at,
        "entity_type": discord.EntityType.external,
        "privacy_level": discord.PrivacyLevel.guild_only,
        "location": render.event_location(info),
    }


async def _existing_event(guild: discord.Guild, event_id: int) -> discord.ScheduledEvent | None:
    event = guild.get_scheduled_event(event_id)
    if event is not None:
        return event
    try:
        return await guild.fetch_scheduled_event(event_id)
    except discord.NotFound:
        return None


async def sync_event(
    bot: PaperclubBot, guild: discord.Guild, info: SessionInfo, zones: Sequence[DisplayZone]
) -> str | None:
    """Create, update or cancel the session's scheduled event. Returns a warning, or None."""
    now = bot.clock.now()
    try:
        event = await _existing_event(guild, info.event_id) if info.event_id else None
        if info.is_cancelled:
            if event is not None and event.status == discord.EventStatus.scheduled:
                await event.cancel()
            return None
        if info.has_started(now):
            return None  # Discord refuses to move an event that has begun
        if event is not None:
            if event.status == discord.EventStatus.scheduled:
                await event.edit(**_event_fields(info, zones))
            return None  # an event already started, ended or cancelled by hand is left as it is
        created = await guild.create_scheduled_event(**_event_fields(info, zones))
    except discord.Forbidden:
        return GRANT_MANAGE_EVENTS
    except discord.HTTPException as error:
        log.warning("scheduled event for session %s failed: %s", info.id, error)
        return f"Discord did not accept the event ({error.status}); the session itself is saved."
    async with bot.session_factory() as session, session.begin():
        await svc.record_event(session, info.guild_id, info.id, created.id)
    return None
