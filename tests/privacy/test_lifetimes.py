"""The lifetimes job on SQLite and PostgreSQL: only what is past its lifetime goes (reminders that ended,
idle jobs' rows, expired claims, old saved searches, servers past their grace period), by one process per
run however many share the store."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.background import Background, Job, build_scheduler, every
from bot.clock import FakeClock
from bot.services.privacy import servers
from bot.services.privacy.actions import Enforced, Privacy
from db.engine import create_session_factory
from db.models import ClubSession
from db.models.core import Claim, JobRun
from db.models.reading import ReadingSearchQuery
from db.models.reminders import CANCELLED, FAILED, PENDING, SENT, Reminder
from db.models.sessions import RecordingOptOut, SessionQuestion
from tests.conftest import StoreInfo
from tests.privacy.seed import NOW, seed

Factory = async_sessionmaker[AsyncSession]
GRACE = timedelta(days=30)
G_OLD, G_NEW, G_HERE = 7001, 7002, 7003


def _privacy(engine: AsyncEngine, factory: Factory) -> Privacy:
    """One process's privacy flows on the store."""
    return Privacy(SimpleNamespace(engine=engine, session_factory=factory, clock=FakeClock(NOW)))


def _reminder(key: str, status: str, due_days: float, session_id: int | None = None) -> Reminder:
    due = NOW + timedelta(days=due_days)
    return Reminder(
        guild_id=G_HERE,
        kind="custom",
        channel_id=1,
        message=key,
        due_at=due,
        next_attempt_at=due,
        session_id=session_id,
        status=status,
    )


async def _rows(factory: Factory) -> None:
    async with factory() as session, session.begin():
        later = ClubSession(
            guild_id=G_HERE, title="Moved far", starts_at=NOW + timedelta(days=5), timezone="UTC"
        )
        earlier = ClubSession(
            guild_id=G_HERE, title="Long ago", starts_at=NOW - timedelta(days=35), timezone="UTC"
        )
        session.add_all([later, earlier])
        await session.flush()
        session.add_all(
            [
                _reminder("sent 31 days ago: goes", SENT, -31),
                _reminder("sent 29 days ago", SENT, -29),
                _reminder("failed 40 days ago, its session still to come", FAILED, -40, later.id),
                _reminder("cancelled with its session, 35 days ago: goes", CANCELLED, -35, earlier.id),
                _reminder("pending 40 days late", PENDING, -40),
                Claim(key="crashed", owner="x", expires_at=NOW - timedelta(days=2)),
                Claim(key="just expired", owner="x", expires_at=NOW - timedelta(hours=1)),
                Claim(key="held", owner="x", expires_at=NOW + timedelta(hours=1)),
                JobRun(name="gone.job", next_run_at=NOW - timedelta(days=31), runs=3),
                JobRun(name="this.process.job", next_run_at=NOW - timedelta(days=31), runs=3),
                JobRun(
                    name="running.elsewhere",
                    next_run_at=NOW - timedelta(days=31),
                    lease_owner="y",
                    lease_until=NOW + timedelta(minutes=1),
                    runs=3,
                ),
                JobRun(name="fresh.job", next_run_at=NOW + timedelta(hours=1), runs=3),
                ReadingSearchQuery(guild_id=G_HERE, query="old words", created_at=NOW - timedelta(days=91)),
                ReadingSearchQuery(guild_id=G_HERE, query="newer words", created_at=NOW - timedelta(days=89)),
            ]
        )
        week_ago = ClubSession(  # its opt-outs and questions just past their 7 days (and 12 hours)
            guild_id=G_HERE, title="Last week", starts_at=NOW - timedelta(days=7, hours=13), timezone="UTC"
        )
        yesterday = ClubSession(
            guild_id=G_HERE, title="Yesterday", starts_at=NOW - timedelta(days=1), timezone="UTC"
        )
        session.add_all([week_ago, yesterday])
        await session.flush()
        for club in (week_ago, yesterday, later):
            session.add(RecordingOptOut(session_id=club.id, user_id=5, name=club.title))
            session.add(SessionQuestion(session_id=club.id, user_id=5, named=False, text=club.title))
        for guild_id in (G_OLD, G_NEW):
            await seed(session, guild_id, 1, 2)
        await servers.mark_left(session, G_OLD, NOW - GRACE - timedelta(hours=1))
        await servers.mark_left(session, G_NEW, NOW - GRACE + timedelta(days=1))


