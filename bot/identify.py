"""Discord's IDENTIFY limit kept across every process on one store: each bucket's slot is a claim."""

from __future__ import annotations

import asyncio
import random
import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import claims

# Discord allows max_concurrency IDENTIFYs per 5 seconds, one per bucket ``shard_id % max_concurrency``
# (https://discord.com/developers/docs/events/gateway#sharding, "Max Concurrency"); discord.py only spaces
# one process's own shards.
IDENTIFY_WINDOW = timedelta(seconds=5)
# Wider than Discord's window: between taking a slot and the IDENTIFY reaching Discord lie a connection
# and the event loop's scheduling, and a slot taken on time but sent late must not land within 5 s of the
# next one (seen once under load as an Invalid Session).
IDENTIFY_SPACING = IDENTIFY_WINDOW + timedelta(seconds=1)


def slot_name(shard_id: int | None, max_concurrency: int) -> str:
    """The claim key of the shard's identify bucket."""
    return f"gateway.identify.{(shard_id or 0) % max(1, max_concurrency)}"


async def take_slot(
    session_factory: async_sessionmaker[AsyncSession], name: str, spacing: timedelta = IDENTIFY_SPACING
) -> timedelta:
    """Wait until this process holds the slot ``name``, which one taker per ``spacing`` may hold across
    every process on the store (a claim held for ``spacing``, never released); returns how long it waited.
    Real time, always: the limit is Discord's."""
    owner = uuid.uuid4().hex
    waited = timedelta(0)
    while True:
        now = datetime.now(UTC)
        async with session_factory() as session, session.begin():
            if await claims.claim(session, name, owner, now, spacing):
                return waited
            free_at = await claims.held_until(session, name) or now
        pause = max((free_at - now).total_seconds(), 0.0) + random.uniform(0, 0.1)
        waited += timedelta(seconds=pause)
        await asyncio.sleep(pause)
