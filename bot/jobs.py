"""Periodic background jobs, run exactly once per period across every process sharing one store.

A feature declares a job and registers it while its cog loads; the bot runs it, in whichever process
claims the run first::

    POLLS = "suggestions.polls"

    async def cog_load(self) -> None:
        await self.bot.jobs.add(PeriodicJob(POLLS, every=timedelta(minutes=10), run=self.finish_due_polls))

    async def cog_unload(self) -> None:
        await self.bot.jobs.remove(POLLS)

    async def finish_due_polls(self, now: datetime) -> None: ...   # ``now``: when the run was claimed

    await self.bot.jobs.due_by(POLLS, poll.ends_at)   # run it no later than this (once, by any process)

How it works: every job has a row in ``job_runs`` (db/models/jobs.py). Every process wakes at the row's
``next_run_at`` (and at least every :data:`LOOK_AGAIN`, so a time another process pulled in is seen) and
tries to claim the run with one conditional ``UPDATE … WHERE next_run_at <= now AND lease_owner IS NULL``;
exactly one process matches. The claim moves ``next_run_at`` to the next slot and takes a *lease*, which the
claimer renews while the run lasts. A process killed mid-run stops renewing, its lease runs out, and another
process runs that period again (so a run may repeat after a crash: make runs idempotent, as claiming rows
or checking a status in the store does). A run that raises is logged and counted; the next slot still comes.

Due times are slots ``offset + k·every`` from the Unix epoch in UTC: ``every=timedelta(days=1),
offset=timedelta(hours=6)`` runs daily at 06:00 UTC. The first time a deployment sees a job it runs at once
(``run_at_start``; else at the first slot), and a deployment that was down when slots passed runs once,
not once per missed slot.

Which process does the work: any. A run covers every guild and talks to Discord over REST, which needs no
gateway connection, so it need not run where the guild's shard is: the work goes on when the process
holding a shard is down, and the claim spreads runs over the live processes. Work too big for one run is
split by the job itself into rows claimed one by one (as the reminder runner does).

With a clock that announces its moves (tests, the demo) there are no real-time alarms: every move runs the
jobs that fell due, and ``await clock.advance(...)`` returns once they have.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import case, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from db.models.jobs import JobRun

log = logging.getLogger("paperclub.jobs")

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
LOOK_AGAIN = timedelta(seconds=30)  # longest a process sleeps without reading a job's row again
JITTER_SECONDS = 0.5  # random extra wait, so processes waking together do not all claim at once
ERROR_LIMIT = 300


@dataclass(frozen=True)
class PeriodicJob:
    """A job: ``run(now)`` every ``every`` (see the module docstring for the schedule and the lease)."""

    name: str
    every: timedelta
    run: Callable[[datetime], Awaitable[object]]
    offset: timedelta = timedelta(0)
    lease: timedelta = timedelta(seconds=60)  # renewed every third of it while the run lasts
    run_at_start: bool = True

    def __post_init__(self) -> None:
        if self.every <= timedelta(0):
            raise ValueError(f"job {self.name}: every must be positive")
        if self.lease < timedelta(seconds=3):
            raise ValueError(f"job {self.name}: the lease must be at least 3 s")
        if len(self.name) > 100:
            raise ValueError(f"job {self.name[:20]}…: names are at most 100 characters")

    def next_slot(self, after: datetime) -> datetime:
        """The first due time strictly after ``after``."""
        periods = (after - EPOCH - self.offset) // self.every
        return EPOCH + self.offset + (periods + 1) * self.every


class JobObserver(Protocol):
    """What the metrics hear (bot/metrics.py): each run's lag behind its due time, and how it ended."""

    def job_started(self, name: str, lag: timedelta) -> None: ...

    def job_finished(self, name: str, outcome: str, duration: timedelta) -> None: ...


# ---------------------------------------------------------------------------------------------- the store


def _rowcount(result: Any) -> int:
    return int(getattr(result, "rowcount", 0) or 0)


async def ensure_row(session: AsyncSession, job: PeriodicJob, now: datetime) -> None:
    """The job's row, created once per deployment (concurrent creators: one wins, the others do nothing)."""
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    first = now if job.run_at_start else job.next_slot(now)
    await session.execute(
        insert(JobRun).values(name=job.name, next_run_at=first, runs=0).on_conflict_do_nothing()
    )


