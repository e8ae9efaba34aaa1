"""The periodic-job core (bot/jobs.py) on SQLite and PostgreSQL: one run per period however many runners
share the store, a dead claimer's lease running out, pulled-in runs, failures, and the real-time loop."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import select

from bot.clock import FakeClock, SystemClock
from bot.jobs import JobRunner, PeriodicJob, claim_run, next_look
from bot.metrics import BotMetrics, metric, parse_metrics
from db.base import Base
from db.engine import create_session_factory
from db.models.jobs import JobRun

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
EVERY = timedelta(minutes=10)


class Recorder:
    """A job's run function that remembers who ran it and when."""

    def __init__(self, who: str, log: list[tuple[str, datetime]]) -> None:
        self.who, self.log = who, log

    async def __call__(self, now: datetime) -> None:
        self.log.append((self.who, now))


def test_slots_are_aligned_to_the_epoch_plus_offset() -> None:
    daily = PeriodicJob(
        "series.daily", every=timedelta(days=1), offset=timedelta(hours=6), run=Recorder("", [])
    )
    assert daily.next_slot(datetime(2026, 12, 1, 5, 59, tzinfo=UTC)) == datetime(
        2026, 12, 1, 6, 0, tzinfo=UTC
    )
    assert daily.next_slot(datetime(2026, 12, 1, 6, 0, tzinfo=UTC)) == datetime(2026, 12, 2, 6, 0, tzinfo=UTC)
    ten = PeriodicJob("x", every=EVERY, run=Recorder("", []))
    assert ten.next_slot(datetime(2026, 12, 1, 9, 3, tzinfo=UTC)) == datetime(2026, 12, 1, 9, 10, tzinfo=UTC)
    with pytest.raises(ValueError, match="every must be positive"):
        PeriodicJob("bad", every=timedelta(0), run=Recorder("", []))
    with pytest.raises(ValueError, match="lease"):
        PeriodicJob("bad", every=EVERY, lease=timedelta(seconds=1), run=Recorder("", []))


async def test_the_migration_matches_the_model(engine) -> None:
    def diffs(connection) -> list:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return compare_metadata(context, Base.metadata)

    async with engine.connect() as conn:
        found = await conn.run_sync(diffs)
    flat = [d for item in found for d in (item if isinstance(item, list) else [item])]
    assert [d for d in flat if "job_runs" in repr(d)] == []


async def test_each_period_runs_once_however_many_runners(store_info, engine) -> None:
    """Three runners (three processes' worth, each with its own engine) on one store and one clock."""
    clock = FakeClock(START)
    runs: list[tuple[str, datetime]] = []
    engines = [engine] + [store_info.engine() for _ in range(2)]
    runners = [JobRunner(create_session_factory(e), clock) for e in engines]
    try:
        for i, runner in enumerate(runners):
            await runner.add(PeriodicJob("test.periodic", every=EVERY, run=Recorder(f"p{i}", runs)))
        for runner in runners:
            await runner.start()
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
        for runner in runners:
            await runner.stop()
        for extra in engines[1:]:
            await extra.dispose()


async def test_a_dead_claimers_lease_runs_out_and_another_runs_it(session_factory) -> None:
    clock = FakeClock(START)
    runs: list[tuple[str, datetime]] = []
    job = PeriodicJob("test.lease", every=EVERY, lease=timedelta(seconds=60), run=Recorder("alive", runs))
    runner = JobRunner(session_factory, clock)
    await runner.add(job)
    async with session_factory() as session, session.begin():
        assert await claim_run(session, job, "killed-process", clock.now()) == (START, False)
    await runner.start()
    assert runs == []  # the claim is live: nobody else may run that period
    async with session_factory() as session:
        assert await next_look(session, job.name) == START + timedelta(seconds=60)
    await clock.advance(timedelta(seconds=59))
    assert runs == []
    await clock.advance(timedelta(seconds=2))  # the dead claimer's lease has run out
    assert runs == [("alive", START + timedelta(seconds=61))]
    await clock.advance(timedelta(minutes=1))
    assert len(runs) == 1  # that period ran once; the next is at 09:10
    await clock.set(START + EVERY)
    assert len(runs) == 2
    await runner.stop()


