"""A session's Discord scheduled event: created, moved or cancelled to match the store.

Shared by every feature that saves a session; best effort once the session is saved (a missing permission
becomes a warning, never a lost session). Creating is claimed in the store first
(bot.services.sessions.event_claims), so two processes never make two events for one session. The bot only
touches events it created, so Create Events is the permission it asks for (Discord, "Guild Scheduled Event
Permissions Requirements"; bot.permissions.REQUIRED_PERMISSIONS).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final

import discord

from bot.client import PaperclubBot
from bot.services.sessions import event_claims
from bot.services.sessions import store as svc
from bot.services.sessions.info import SessionInfo
from bot.timeutil import DisplayZone
from cogs.sessions import _render as render

log = logging.getLogger("paperclub.sessions")

GRANT_CREATE_EVENTS: Final = (
    "I could not create or update the session's Discord event: grant the bot **Create Events** "
    "(Server Settings → Roles → the bot's role). The session itself is saved."
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
        await _create_claimed(bot, guild, info, zones, now)
    except discord.Forbidden:
        return GRANT_CREATE_EVENTS
    except discord.HTTPException as error:
        log.warning("scheduled event for session %s failed: %s", info.id, error)
        return f"Discord did not accept the event ({error.status}); the session itself is saved."
    return None


async def _create_claimed(
    bot: PaperclubBot,
    guild: discord.Guild,
    info: SessionInfo,
    zones: Sequence[DisplayZone],
    now: datetime,
) -> None:
    """Create the event under a claim in the store, from the session as stored once the claim is held.

    Without the claim (someone else is creating it right now) nothing is done: the holder reads the
    session after claiming, and re-reads it after recording the event, so it ends on the latest fields.
    """
    token = secrets.token_hex(8)
    async with bot.session_factory() as session, session.begin():  # the claim and the session as stored
        if not await event_claims.claim_event(session, info.guild_id, info.id, token, now):
            log.info("session %s: another process is creating its event", info.id)
            return
        current = await svc.get_session(session, info.guild_id, info.id)
    released = False
    try:
        if current.is_cancelled or current.has_started(now):
            return
        existing = None
        if current.event_id is not None and current.event_id != info.event_id:
            existing = await _existing_event(guild, current.event_id)  # made by the claim's last holder
        made_from: dict[str, Any] | None = None  # the fields the event was made with (None: not known)
        if existing is None:
            made_from = _event_fields(current, zones)
            event = await guild.create_scheduled_event(**made_from)
        else:
            event = existing
        # Recorded, read again and released in one transaction: whoever edits the session after this
        # sees the event and moves it itself.
        async with bot.session_factory() as session, session.begin():
            if existing is None:
                await svc.record_event(session, info.guild_id, info.id, event.id)
            latest = await svc.get_session(session, info.guild_id, info.id)
            await event_claims.release_event_claim(session, info.guild_id, info.id, token)
        released = True
        if event.status != discord.EventStatus.scheduled:
            return
        if latest.is_cancelled:
            await event.cancel()
        elif _event_fields(latest, zones) != made_from:
            await event.edit(**_event_fields(latest, zones))  # changed while the event was being made
    finally:
        if not released:
            async with bot.session_factory() as session, session.begin():
                await event_claims.release_event_claim(session, info.guild_id, info.id, token)
