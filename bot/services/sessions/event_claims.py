"""Who makes a session's Discord scheduled event (a claim per session), and which sessions still lack one."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import claims
from bot.services.sessions.info import SCHEDULED
from db.models import ClubSession

# Longer than creating one event takes, even behind Discord's rate limits.
CLAIM_LEASE: Final = timedelta(minutes=2)


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
    """Ids of the guild's scheduled sessions that have not started and have no Discord event yet (e.g.
    they came in by ``paperclub import``), soonest first."""
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
