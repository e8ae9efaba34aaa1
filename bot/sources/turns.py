"""A source's turn shared by every process on one store (arXiv's limit is per client address): a
``job_runs`` row ``sources.<source>.turn`` whose ``next_run_at`` is when the source is next free, taken by
one conditional UPDATE and handed back with the time the source may be asked again. While another process's
request is in flight, a taker looks again every :data:`POLL` (the hold is only its limit, should it die).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models.jobs import JobRun

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
POLL = timedelta(seconds=0.25)


def turn_name(source: str) -> str:
    """The store row of ``source``'s turn."""
    return f"sources.{source}.turn"


class StoreTurns:
    """:class:`bot.sources.http.SharedTurns` kept in the store: one holder at a time across processes."""

    def __init__(self, session_factory: async_sessionmaker[AsyncSession]) -> None:
        self.session_factory = session_factory
        self.owner = uuid.uuid4().hex  # this process in job_runs.lease_owner

    async def take(self, source: str, now: datetime, hold: float) -> datetime | None:
        """Take the turn until ``now + hold`` at most: None when taken, else when it is next free."""
        name = turn_name(source)
        async with self.session_factory() as session, session.begin():
            insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
            await session.execute(
                insert(JobRun).values(name=name, next_run_at=EPOCH, runs=0).on_conflict_do_nothing()
            )
            taken = await session.execute(
                update(JobRun)
                .where(JobRun.name == name, JobRun.next_run_at <= now)
                .values(
                    next_run_at=now + timedelta(seconds=hold),
                    lease_owner=self.owner,
                    last_started_at=now,
                    runs=JobRun.runs + 1,
                )
            )
            if getattr(taken, "rowcount", 0):
                return None
            free_at, holder = (
                await session.execute(
                    select(JobRun.next_run_at, JobRun.lease_owner).where(JobRun.name == name)
                )
            ).one()
            return min(free_at, now + POLL) if holder is not None else free_at

    async def give_back(self, source: str, free_at: datetime) -> None:
        """End this process's turn: the source is free again from ``free_at``."""
        async with self.session_factory() as session, session.begin():
            await session.execute(
                update(JobRun)
                .where(JobRun.name == turn_name(source), JobRun.lease_owner == self.owner)
                .values(next_run_at=free_at, lease_owner=None, last_finished_at=free_at)
            )