async def claim_run(
    session: AsyncSession, job: PeriodicJob, token: str, now: datetime
) -> tuple[datetime, bool] | None:
    """Claim the due run: (its due time, True if it is taken over from a claimer whose lease ran out), or
    None when it is not due or another process holds it. One conditional UPDATE each way."""
    fresh = await session.execute(
        update(JobRun)
        .where(JobRun.name == job.name, JobRun.lease_owner.is_(None), JobRun.next_run_at <= now)
        .values(
            claimed_due=JobRun.next_run_at,
            next_run_at=job.next_slot(now),
            lease_owner=token,
            lease_until=now + job.lease,
            last_started_at=now,
        )
        .returning(JobRun.claimed_due)
    )
    due = fresh.scalar_one_or_none()
    if due is not None:
        return due, False
    stale = await session.execute(
        update(JobRun)
        .where(JobRun.name == job.name, JobRun.lease_owner.is_not(None), JobRun.lease_until <= now)
        .values(lease_owner=token, lease_until=now + job.lease, last_started_at=now)
        .returning(JobRun.claimed_due)
    )
    due = stale.scalar_one_or_none()
    return (due, True) if due is not None else None


async def renew_lease(session: AsyncSession, name: str, token: str, until: datetime) -> bool:
    result = await session.execute(
        update(JobRun).where(JobRun.name == name, JobRun.lease_owner == token).values(lease_until=until)
    )
    return _rowcount(result) == 1


async def finish_run(session: AsyncSession, name: str, token: str, now: datetime, error: str | None) -> bool:
    result = await session.execute(
        update(JobRun)
        .where(JobRun.name == name, JobRun.lease_owner == token)
        .values(
            lease_owner=None,
            lease_until=None,
            claimed_due=None,
            last_finished_at=now,
            last_error=error[:ERROR_LIMIT] if error else None,
            runs=JobRun.runs + 1,
        )
    )
    return _rowcount(result) == 1


async def give_back(session: AsyncSession, name: str, token: str) -> None:
    """A run stopped before it finished (the bot is shutting down): due again at once, for anyone."""
    await session.execute(
        update(JobRun)
        .where(JobRun.name == name, JobRun.lease_owner == token)
        .values(
            lease_owner=None,
            lease_until=None,
            next_run_at=case(
                (JobRun.claimed_due < JobRun.next_run_at, JobRun.claimed_due), else_=JobRun.next_run_at
            ),
            claimed_due=None,
        )
    )


async def pull_in(session: AsyncSession, name: str, when: datetime) -> bool:
    """Make the next run due no later than ``when``; True if that moved it."""
    result = await session.execute(
        update(JobRun).where(JobRun.name == name, JobRun.next_run_at > when).values(next_run_at=when)
    )
    return _rowcount(result) == 1


async def next_look(session: AsyncSession, name: str) -> datetime | None:
    """When the job may next be claimed: its due time, or when the current claimer's lease runs out."""
    row = (
        await session.execute(
            select(JobRun.next_run_at, JobRun.lease_owner, JobRun.lease_until).where(JobRun.name == name)
        )
    ).one_or_none()
    if row is None:
        return None
    next_run_at, owner, lease_until = row
    return lease_until if owner is not None and lease_until is not None else next_run_at


async def take_lease(session: AsyncSession, name: str, owner: str, now: datetime, lease: timedelta) -> bool:
    """Hold ``name`` for up to ``lease`` (a one-off claim, such as the command sync): True if taken, False
    while another owner's lease is live. Released by :func:`release_lease`, or it runs out."""
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    await session.execute(
        insert(JobRun).values(name=name, next_run_at=EPOCH, runs=0).on_conflict_do_nothing()
    )
    taken = await session.execute(
        update(JobRun)
        .where(
            JobRun.name == name,
            or_(JobRun.lease_owner.is_(None), JobRun.lease_owner == owner, JobRun.lease_until <= now),
        )
        .values(lease_owner=owner, lease_until=now + lease, last_started_at=now)
    )
    return _rowcount(taken) == 1


async def release_lease(session: AsyncSession, name: str, owner: str, now: datetime) -> None:
    await session.execute(
        update(JobRun)
        .where(JobRun.name == name, JobRun.lease_owner == owner)
        .values(lease_owner=None, lease_until=None, last_finished_at=now, runs=JobRun.runs + 1)
    )