async def test_due_by_pulls_the_next_run_in_for_every_runner(session_factory) -> None:
    clock = FakeClock(START)
    runs: list[tuple[str, datetime]] = []
    first, second = JobRunner(session_factory, clock), JobRunner(session_factory, clock)
    await first.add(PeriodicJob("test.pull", every=timedelta(hours=1), run=Recorder("first", runs)))
    await second.add(PeriodicJob("test.pull", every=timedelta(hours=1), run=Recorder("second", runs)))
    await first.start()
    await second.start()
    runs.clear()
    await second.due_by("test.pull", START + timedelta(minutes=7))
    await second.due_by("test.pull", START + timedelta(minutes=30))  # later than what is due: no change
    await clock.advance(timedelta(minutes=6))
    assert runs == []
    await first.stop()  # the process that pulled it in is not needed: it is in the store
    await clock.advance(timedelta(minutes=1))
    assert runs == [("second", START + timedelta(minutes=7))]
    await second.stop()


async def test_a_failing_run_is_logged_counted_and_the_next_slot_still_comes(session_factory, caplog) -> None:
    clock = FakeClock(START)
    metrics = BotMetrics()
    calls: list[datetime] = []

    async def broken(now: datetime) -> None:
        calls.append(now)
        raise RuntimeError("arXiv exploded")

    runner = JobRunner(session_factory, clock, observer=metrics)
    await runner.add(PeriodicJob("test.broken", every=EVERY, run=broken))
    with caplog.at_level(logging.ERROR, logger="paperclub.jobs"):
        await runner.start()
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
    await runner.stop()


async def test_a_run_stopped_midway_is_handed_back(session_factory) -> None:
    clock = FakeClock(START)
    started, release = asyncio.Event(), asyncio.Event()
    runs: list[tuple[str, datetime]] = []

    async def slow(now: datetime) -> None:
        started.set()
        await release.wait()

    stopping = JobRunner(session_factory, clock)
    await stopping.add(PeriodicJob("test.handback", every=EVERY, run=slow))
    running = asyncio.create_task(stopping.start())
    await asyncio.wait_for(started.wait(), 10)
    await stopping.stop()  # the bot shuts down mid-run
    await running
    other = JobRunner(session_factory, clock)
    await other.add(PeriodicJob("test.handback", every=EVERY, run=Recorder("other", runs)))
    await other.start()
    assert runs == [("other", START)]  # due again at once, not at the next slot
    await other.stop()


async def test_real_time_runners_share_the_periods(store_info, engine) -> None:
    """Two runners on the system clock: consecutive slots, none run twice."""
    runs: list[tuple[str, datetime]] = []
    done = asyncio.Event()
    every = timedelta(milliseconds=400)

    class Counting(Recorder):
        async def __call__(self, now: datetime) -> None:
            await super().__call__(now)
            if len(runs) >= 6:
                done.set()

    other_engine = store_info.engine()
    runners = [
        JobRunner(create_session_factory(e), SystemClock(), look_again=timedelta(seconds=1))
        for e in (engine, other_engine)
    ]
    try:
        for i, runner in enumerate(runners):
            await runner.add(
                PeriodicJob(
                    "test.realtime", every=every, lease=timedelta(seconds=5), run=Counting(f"p{i}", runs)
                )
            )
            await runner.start()
        await asyncio.wait_for(done.wait(), 30)
    finally:
        for runner in runners:
            await runner.stop()
        await other_engine.dispose()
    async with create_session_factory(engine)() as session:
        row = (await session.execute(select(JobRun))).scalar_one()
    assert row.runs == len(runs)  # every run claimed is a run made, by one runner
    slots = [every * ((when - datetime(1970, 1, 1, tzinfo=UTC)) // every) for _, when in runs[1:]]
    assert len(set(slots)) == len(slots)  # no period ran twice
