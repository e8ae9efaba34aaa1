"""The background core (bot/background.py) on SQLite and PostgreSQL: one run per slot however many processes
share the store, a dead claimer's lease running out, waking a job early, failures, a run handed back at
shutdown, and the same on APScheduler's real-time timer."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import select

from bot.background import Background, Job, build_scheduler, claim_slot, daily, every, next_slot
from bot.clock import Clock, FakeClock, SystemClock
from bot.metrics import BotMetrics, metric, parse_metrics
from db.base import Base
from db.engine import create_session_factory
from db.models.core import JobRun

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
EVERY = timedelta(minutes=10)


class Recorder:
    """A job's run function that remembers who ran it and when."""

    def __init__(self, who: str, log: list[tuple[str, datetime]]) -> None:
        self.who, self.log = who, log

    async def __call__(self, now: datetime) -> None:
        self.log.append((self.who, now))


def core(factory, clock: Clock, **kwargs) -> Background:  # type: ignore[no-untyped-def]
    return Background(build_scheduler(), factory, clock, **kwargs)


def test_slots_are_the_same_in_every_process() -> None:
    ten = every(EVERY)
    assert next_slot(ten, datetime(2026, 12, 1, 9, 3, tzinfo=UTC)) == datetime(2026, 12, 1, 9, 10, tzinfo=UTC)
    assert next_slot(ten, datetime(2026, 12, 1, 9, 10, tzinfo=UTC)) == datetime(
        2026, 12, 1, 9, 20, tzinfo=UTC
    )
    six = daily(6, 0)
    assert next_slot(six, datetime(2026, 12, 1, 5, 59, tzinfo=UTC)) == datetime(2026, 12, 1, 6, 0, tzinfo=UTC)
    assert next_slot(six, datetime(2026, 12, 1, 6, 0, tzinfo=UTC)) == datetime(2026, 12, 2, 6, 0, tzinfo=UTC)
    with pytest.raises(ValueError, match="lease"):
        Job("bad", ten, Recorder("", []), lease=timedelta(seconds=1))


async def test_the_migration_matches_the_model(engine) -> None:
    def diffs(connection) -> list:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return compare_metadata(context, Base.metadata)

    async with engine.connect() as conn:
        found = await conn.run_sync(diffs)
    flat = [d for item in found for d in (item if isinstance(item, list) else [item])]
    assert [d for d in flat if "job_runs" in repr(d) or "'claims'" in repr(d)] == []  # and bot/claims.py's


async def test_each_slot_runs_once_however_many_processes(store_info, engine) -> None:
    """Three cores (three processes' worth, each with its own engine) on one store and one clock."""
    clock = FakeClock(START)
    runs: list[tuple[str, datetime]] = []
    engines = [engine] + [store_info.engine() for _ in range(2)]
    cores = [core(create_session_factory(e), clock) for e in engines]
    try:
        for i, each in enumerate(cores):
            await each.add(Job("test.periodic", every(EVERY), Recorder(f"p{i}", runs)))
        for each in cores:
            await each.start()
        assert len(runs) == 1  # the first time the deployment sees the job, it runs at once (once)
        for _ in range(12):
            await clock.advance(timedelta(minutes=5))
        # 60 minutes from 09:00: slots 09:10 … 10:00 are six runs, plus the first one
        assert [when for _, when in runs] == [START + timedelta(minutes=10 * k) for k in range(7)]
        async with create_session_factory(engine)() as session:
            row = (await session.execute(select(JobRun))).scalar_one()
        assert row.runs == 7
        assert row.lease_owner is None
        assert row.next_run_at == START + timedelta(minutes=70)
    finally:
        for each in cores:
            await each.stop()
        for extra in engines[1:]:
            await extra.dispose()


async def test_a_dead_claimers_lease_runs_out_and_another_runs_it(session_factory) -> None:
    clock = FakeClock(START)
    runs: list[tuple[str, datetime]] = []
    job = Job("test.lease", every(EVERY), Recorder("alive", runs), lease=timedelta(seconds=60))
    background = core(session_factory, clock)
    await background.add(job)
    async with session_factory() as session, session.begin():
        assert await claim_slot(session, job, "killed-process", clock.now()) == START
    await background.start()
    assert runs == []  # the claim is live: nobody else may run that slot
    await clock.advance(timedelta(seconds=59))
    assert runs == []
    await clock.advance(timedelta(seconds=2))  # the dead claimer's lease has run out
    assert runs == [("alive", START + timedelta(seconds=61))]
    await clock.advance(timedelta(minutes=1))
    assert len(runs) == 1  # that slot ran once; the next is at 09:10
    await clock.set(START + EVERY)
    assert len(runs) == 2
    await background.stop()


