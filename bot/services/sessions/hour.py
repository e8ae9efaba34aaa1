"""The hour itself for a session held in a voice or stage channel: Discord starts and ends only link events,
so the bot sets the channel's event active at the start and completed at the end, and sets the voice
channel's status to the session for the hour. Each step once across processes (a claim per session, the
stage recorded); a restart catches up; a session cancelled or moved is read from the store at each step."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot import claims
from bot.services.sessions import store
from bot.services.sessions.context import EVENT_ACTIVE, EVENT_SCHEDULED, EventRefused, SessionsContext
from bot.services.sessions.info import SCHEDULED, SessionInfo
from bot.text import cut, one_line
from db.models import ClubSession

log = logging.getLogger("paperclub.sessions")

ACTIVE: Final = "active"
COMPLETED: Final = "completed"
CLAIM_LEASE: Final = timedelta(minutes=2)  # longer than two event edits and a status, behind rate limits
# PUT /channels/{channel.id}/voice-status: "the voice channel status (0-500 characters)"
# (discord/discord-api-docs#6398; the OpenAPI description's maxLength 500).
VOICE_STATUS_LIMIT: Final = 500


def claim_key(guild_id: int, session_id: int) -> str:
    """The claim key of a session's hour."""
    return f"hour:{guild_id}:{session_id}"


def voice_status(info: SessionInfo) -> str:
    """The voice channel's status for the hour: the title and the papers, on one line, within 500."""
    papers = "; ".join(one_line(p.title, 200) for p in info.papers)
    text = f"{one_line(info.title, 200)} · {papers}" if papers else one_line(info.title, 200)
    return cut(text, VOICE_STATUS_LIMIT)


async def due(session: AsyncSession, guild_ids: Sequence[int], now: datetime) -> list[tuple[int, int]]:
    """(guild, session) of the channel sessions whose event has a step due: not started yet and the start
    passed (scheduled sessions only), or started (the end is checked per session)."""
    if not guild_ids:
        return []
    rows = await session.execute(
        select(ClubSession.guild_id, ClubSession.id)
        .where(
            ClubSession.guild_id.in_(guild_ids),
            ClubSession.channel_id.is_not(None),
            ClubSession.event_id.is_not(None),
            ClubSession.starts_at <= now,
            or_(
                ClubSession.hour_stage == ACTIVE,
                ClubSession.hour_stage.is_(None) & (ClubSession.status == SCHEDULED),
            ),
        )
        .order_by(ClubSession.starts_at, ClubSession.id)
    )
    return [(guild_id, session_id) for guild_id, session_id in rows.tuples()]


async def record_stage(session: AsyncSession, guild_id: int, session_id: int, stage: str) -> None:
    """Remember how far the session's event was taken."""
    await session.execute(
        update(ClubSession)
        .where(ClubSession.id == session_id, ClubSession.guild_id == guild_id)
        .values(hour_stage=stage)
    )


async def run(ctx: SessionsContext, guild_ids: Sequence[int], now: datetime) -> int:
    """Take every due session of these servers a step on; how many steps were taken."""
    async with ctx.store() as session:
        found = await due(session, guild_ids, now)
    steps = 0
    for guild_id, session_id in found:
        steps += await step(ctx, guild_id, session_id, now)
    return steps


async def step(ctx: SessionsContext, guild_id: int, session_id: int, now: datetime) -> int:
    """Under the session's claim, as the store has it now: start its event (and set the voice status) once
    the start has passed, complete it (and clear the status) once the end has; how many steps were taken."""
    token = secrets.token_hex(8)
    async with ctx.store() as session, session.begin():
        if not await claims.claim(session, claim_key(guild_id, session_id), token, now, CLAIM_LEASE):
            return 0  # another process is taking it
        info = await store.get_session(session, guild_id, session_id)
    try:
        return await _steps(ctx, info, now)
    except EventRefused as refused:
        log.warning("session %s: its event could not be moved on: %s", info.id, refused.warning)
        return 0
    finally:
        async with ctx.store() as session, session.begin():
            await claims.release(session, claim_key(guild_id, session_id), token)


async def _steps(ctx: SessionsContext, info: SessionInfo, now: datetime) -> int:
    discord, guild_id, stage, taken = ctx.discord, info.guild_id, info.hour_stage, 0
    if info.event_id is None or info.channel_id is None or stage == COMPLETED:
        return 0
    status = await discord.event_status(guild_id, info.event_id)
    if stage is None:
        if info.is_cancelled or not info.has_started(now):
            return 0  # cancelled or moved later meanwhile: left alone
        if status == EVENT_SCHEDULED:
            await discord.start_event(guild_id, info.event_id)
            status = EVENT_ACTIVE
        if status == EVENT_ACTIVE and not info.has_ended(now):
            await discord.set_voice_status(guild_id, info.channel_id, voice_status(info))
        stage = ACTIVE if status == EVENT_ACTIVE else COMPLETED  # gone, or ended or cancelled by hand
        await _record(ctx, info, stage)
        taken += 1
    if stage == ACTIVE and info.has_ended(now):
        if status == EVENT_ACTIVE:
            await discord.complete_event(guild_id, info.event_id)
        if info.hour_stage == ACTIVE:  # set at the start (not when the whole hour passed unseen)
            await discord.set_voice_status(guild_id, info.channel_id, None)
        await _record(ctx, info, COMPLETED)
        taken += 1
    return taken


async def _record(ctx: SessionsContext, info: SessionInfo, stage: str) -> None:
    async with ctx.store() as session, session.begin():
        await record_stage(session, info.guild_id, info.id, stage)
    log.info("session %s: its event is %s", info.id, stage)