async def take_rate_slot(
    session_factory: async_sessionmaker[AsyncSession], name: str, every: timedelta
) -> timedelta:
    """Wait until this process holds the slot ``name``, which one taker per ``every`` may hold across every
    process on the store (the gateway's IDENTIFY buckets); returns how long it waited. Real time, always:
    the limits it keeps are Discord's. The slot is a ``job_runs`` row whose ``next_run_at`` is when it is
    next free, taken by one conditional UPDATE."""
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
                .values(next_run_at=now + every, last_started_at=now, runs=JobRun.runs + 1)
            )
            if _rowcount(taken) == 1:
                return waited
            free_at = (
                await session.execute(select(JobRun.next_run_at).where(JobRun.name == name))
            ).scalar_one()
        pause = max((free_at - now).total_seconds(), 0.0) + random.uniform(0, 0.1)
        waited += timedelta(seconds=pause)
        await asyncio.sleep(pause)


# ---------------------------------------------------------------------------------------------- the runner


class JobRunner:
    """``bot.jobs``: the periodic jobs of this process. Cogs ``add`` theirs in ``cog_load`` and ``remove``
    them in ``cog_unload``; the bot ``start``s the runner once set up and ``stop``s it on close."""

    def __init__(
        self,
        session_factory: async_sessionmaker[AsyncSession],
        clock: Clock,
        *,
        observer: JobObserver | None = None,
        look_again: timedelta = LOOK_AGAIN,
    ) -> None:
        self.session_factory = session_factory
        self.clock = clock
        self.observer = observer
        self.look_again = look_again
        self.token = uuid.uuid4().hex  # this process's name in lease_owner
        self.jobs: dict[str, PeriodicJob] = {}
        self.runs = 0  # runs this process has made (all jobs)
        self._started = False
        self._loops: dict[str, asyncio.Task[None]] = {}
        self._wakes: dict[str, asyncio.Event] = {}
        self._running: dict[str, asyncio.Task[None]] = {}  # a run: the job's code, then its bookkeeping
        self._work: dict[str, asyncio.Future[object]] = {}  # the job's code of a run in progress
        self._listening = False

    @property
    def announced(self) -> bool:
        """A clock that announces its moves drives the jobs (no real-time alarms)."""
        return self.clock.announces_moves

    # -------------------------------------------------------------------- registering

    async def add(self, job: PeriodicJob) -> None:
        """Register ``job`` (its row is created in the store if this deployment never had it)."""
        if job.name in self.jobs:
            raise ValueError(f"a job named {job.name!r} is already registered")
        async with self.session_factory() as session, session.begin():
            await ensure_row(session, job, self.clock.now())
        self.jobs[job.name] = job
        self._wakes[job.name] = asyncio.Event()
        if self._started and not self.announced:
            self._loops[job.name] = asyncio.create_task(self._loop(job), name=f"job-{job.name}")

    async def remove(self, name: str) -> None:
        """Stop the job here (a run in progress is cancelled and handed back to be run again)."""
        self.jobs.pop(name, None)
        loop = self._loops.pop(name, None)
        if loop is not None:
            loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await loop
        work = self._work.get(name)
        if work is not None:
            work.cancel()  # the job's own code; the bookkeeping after it still runs
        running = self._running.get(name)
        if running is not None:
            await asyncio.gather(running, return_exceptions=True)
        self._wakes.pop(name, None)

    async def due_by(self, name: str, when: datetime) -> None:
        """Run ``name`` no later than ``when`` (kept in the store: any process runs it then)."""
        async with self.session_factory() as session, session.begin():
            moved = await pull_in(session, name, when)
        wake = self._wakes.get(name)
        if moved and wake is not None:
            wake.set()

    # -------------------------------------------------------------------- running

    async def start(self) -> None:
        """Start running the registered jobs. With an announcing clock, also run what is due now."""
        if self._started:
            return
        self._started = True
        if self.announced:
            if not self._listening:
                self._listening = True
                self.clock.on_change(self._on_clock)
            await self.run_due()
            return
        for job in self.jobs.values():
            self._loops[job.name] = asyncio.create_task(self._loop(job), name=f"job-{job.name}")

    async def stop(self) -> None:
        for name in list(self.jobs):
            await self.remove(name)
        if self._listening:
            self.clock.remove_listener(self._on_clock)
            self._listening = False
        self._started = False

    async def _on_clock(self, now: datetime) -> None:
        if self._started:
            await self.run_due()

    async def run_due(self) -> list[str]:
        """Try every registered job once; returns the names this process ran."""
        ran = []
        for job in list(self.jobs.values()):
            if await self.attempt(job) is not None:
                ran.append(job.name)
        return ran

    async def _loop(self, job: PeriodicJob) -> None:
        wake = self._wakes[job.name]
        while job.name in self.jobs:
            try:
                await self.attempt(job)
                async with self.session_factory() as session:
                    look = await next_look(session, job.name)
            except asyncio.CancelledError:
                raise
            except Exception:  # the store is unreachable for a moment: look again later
                log.exception("job=%s could not be checked", job.name)
                look = None
            now = self.clock.now()
            delay = self.look_again if look is None else min(max(look - now, timedelta(0)), self.look_again)
            wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), delay.total_seconds() + random.uniform(0, JITTER_SECONDS))

    async def attempt(self, job: PeriodicJob) -> datetime | None:
        """Claim ``job``'s run if it is due and run it here; returns the run's due time, or None."""
        if job.name in self._running:
            return None
        now = self.clock.now()
        async with self.session_factory() as session, session.begin():
            claimed = await claim_run(session, job, self.token, now)
        if claimed is None:
            return None
        due, taken_over = claimed
        if taken_over:
            log.warning(
                "job=%s: its last claimer stopped mid-run (lease ran out); running it again", job.name
            )
        task = asyncio.create_task(self._run(job, now, due), name=f"job-run-{job.name}")
        self._running[job.name] = task
        task.add_done_callback(lambda _: self._running.pop(job.name, None))
        # Shielded: cancelling the loop that waits must not cut the run short; ``remove`` cancels the run
        # itself, which then hands it back to the store.
        await asyncio.shield(task)
        return due

    async def _run(self, job: PeriodicJob, now: datetime, due: datetime) -> None:
        lag = max(now - due, timedelta(0))
        if self.observer is not None:
            self.observer.job_started(job.name, lag)
        renewing = (
            None if self.announced else asyncio.create_task(self._renew(job), name=f"job-lease-{job.name}")
        )
        started = asyncio.get_running_loop().time()
        error: str | None = None
        outcome = "ok"
        work = self._work[job.name] = asyncio.ensure_future(job.run(now))
        try:
            await work
        except asyncio.CancelledError:  # ``remove`` stopped the job mid-run (or the loop is closing)
            outcome = "cancelled"
        except Exception as exc:  # a job's failure is logged and counted; the next slot still comes
            outcome, error = "error", f"{type(exc).__name__}: {exc}"
            log.exception("job=%s failed", job.name)
        finally:
            self._work.pop(job.name, None)
            if renewing is not None:
                renewing.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await renewing
        duration = timedelta(seconds=asyncio.get_running_loop().time() - started)
        async with self.session_factory() as session, session.begin():
            if outcome == "cancelled":
                await give_back(session, job.name, self.token)
            elif not await finish_run(session, job.name, self.token, self.clock.now(), error):
                log.warning("job=%s finished after another process took its lease over", job.name)
        self.runs += 1
        if self.observer is not None:
            self.observer.job_finished(job.name, outcome, duration)
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise asyncio.CancelledError  # handed back above; let our own canceller know
        log.debug(
            "job=%s %s lag=%.1fs took=%.2fs",
            job.name,
            outcome,
            lag.total_seconds(),
            duration.total_seconds(),
        )

    async def _renew(self, job: PeriodicJob) -> None:
        every = job.lease.total_seconds() / 3
        while True:
            await asyncio.sleep(every)
            try:
                async with self.session_factory() as session, session.begin():
                    kept = await renew_lease(session, job.name, self.token, self.clock.now() + job.lease)
            except Exception:  # keep running; if the lease runs out another process may run it again
                log.exception("job=%s could not renew its lease", job.name)
                continue
            if not kept:
                log.warning("job=%s lost its lease to another process while running", job.name)
                return

    async def idle(self) -> None:
        """Wait until no run is in progress (tests)."""
        while self._running:
            await asyncio.gather(*list(self._running.values()), return_exceptions=True)