async def test_wake_fires_a_job_early_then_it_keeps_its_slots(session_factory) -> None:
    clock = FakeClock(START)
    runs: list[tuple[str, datetime]] = []
    background = core(session_factory, clock)
    await background.add(Job("test.wake", every(timedelta(hours=1)), Recorder("here", runs), once=False))
    await background.start()
    assert runs == [("here", START)]
    background.wake("test.wake", START + timedelta(minutes=7))
    background.wake("test.wake", START + timedelta(minutes=30))  # later than what is due: no change
    await clock.advance(timedelta(minutes=6))
    assert len(runs) == 1
    await clock.advance(timedelta(minutes=1))
    assert runs[1:] == [("here", START + timedelta(minutes=7))]
    await clock.set(START + timedelta(minutes=59))
    assert len(runs) == 2
    await clock.set(START + timedelta(hours=1))
    assert runs[2:] == [("here", START + timedelta(hours=1))]
    await background.stop()


async def test_due_now_runs_the_job_once_across_processes(store_info, engine) -> None:
    """Two processes' cores on one store: a job made due now (a new paper for papers.enrich) runs on the
    clock's next move instead of at its hourly slot, once however many processes ask at the same moment."""
    clock = FakeClock(START)
    runs: list[tuple[str, datetime]] = []
    other_engine = store_info.engine()
    cores = [core(create_session_factory(e), clock) for e in (engine, other_engine)]
    try:
        for i, each in enumerate(cores):
            await each.add(Job("test.soon", every(timedelta(hours=1)), Recorder(f"p{i}", runs)))
            await each.start()
        assert len(runs) == 1  # at start
        await clock.advance(timedelta(seconds=1))
        assert len(runs) == 1  # nothing due before 10:00
        await cores[1].due_now("test.soon")
        await clock.advance(timedelta(seconds=1))
        assert runs[1:] == [("p1", START + timedelta(seconds=2))]
        await asyncio.gather(*(each.due_now("test.soon") for each in cores))  # both at once
        await clock.advance(timedelta(seconds=1))
        assert len(runs) == 3  # one of them ran it
        await clock.advance(timedelta(minutes=30))
        assert len(runs) == 3
        await clock.set(START + timedelta(hours=1))
        assert len(runs) == 4  # and the hourly slots still come
        async with create_session_factory(engine)() as session:
            row = (await session.execute(select(JobRun))).scalar_one()
        assert (row.runs, row.next_run_at) == (4, START + timedelta(hours=2))
    finally:
        for each in cores:
            await each.stop()
        await other_engine.dispose()


async def test_due_now_fires_at_once_on_the_real_timer(store_info, engine) -> None:
    """On APScheduler's timer a job made due runs at once (not at its hourly slot), in the process that asked;
    the other's timer stays at the hourly slot."""
    runs: list[tuple[str, datetime]] = []
    ran = asyncio.Event()

    class Signalling(Recorder):
        async def __call__(self, now: datetime) -> None:
            await super().__call__(now)
            if len(runs) == 2:
                ran.set()

    other_engine = store_info.engine()
    cores = [core(create_session_factory(e), SystemClock()) for e in (engine, other_engine)]
    try:
        for i, each in enumerate(cores):
            await each.add(Job("test.soon", every(timedelta(hours=1)), Signalling(f"p{i}", runs)))
            await each.start()
        for each in cores:
            await each.idle()
        assert len(runs) == 1  # at start, by one of them
        await cores[1].due_now("test.soon")
        await asyncio.wait_for(ran.wait(), 10)
        for each in cores:
            await each.idle()
    finally:
        for each in cores:
            await each.stop()
        await other_engine.dispose()
    async with create_session_factory(engine)() as session:
        row = (await session.execute(select(JobRun))).scalar_one()
    assert row.runs == len(runs) == 2
    assert runs[1][0] == "p1"


