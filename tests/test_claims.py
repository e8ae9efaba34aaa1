"""bot/claims.py on SQLite and PostgreSQL: a keyed claim held by one owner until released or expired, many
claimers at once (one wins), an expired claim taken over, and due rows claimed once by two claimers."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from sqlalchemy import select, text

from bot import claims
from db.engine import create_session_factory
from db.models.core import Claim, JobRun

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
LEASE = timedelta(minutes=2)


async def test_a_claim_is_held_by_its_owner_until_released(session_factory) -> None:
    async with session_factory() as session, session.begin():
        assert await claims.claim(session, "thing", "a", NOW, LEASE)
        assert not await claims.claim(session, "thing", "b", NOW, LEASE)
        assert not await claims.claim(session, "thing", "a", NOW, LEASE)  # not twice, even by its owner
        assert await claims.claim(session, "other", "b", NOW, LEASE)  # another key: free
        await claims.release(session, "thing", "b")  # not b's: kept
        assert await claims.held_until(session, "thing") == NOW + LEASE
        await claims.release(session, "thing", "a")
        assert await claims.held_until(session, "thing") is None
        assert await claims.claim(session, "thing", "b", NOW, LEASE)


async def test_an_expired_claim_is_taken_over(session_factory) -> None:
    async with session_factory() as session, session.begin():
        assert await claims.claim(session, "thing", "dead", NOW, LEASE)
    async with session_factory() as session, session.begin():
        assert not await claims.claim(session, "thing", "b", NOW + LEASE - timedelta(seconds=1), LEASE)
        assert await claims.claim(session, "thing", "b", NOW + LEASE, LEASE)  # its holder died
        await claims.release(session, "thing", "dead")  # the dead holder's late release: not its claim now
    async with session_factory() as session:
        row = (await session.execute(select(Claim))).scalar_one()
    assert (row.owner, row.expires_at) == ("b", NOW + 2 * LEASE)


async def test_of_many_claimers_at_once_one_wins(store_info, session_factory) -> None:
    """Five processes (each its own engine) claim a free key, then an expired one, at the same moment."""
    engines = [store_info.engine() for _ in range(5)]
    factories = [create_session_factory(e) for e in engines]

    async def attempt(factory, owner: str, now: datetime) -> bool:  # type: ignore[no-untyped-def]
        async with factory() as session, session.begin():
            return await claims.claim(session, "thing", owner, now, LEASE)

    try:
        for now in (NOW, NOW + LEASE):  # free, then its holder's lease ran out
            won = await asyncio.gather(*(attempt(f, f"p{i}", now) for i, f in enumerate(factories)))
            assert sum(won) == 1, won
            async with session_factory() as session:
                owner = (await session.execute(select(Claim.owner))).scalar_one()
            assert owner == f"p{won.index(True)}"
    finally:
        for each in engines:
            await each.dispose()


async def test_a_second_claimer_waits_for_the_first_and_finds_it_held(store_info, session_factory) -> None:
    """B claims while A's claim is not committed yet: B's answer waits for A's commit (PostgreSQL: B waits on
    A's row; SQLite: on A's write lock), so both never hold it."""
    other = store_info.engine()
    try:
        async with session_factory() as a, a.begin():
            assert await claims.claim(a, "thing", "a", NOW, LEASE)
            b = asyncio.create_task(_claim_apart(create_session_factory(other), "b"))
            if store_info.backend == "postgresql":
                await _until_waiting_on_a_lock(session_factory)
                assert not b.done()
        assert not await b
    finally:
        await other.dispose()


async def _claim_apart(factory, owner: str) -> bool:  # type: ignore[no-untyped-def]
    async with factory() as session, session.begin():
        return await claims.claim(session, "thing", owner, NOW, LEASE)


async def _until_waiting_on_a_lock(factory) -> None:  # type: ignore[no-untyped-def]
    """Until a connection to this store waits on a lock (read afresh: a transaction sees one snapshot)."""
    waiting = text(
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
    )
    async with asyncio.timeout(10):
        while True:
            async with factory() as session:
                if (await session.execute(waiting)).scalar_one():
                    return
            await asyncio.sleep(0.01)


async def test_due_rows_are_claimed_once_by_two_claimers(store_info, session_factory) -> None:
    """A claims two of three due rows and holds them uncommitted; B claims meanwhile: on PostgreSQL it skips
    A's rows (no waiting) and takes the third; on SQLite it runs after A. No row is claimed twice."""
    async with session_factory() as session, session.begin():
        session.add_all(
            JobRun(name=f"row{i}", next_run_at=NOW - timedelta(minutes=i), runs=0) for i in range(3)
        )
    due = [JobRun.lease_owner.is_(None), JobRun.next_run_at <= NOW]

    async def take(session, owner: str) -> set[str]:  # type: ignore[no-untyped-def]
        rows = await claims.claim_due(
            session,
            JobRun,
            due=due,
            values={"lease_owner": owner, "lease_until": NOW + LEASE},
            returning=[JobRun.name],
            order_by=[JobRun.next_run_at],
            limit=2,
        )
        return {row.name for row in rows}

    engine = store_info.engine()
    other = create_session_factory(engine)
    try:
        async with session_factory() as a, a.begin():
            took_a = await take(a, "a")
            if store_info.backend == "postgresql":
                async with other() as b, b.begin():
                    took_b = await asyncio.wait_for(take(b, "b"), timeout=10)
        if store_info.backend == "sqlite":
            async with other() as b, b.begin():
                took_b = await take(b, "b")
    finally:
        await engine.dispose()
    assert took_a == {"row2", "row1"}  # the most overdue first
    assert took_b == {"row0"}
    async with session_factory() as session:
        owners = dict((await session.execute(select(JobRun.name, JobRun.lease_owner))).tuples().all())
    assert owners == {"row0": "b", "row1": "a", "row2": "a"}