async def _left(factory: Factory) -> dict[str, set[str]]:
    async with factory() as session:
        return {
            "reminders": set(
                await session.scalars(select(Reminder.message).where(Reminder.guild_id == G_HERE))
            ),
            "claims": set(await session.scalars(select(Claim.key))),
            "jobs": set(await session.scalars(select(JobRun.name))),
            "searches": set(
                await session.scalars(
                    select(ReadingSearchQuery.query).where(ReadingSearchQuery.guild_id == G_HERE)
                )
            ),
            "servers": {str(g) for g in await servers.known_servers(session)},
            "departed": {str(g) for g in await servers.departed(session)},
            "opt_outs": set(
                await session.scalars(select(RecordingOptOut.name).where(RecordingOptOut.user_id == 5))
            ),
            "questions": set(
                await session.scalars(select(SessionQuestion.text).where(SessionQuestion.user_id == 5))
            ),
        }


async def test_only_what_is_past_its_lifetime_goes(engine: AsyncEngine, session_factory: Factory) -> None:
    await _rows(session_factory)
    privacy = _privacy(engine, session_factory)
    done = await privacy.lifetimes(NOW, grace=GRACE, running={"this.process.job"})
    assert done.expired == {
        "reminders": 2,
        "claims": 1,
        "job_runs": 1,
        "reading_search_queries": 1,
        "recording_opt_outs": 3,  # and the seeded servers' first session's, 12 days ago
        "session_questions": 3,
    }
    assert set(done.servers) == {G_OLD}
    assert await _left(session_factory) == {
        "reminders": {
            "sent 29 days ago",
            "failed 40 days ago, its session still to come",
            "pending 40 days late",
        },
        "claims": {"just expired", "held"},
        "jobs": {"this.process.job", "running.elsewhere", "fresh.job"},
        "searches": {"newer words"},
        "servers": {str(G_NEW), str(G_HERE)},
        "departed": {str(G_NEW)},
        "opt_outs": {"Yesterday", "Moved far"},
        "questions": {"Yesterday", "Moved far"},
    }
    again = await privacy.lifetimes(NOW, grace=GRACE, running={"this.process.job"})
    assert again == Enforced(dict.fromkeys(done.expired, 0), {})


async def test_two_processes_run_it_once(store_info: StoreInfo, engine: AsyncEngine) -> None:
    """Two cores (two processes' worth, each its own engine) on one store and one clock: each slot's run
    is one process's, and what it deletes is deleted once."""
    other_engine = store_info.engine()
    factories = [create_session_factory(engine), create_session_factory(other_engine)]
    processes = [_privacy(engine, factories[0]), _privacy(other_engine, factories[1])]
    await _rows(factories[0])
    clock = FakeClock(NOW)
    runs: list[tuple[int, Enforced]] = []
    cores = [Background(build_scheduler(), factory, clock) for factory in factories]

    def job(index: int) -> Job:
        async def run(now: object) -> None:
            runs.append(
                (
                    index,
                    await processes[index].lifetimes(clock.now(), grace=GRACE, running={"this.process.job"}),
                )
            )

        return Job("privacy.lifetimes", every(timedelta(hours=1)), run)

    try:
        for index, core in enumerate(cores):
            await core.add(job(index))
        for core in cores:
            await core.start()
        assert len(runs) == 1
        assert runs[0][1].expired["reminders"] == 2
        assert set(runs[0][1].servers) == {G_OLD}
        await clock.advance(timedelta(days=2))  # G_NEW's grace ends on the way
        assert len(runs) == 2  # missed slots coalesce into one run
        assert set(runs[1][1].servers) == {G_NEW}
        async with factories[1]() as session:
            row = await session.scalar(select(JobRun).where(JobRun.name == "privacy.lifetimes"))
        assert row is not None
        assert row.runs == 2
        assert (await _left(factories[1]))["servers"] == {str(G_HERE)}
    finally:
        for core in cores:
            await core.stop()
        await other_engine.dispose()