async def test_a_failing_run_is_logged_counted_and_the_next_slot_still_comes(session_factory, caplog) -> None:
    clock = FakeClock(START)
    metrics = BotMetrics()
    calls: list[datetime] = []

    async def broken(now: datetime) -> None:
        calls.append(now)
        raise RuntimeError("arXiv exploded")

    background = core(session_factory, clock, observer=metrics)
    await background.add(Job("test.broken", every(EVERY), broken))
    with caplog.at_level(logging.ERROR, logger="paperclub.jobs"):
        await background.start()
    (record,) = [r for r in caplog.records if "job=test.broken failed" in r.getMessage()]
    # with the traceback (formatted already when bot.logs' redacting filter is installed)
    traceback = record.exc_text or logging.Formatter().formatException(record.exc_info or (None, None, None))
    assert "RuntimeError: arXiv exploded" in traceback
    async with session_factory() as session:
        row = (await session.execute(select(JobRun))).scalar_one()
    assert row.last_error == "RuntimeError: arXiv exploded"
    assert row.next_run_at == START + EVERY
    await clock.advance(EVERY)
    assert len(calls) == 2
    values = parse_metrics(metrics.render().decode())
    assert metric(values, "paperclub_job_runs_total", job="test.broken", outcome="error") == 2
    assert metric(values, "paperclub_job_lag_seconds", job="test.broken") == 0
    await background.stop()


async def test_a_run_stopped_midway_is_handed_back(session_factory) -> None:
    clock = FakeClock(START)
    started, release = asyncio.Event(), asyncio.Event()
    runs: list[tuple[str, datetime]] = []

    async def slow(now: datetime) -> None:
        started.set()
        await release.wait()

    stopping = core(session_factory, clock)
    await stopping.add(Job("test.handback", every(EVERY), slow))
    starting = asyncio.create_task(stopping.start())
    await asyncio.wait_for(started.wait(), 10)
    await stopping.stop()  # the bot shuts down mid-run
    await starting
    other = core(session_factory, clock)
    await other.add(Job("test.handback", every(EVERY), Recorder("other", runs)))
    await other.start()
    assert runs == [("other", START)]  # due again at once, not at the next slot
    await other.stop()


async def test_a_wake_that_fires_during_the_run_runs_the_job_again_after_it(session_factory) -> None:
    """On APScheduler's timer: a run asks to be woken (the reminders' next due row) at a time that comes
    before the run ends; the job runs again right after, not at its next hourly slot."""
    background = core(session_factory, SystemClock())
    runs: list[datetime] = []
    again = asyncio.Event()

    async def run(now: datetime) -> None:
        runs.append(now)
        if len(runs) == 1:
            background.wake("test.again", now)  # fires at once, while this run still goes on
            await asyncio.sleep(0.05)
        else:
            again.set()

    await background.add(Job("test.again", every(timedelta(hours=1)), run, once=False))
    await background.start()
    try:
        await asyncio.wait_for(again.wait(), 10)
    finally:
        await background.stop()
    assert len(runs) == 2


async def test_real_time_cores_share_the_slots(store_info, engine) -> None:
    """Two cores on the system clock: APScheduler fires each at the same slots, one runs each slot."""
    runs: list[tuple[str, datetime]] = []
    done = asyncio.Event()
    period = timedelta(milliseconds=400)

    class Counting(Recorder):
        async def __call__(self, now: datetime) -> None:
            await super().__call__(now)
            if len(runs) >= 6:
                done.set()

    other_engine = store_info.engine()
    cores = [core(create_session_factory(e), SystemClock()) for e in (engine, other_engine)]
    try:
        for i, each in enumerate(cores):
            await each.add(
                Job("test.realtime", every(period), Counting(f"p{i}", runs), lease=timedelta(seconds=5))
            )
            await each.start()
        await asyncio.wait_for(done.wait(), 30)
    finally:
        for each in cores:
            await each.stop()
        await other_engine.dispose()
    async with create_session_factory(engine)() as session:
        row = (await session.execute(select(JobRun))).scalar_one()
    assert row.runs == len(runs)  # every slot claimed is a run made, by one core
    slots = [period * ((when - datetime(1970, 1, 1, tzinfo=UTC)) // period) for _, when in runs[1:]]
    assert len(set(slots)) == len(slots)  # no slot ran twice
