"""Discord's IDENTIFY limit kept across every process on one store.

Discord allows max_concurrency IDENTIFYs per 5 seconds, one per bucket ``shard_id % max_concurrency``
(https://discord.com/developers/docs/events/gateway#sharding, "Max Concurrency"). discord.py only spaces one
process's own shards, so each bucket's slot is a ``job_runs`` row (``gateway.identify.<bucket>``) whose
``next_run_at`` is when it is next free, taken by one conditional UPDATE.
"""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models.jobs import JobRun

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
IDENTIFY_WINDOW = timedelta(seconds=5)  # Discord: max_concurrency IDENTIFYs per 5 seconds
# Wider than Discord's window: between taking a slot and the IDENTIFY reaching Discord lie a connection
# and the event loop's scheduling, and a slot taken on time but sent late must not land within 5 s of the
# next one (seen once under load as an Invalid Session).
IDENTIFY_SPACING = IDENTIFY_WINDOW + timedelta(seconds=1)


def slot_name(shard_id: int | None, max_concurrency: int) -> str:
    """The store row of the shard's identify bucket."""
    return f"gateway.identify.{(shard_id or 0) % max(1, max_concurrency)}"


async def take_slot(
    session_factory: async_sessionmaker[AsyncSession], name: str, spacing: timedelta = IDENTIFY_SPACING
) -> timedelta:
    """Wait until this process holds the slot ``name``, which one taker per ``spacing`` may hold across
    every process on the store; returns how long it waited. Real time, always: the limit is Discord's."""
    waited = timedelta(0)
    while True:
        now = datetime.now(UTC)
        async with session_factory() as session, session.begin():
            insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
            await session.execute(
                insert(JobRun).values(name=name, next_run_at=EPOCH, runs=0).on_conflict_do_nothing()
            )
            taken = await session.execute(
                update(JobRun)
                .where(JobRun.name == name, JobRun.next_run_at <= now)
                .values(next_run_at=now + spacing, last_started_at=now, runs=JobRun.runs + 1)
            )
            if getattr(taken, "rowcount", 0):
                return waited
            free_at = (
                await session.execute(select(JobRun.next_run_at).where(JobRun.name == name))
            ).scalar_one()
        pause = max((free_at - now).total_seconds(), 0.0) + random.uniform(0, 0.1)
        waited += timedelta(seconds=pause)
        await asyncio.sleep(pause)
