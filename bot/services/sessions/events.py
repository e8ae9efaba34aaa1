"""A session's Discord scheduled event kept in step with the store: made under a claim (never two), moved,
cancelled; made for upcoming sessions that lack one when the bot sees their server."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import claims, timeutil
from bot.services.config.guild import get_config
from bot.services.sessions import store
from bot.services.sessions.context import EVENT_SCHEDULED, EventFields, EventRefused, SessionsContext, Zones
from bot.services.sessions.info import SCHEDULED, SessionInfo
from bot.text import cut, one_line
from db.models import ClubSession

log = logging.getLogger("paperclub.sessions")

# Longer than creating one event takes, even behind Discord's rate limits.
CLAIM_LEASE: Final = timedelta(minutes=2)
# Guild Scheduled Event: name 1-100 characters, description 1-1000, entity_metadata.location 1-100.
NAME_LIMIT: Final = 100
DESCRIPTION_LIMIT: Final = 1000
LOCATION_LIMIT: Final = 100


def event_fields(info: SessionInfo, zones: Zones) -> EventFields:
    """The event's name, plain-text description (events render little markdown), times and place: its voice
    or stage channel, or a location (the sign-up link, or 'Video call' also when the link is too long)."""
    lines = [timeutil.format_club_time(info.starts_at, zones)]
    if info.presenter_name:
        lines.append(f"Presenter: {one_line(info.presenter_name, 100)}")
    if info.papers:
        lines.append("Papers: " + "; ".join(one_line(p.title, 120) for p in info.main_papers))
        if info.against:
            lines.append("Read against: " + "; ".join(one_line(p.title, 120) for p in info.against_papers))
    if info.signup_url:
        lines.append(f"Sign up: {info.signup_url}")
    if info.description:
        lines.extend(["", info.description])
    signup = info.signup_url
    if info.channel_id is not None:
        location = None  # a voice or stage channel's event has its channel and no location
    else:
        location = signup if signup and len(signup) <= LOCATION_LIMIT else "Video call"
    return EventFields(
        name=cut(one_line(info.title, 200), NAME_LIMIT),
        description=cut("\n".join(lines), DESCRIPTION_LIMIT),
        start=info.starts_at,
        end=info.ends_at,
        location=location,
        channel_id=info.channel_id,
    )


# ---------------------------------------------------------------- the claim


def claim_key(guild_id: int, session_id: int) -> str:
    """The claim key of a session's event."""
    return f"event-claim:{guild_id}:{session_id}"


async def claim_event(
    session: AsyncSession, guild_id: int, session_id: int, token: str, now: datetime
) -> bool:
    """Take the right to create the session's event; False when someone else holds a live claim."""
    return await claims.claim(session, claim_key(guild_id, session_id), token, now, CLAIM_LEASE)


async def release_event_claim(session: AsyncSession, guild_id: int, session_id: int, token: str) -> None:
    """Give up a session's event claim held with ``token``."""
    await claims.release(session, claim_key(guild_id, session_id), token)


async def sessions_missing_events(session: AsyncSession, guild_id: int, now: datetime) -> Sequence[int]:
    """Ids of the guild's scheduled sessions that have not started and have no Discord event yet, soonest
    first."""
    rows = await session.execute(
        select(ClubSession.id)
        .where(
            ClubSession.guild_id == guild_id,
            ClubSession.status == SCHEDULED,
            ClubSession.starts_at > now,
            ClubSession.event_id.is_(None),
        )
        .order_by(ClubSession.starts_at, ClubSession.id)
    )
    return list(rows.scalars())


# ---------------------------------------------------------------- keeping the event in step


async def sync_event(ctx: SessionsContext, info: SessionInfo, zones: Zones, now: datetime) -> str | None:
    """Create, move or cancel the session's event; the organizer's warning, or None. An event already
    started, ended or cancelled by hand is left as it is."""
    discord, guild_id = ctx.discord, info.guild_id
    try:
        status = await discord.event_status(guild_id, info.event_id) if info.event_id else None
        if info.is_cancelled:
            if info.event_id and status == EVENT_SCHEDULED:
                await discord.cancel_event(guild_id, info.event_id)
            return None
        if info.has_started(now):
            return None  # Discord refuses to move an event that has begun
        if info.event_id and status is not None:
            if status == EVENT_SCHEDULED:
                await discord.edit_event(guild_id, info.event_id, event_fields(info, zones))
            return None
        await _create_claimed(ctx, info, zones, now)
    except EventRefused as refused:
        return refused.warning
    return None


async def _create_claimed(ctx: SessionsContext, info: SessionInfo, zones: Zones, now: datetime) -> None:
    """Create the event under a claim from the session as stored then (no claim: the holder makes it), and
    follow a change made meanwhile."""
    guild_id, token = info.guild_id, secrets.token_hex(8)
    async with ctx.store() as session, session.begin():  # the claim and the session as stored
        if not await claim_event(session, guild_id, info.id, token, now):
            log.info("session %s: another process is creating its event", info.id)
            return
        current = await store.get_session(session, guild_id, info.id)
    released = False
    try:
        if current.is_cancelled or current.has_started(now):
            return
        event_id, status, made_from = current.event_id, None, None
        if event_id is not None and event_id != info.event_id:  # made by the claim's last holder
            status = await ctx.discord.event_status(guild_id, event_id)
        if status is None:
            made_from = event_fields(current, zones)
            event_id, status = await ctx.discord.create_event(guild_id, made_from)
        assert event_id is not None
        # Recorded, read again and released in one transaction: whoever edits the session after this sees
        # the event and moves it itself.
        async with ctx.store() as session, session.begin():
            if made_from is not None:
                await store.record_event(session, guild_id, info.id, event_id)
            latest = await store.get_session(session, guild_id, info.id)
            await release_event_claim(session, guild_id, info.id, token)
        released = True
        if status != EVENT_SCHEDULED:
            return
        if latest.is_cancelled:
            await ctx.discord.cancel_event(guild_id, event_id)
        elif (fields := event_fields(latest, zones)) != made_from:
            await ctx.discord.edit_event(guild_id, event_id, fields)  # changed while it was being made
    finally:
        if not released:
            async with ctx.store() as session, session.begin():
                await release_event_claim(session, guild_id, info.id, token)


async def catch_up(ctx: SessionsContext, guild_id: int, now: datetime) -> int:
    """Give the guild's upcoming sessions that lack one their event, stopping at the first refusal; how many
    were brought in step."""
    async with ctx.store() as session:
        zones = (await get_config(session, guild_id)).display_zones
        missing = await sessions_missing_events(session, guild_id, now)
    made = 0
    for session_id in missing:
        async with ctx.store() as session:
            info = await store.get_session(session, guild_id, session_id)
        if info.event_id is not None:
            continue  # made meanwhile (by an organizer's edit, or another process)
        warning = await sync_event(ctx, info, zones, now)
        if warning is not None:
            log.warning(
                "guild %s: %d upcoming session(s) still have no Discord event: %s",
                guild_id,
                len(missing) - made,
                warning,
            )
            break
        made += 1
    if made:
        log.info("guild %s: %d upcoming session(s) got their Discord event", guild_id, made)
    return made
