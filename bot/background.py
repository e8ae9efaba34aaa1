"""Jobs timed by APScheduler (``bot.background``); a ``once`` job runs once per slot in a deployment."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from sqlalchemy import case, literal, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.claims import claim_due
from bot.clock import Clock
from db.base import insert_ignore
from db.models.core import JobRun

if TYPE_CHECKING:
    from bot.metrics import BotMetrics

log = logging.getLogger("paperclub.jobs")

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
LEASE = timedelta(seconds=60)
ERROR_LIMIT = 300
TICK = timedelta(microseconds=1)


def every(period: timedelta) -> IntervalTrigger:
    """Slots every ``period`` counted from the Unix epoch, so every process has the same ones."""
    return IntervalTrigger(seconds=period.total_seconds(), start_date=EPOCH, timezone=UTC)


def daily(hour: int, minute: int) -> CronTrigger:
    """Once a day at ``hour:minute`` UTC."""
    return CronTrigger(hour=hour, minute=minute, timezone=UTC)


def build_scheduler() -> AsyncIOScheduler:
    """A UTC scheduler, jobs in memory only, that runs a late job once however late (missed times coalesce)."""
    return AsyncIOScheduler(
        timezone=UTC, job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None}
    )


def next_slot(trigger: BaseTrigger, after: datetime) -> datetime:
    """The trigger's first time strictly after ``after`` (missed slots coalesce into it)."""
    slot = trigger.get_next_fire_time(None, after + TICK)
    if slot is None:
        raise ValueError(f"the trigger {trigger} has no time after {after.isoformat()}")
    return slot.astimezone(UTC)


@dataclass(frozen=True)
class Job:
    """``run(now)`` at each of ``trigger``'s times; ``once``: one process of the deployment per slot."""

    name: str
    trigger: BaseTrigger
    run: Callable[[datetime], Awaitable[object]]
    once: bool = True
    run_at_start: bool = True  # fire when added (a ``once`` job: if its slot is due)
    lease: timedelta = LEASE  # ``once``: renewed every third of it while the run lasts
    stop_wait: float = 0.0  # seconds a run in progress may take to finish when the job is removed

    def __post_init__(self) -> None:
        if len(self.name) > 100:
            raise ValueError(f"job {self.name[:20]}…: names are at most 100 characters")
        if self.lease < timedelta(seconds=3):
            raise ValueError(f"job {self.name}: the lease must be at least 3 s")


async def claim_slot(session: AsyncSession, job: Job, owner: str, now: datetime) -> datetime | None:
    """Claim ``job``'s due slot (or one whose lease ran out) for ``owner``: the slot's time, or None."""
    interrupted = JobRun.lease_owner.is_not(None)
    rows = await claim_due(
        session,
        JobRun,
        due=[
            JobRun.name == job.name,
            (JobRun.lease_owner.is_(None) & (JobRun.next_run_at <= now)) | (JobRun.lease_until <= now),
        ],
        values={
            "claimed_due": case((interrupted, JobRun.claimed_due), else_=JobRun.next_run_at),
            "next_run_at": case(
                (JobRun.next_run_at <= now, literal(next_slot(job.trigger, now), JobRun.next_run_at.type)),
                else_=JobRun.next_run_at,
            ),
            "lease_owner": owner,
            "lease_until": now + job.lease,
            "last_started_at": now,
        },
        returning=[JobRun.claimed_due],
    )
    return rows[0].claimed_due if rows else None


async def _update_lease(session: AsyncSession, name: str, owner: str, **values: Any) -> bool:
    """Update ``name``'s row while ``owner`` holds its lease; whether it still did."""
    result = await session.execute(
        update(JobRun).where(JobRun.name == name, JobRun.lease_owner == owner).values(**values)
    )
    return bool(getattr(result, "rowcount", 0))


async def make_due(session: AsyncSession, name: str, now: datetime) -> None:
    """Make the ``once`` job ``name`` due at ``now`` for every process, in the caller's transaction."""
    await session.execute(
        update(JobRun).where(JobRun.name == name, JobRun.next_run_at > now).values(next_run_at=now)
    )


