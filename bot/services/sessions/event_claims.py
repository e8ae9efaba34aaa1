"""Who makes a session's Discord scheduled event: one claim in the store per session, so two processes
(or a start-up catch-up and an organizer's edit) never both create one.

A claim is an ``app_state`` row ``event-claim:<guild>:<session>`` holding the claimer's token, taken with
one INSERT … ON CONFLICT DO NOTHING, or taken over with one conditional UPDATE when its lease ran out (its
claimer died between claiming and releasing). Released by deleting the row, only by its own token.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import delete, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.sessions.info import SCHEDULED
from db.models import AppState, ClubSession

# Longer than creating one event takes, even behind Discord's rate limits.
CLAIM_LEASE: Final = timedelta(minutes=2)


def claim_key(guild_id: int, session_id: int) -> str:
    """The ``app_state`` key of a session's event claim."""
    return f"event-claim:{guild_id}:{session_id}"


def _rowcount(result: Any) -> int:
    return int(getattr(result, "rowcount", 0) or 0)


async def claim_event(
    session: AsyncSession, guild_id: int, session_id: int, token: str, now: datetime
) -> bool:
    """Take the right to create the session's event; False when someone else holds a live claim."""
    return await claim(session, claim_key(guild_id, session_id), token, now)


async def claim(
    session: AsyncSession, key: str, token: str, now: datetime, lease: timedelta = CLAIM_LEASE
) -> bool:
    """Take the claim ``key`` (any ``app_state`` key: one thing made once, e.g. a series' organizer thread);
    False when someone else holds it and its ``lease`` has not run out."""
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    inserted = await session.execute(
        insert(AppState).values(key=key, value=token, updated_at=now).on_conflict_do_nothing()
    )
    if _rowcount(inserted) == 1:
        return True
    stale = await session.execute(
        update(AppState)
        .where(AppState.key == key, AppState.updated_at <= now - lease)
        .values(value=token, updated_at=now)
    )
    return _rowcount(stale) == 1


async def release_event_claim(session: AsyncSession, guild_id: int, session_id: int, token: str) -> None:
    """Give up a session's event claim held with ``token``."""
    await release(session, claim_key(guild_id, session_id), token)


async def release(session: AsyncSession, key: str, token: str) -> None:
    """Give the claim ``key`` back (only by the token that holds it)."""
    await session.execute(delete(AppState).where(AppState.key == key, AppState.value == token))


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