class Background:
    """``bot.background``: this process's jobs on its APScheduler (built in ``main()``, passed in)."""

    def __init__(
        self,
        scheduler: AsyncIOScheduler,
        session_factory: async_sessionmaker[AsyncSession],
        clock: Clock,
        *,
        observer: BotMetrics | None = None,
    ) -> None:
        self.scheduler = scheduler
        self.session_factory = session_factory
        self.clock = clock
        self.observer = observer
        self.owner = uuid.uuid4().hex  # this process in job_runs.lease_owner
        self.jobs: dict[str, Job] = {}  # in the order added: due at the same time, they run in it
        self._running: dict[str, asyncio.Task[None]] = {}  # a run: the claim, the job's code, the record
        self._work: dict[str, asyncio.Future[object]] = {}  # the job's code of a run in progress
        self._again: set[str] = set()  # fired while a run was in progress: run once more after it
        self._started = False

    async def add(self, job: Job) -> None:
        """Schedule ``job`` (a ``once`` job's row is made in the store the first time)."""
        if job.name in self.jobs:
            raise ValueError(f"a job named {job.name!r} is already added")
        now = self.clock.now()
        first = now if job.run_at_start else next_slot(job.trigger, now)
        if job.once:
            async with self.session_factory() as session, session.begin():
                row = {"name": job.name, "next_run_at": first, "runs": 0}
                await session.execute(insert_ignore(session, JobRun, row))
        self.jobs[job.name] = job
        self.scheduler.add_job(
            self._fire, job.trigger, args=[job.name], id=job.name, name=job.name, next_run_time=first
        )

    async def remove(self, name: str) -> None:
        """Unschedule ``name``; a run in progress gets ``stop_wait``, then is cancelled (slot due again)."""
        job = self.jobs.pop(name, None)
        self._again.discard(name)
        with contextlib.suppress(JobLookupError):
            self.scheduler.remove_job(name)
        task = self._running.get(name)
        if task is None:
            return
        if job is not None and job.stop_wait > 0:
            await asyncio.wait({task}, timeout=job.stop_wait)
        work = self._work.get(name)
        if work is not None:
            work.cancel()  # the job's own code; the record after it still runs
        await asyncio.gather(task, return_exceptions=True)

    async def due_now(self, name: str) -> None:
        """Make the ``once`` job ``name`` due now in every process and fire it here."""
        now = self.clock.now()
        async with self.session_factory() as session, session.begin():
            await make_due(session, name, now)
        self.wake(name, now)

    def wake(self, name: str, at: datetime) -> None:
        """Fire ``name`` in this process no later than ``at`` (then on at its trigger's times)."""
        scheduled = self.scheduler.get_job(name)
        if scheduled is None:
            return
        current = getattr(scheduled, "next_run_time", None)
        if current is None or at < current:
            self.scheduler.modify_job(name, next_run_time=at)

    async def start(self) -> None:
        """Start firing the jobs (on a FakeClock: on its moves, what is due now before this returns)."""
        if self._started:
            return
        self._started = True
        if self.clock.announces_moves:
            self.scheduler.start(paused=True)
            self.clock.on_change(self._on_clock)
            await self.run_due()
        else:
            self.scheduler.start()

    async def stop(self) -> None:
        """Remove every job (runs in progress as :meth:`remove` says) and stop the scheduler."""
        for name in list(self.jobs):
            await self.remove(name)
        self.clock.remove_listener(self._on_clock)
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)
        self._started = False

    async def idle(self) -> None:
        """Wait until no run is in progress (tests)."""
        while self._running:
            await asyncio.gather(*list(self._running.values()), return_exceptions=True)

    async def _on_clock(self, _now: datetime) -> None:
        await self.run_due()

    async def run_due(self) -> None:
        """Run every job whose time has come, each at most once, earliest first (a FakeClock's move)."""
        now = self.clock.now()
        ran: set[str] = set()
        while True:
            due = [
                scheduled
                for scheduled in self.scheduler.get_jobs()
                if scheduled.id not in ran
                and scheduled.id in self.jobs
                and scheduled.next_run_time is not None
                and scheduled.next_run_time <= now
            ]
            if not due:
                return
            names = list(self.jobs)
            first = min(due, key=lambda s: (s.next_run_time, names.index(s.id)))
            ran.add(first.id)
            self.scheduler.modify_job(first.id, next_run_time=next_slot(first.trigger, now))
            task = self._start(first.id)
            if task is not None:
                await asyncio.gather(task, return_exceptions=True)

    async def _fire(self, name: str) -> None:
        """APScheduler's callback: start a run, or (during one) run once more after it."""
        if name in self._running:
            self._again.add(name)
        else:
            self._start(name)

    def _start(self, name: str) -> asyncio.Task[None] | None:
        job = self.jobs.get(name)
        if job is None or name in self._running:
            return None
        task = asyncio.create_task(self._run(job), name=f"job-{name}")
        self._running[name] = task
        task.add_done_callback(lambda _: self._ended(name))
        return task

    def _ended(self, name: str) -> None:
        self._running.pop(name, None)
        if name in self._again:
            self._again.discard(name)
            self._start(name)

    async def _run(self, job: Job) -> None:
        now = self.clock.now()
        due = now
        if job.once:
            async with self.session_factory() as session, session.begin():
                claimed = await claim_slot(session, job, self.owner, now)
                held_until = None
                if claimed is None:
                    held_until = await session.scalar(
                        select(JobRun.lease_until).where(
                            JobRun.name == job.name, JobRun.lease_owner.is_not(None)
                        )
                    )
            if claimed is None:
                if held_until is not None:  # another process runs it: look again when its lease ends
                    self.wake(job.name, held_until)
                return
            due = claimed
        lag = max(now - due, timedelta(0))
        if lag > job.lease:
            log.warning("job=%s runs %.0f s after its slot", job.name, lag.total_seconds())
        if self.observer is not None:
            self.observer.job_started(job.name, lag)
        renewing = (
            asyncio.create_task(self._keep_lease(job), name=f"job-lease-{job.name}")
            if job.once and not self.clock.announces_moves
            else None
        )
        started = asyncio.get_running_loop().time()
        outcome, error = "ok", None
        work = self._work[job.name] = asyncio.ensure_future(job.run(now))
        if isinstance(work, asyncio.Task):
            work.set_name(f"job-{job.name}")  # its statements and log lines say whose they are
        try:
            await work
        except asyncio.CancelledError:  # removed mid-run (the bot is shutting down)
            outcome = "cancelled"
        except Exception as exc:  # logged and counted; the next slot still comes
            outcome, error = "error", f"{type(exc).__name__}: {exc}"
            log.exception("job=%s failed", job.name)
        finally:
            self._work.pop(job.name, None)
            if renewing is not None:
                renewing.cancel()
                await asyncio.gather(renewing, return_exceptions=True)
        duration = timedelta(seconds=asyncio.get_running_loop().time() - started)
        if job.once:
            async with self.session_factory() as session, session.begin():
                released = {"lease_owner": None, "lease_until": None, "claimed_due": None}
                if outcome == "cancelled":  # shutting down: the slot is due again, for anyone
                    earlier = case(
                        (JobRun.claimed_due < JobRun.next_run_at, JobRun.claimed_due),
                        else_=JobRun.next_run_at,
                    )
                    await _update_lease(session, job.name, self.owner, next_run_at=earlier, **released)
                elif not await _update_lease(
                    session,
                    job.name,
                    self.owner,
                    last_finished_at=self.clock.now(),
                    last_error=error[:ERROR_LIMIT] if error else None,
                    runs=JobRun.runs + 1,
                    **released,
                ):
                    log.warning("job=%s finished after another process took its lease over", job.name)
        if self.observer is not None:
            self.observer.job_finished(job.name, outcome, duration)
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise asyncio.CancelledError  # handed back above; let our own canceller know
        log.debug(
            "job=%s %s lag=%.1fs took=%.2fs", job.name, outcome, lag.total_seconds(), duration.total_seconds()
        )

    async def _keep_lease(self, job: Job) -> None:
        while True:
            await asyncio.sleep(job.lease.total_seconds() / 3)
            try:
                async with self.session_factory() as session, session.begin():
                    until = self.clock.now() + job.lease
                    kept = await _update_lease(session, job.name, self.owner, lease_until=until)
            except Exception:  # keep running; if the lease runs out another process may run it again
                log.exception("job=%s could not renew its lease", job.name)
                continue
            if not kept:
                log.warning("job=%s lost its lease to another process while running", job.name)
                return
