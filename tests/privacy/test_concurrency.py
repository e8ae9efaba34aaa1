"""A member's deletion beside the writers of the same rows, on SQLite and PostgreSQL: an Upvote press mid-way
(the vote writer's transaction holding the suggestions) and the reminder runner (a row claimed mid-send, a
claim while the deletion holds the rows). No deadlock, no partial deletion, nothing sent afterwards."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.errors import Conflict
from bot.services.privacy.actions import SENDING_NOW, erase_member, overview
from bot.services.privacy.rows import Who
from bot.services.reminders import delivery
from bot.services.suggestions.votes import Press, toggle_votes
from db.engine import create_session_factory
from db.models.reminders import PENDING, Reminder
from db.models.series import Series
from db.models.suggestions import Suggestion
from tests.conftest import StoreInfo
from tests.privacy.seed import NOW, seed

Factory = async_sessionmaker[AsyncSession]
GUILD, RITA, SAM = 8101, 601, 602


async def _waiting_on_a_lock(engine: AsyncEngine, count: int) -> bool:
    """PostgreSQL: whether ``count`` connections of this database wait for a lock."""
    async with engine.connect() as conn:
        waiting = await conn.scalar(
            text(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
            )
        )
    return int(waiting or 0) >= count


async def _until(check: Any, timeout: float = 10.0) -> None:
    """Until ``check()`` holds (a lock wait has no event to wait on: looked at every 10 ms)."""
    async with asyncio.timeout(timeout):
        while not await check():  # noqa: ASYNC110  no event tells of a lock wait
            await asyncio.sleep(0.01)


async def test_an_upvote_press_mid_deletion_waits_for_it_rather_than_deadlock(
    store_info: StoreInfo, engine: AsyncEngine, session_factory: Factory
) -> None:
    """PostgreSQL (SQLite has one writer at a time). The deletion is held up part-way (another transaction
    holds the series row its organizer records clear); meanwhile rita presses Upvote on a suggestion she
    voted for and reviewed. Were the deletion to take her votes before the suggestions, the press (which
    takes the suggestion, then her vote) and the deletion (her vote taken, the suggestion next) would wait
    for each other; it takes her suggestions first, in id order as the vote writer does, so the press
    waits, then finds her vote gone and adds a new one."""
    if store_info.backend != "postgresql":
        pytest.skip("PostgreSQL's row locks (SQLite takes one writer at a time: nothing interleaves)")
    async with session_factory() as session, session.begin():
        await seed(session, GUILD, RITA, SAM)
        reviewed = await session.scalar(select(Suggestion.id).where(Suggestion.reviewed_by == RITA))
        series = await session.scalar(select(Series.id).where(Series.created_by == RITA))
    engines = [store_info.engine() for _ in range(2)]
    holding, pressing = (create_session_factory(e) for e in engines)
    try:
        async with holding() as hold, hold.begin():
            await hold.execute(select(Series.id).where(Series.id == series).with_for_update())

            async def delete() -> Any:
                async with session_factory() as session, session.begin():
                    return await erase_member(session, Who(RITA, frozenset({GUILD})), NOW)

            async def press() -> Any:
                async with pressing() as session, session.begin():
                    return await toggle_votes(session, [Press(GUILD, reviewed, RITA, NOW)])

            deleting = asyncio.create_task(delete())
            await _until(lambda: _waiting_on_a_lock(engine, 1))  # the deletion, at the series row
            pressed = asyncio.create_task(press())
            await _until(lambda: _waiting_on_a_lock(engine, 2))  # and the press, at the suggestion
        done = await asyncio.wait_for(deleting, 30)
        (vote,) = await asyncio.wait_for(pressed, 30)
    finally:
        for each in engines:
            await each.dispose()
    assert done.erased["votes"].count > 0
    assert vote.added  # type: ignore[union-attr]  # a new vote, pressed after the deletion
    assert vote.count >= 1  # type: ignore[union-attr]
    async with session_factory() as session:
        left = await overview(session, Who(RITA, frozenset({GUILD})))
    assert [(kind.key, n) for kind, n in left.in_server(GUILD)] == [("votes", 1)]


async def test_presses_and_a_delete_at_once_leave_no_partial_deletion(session_factory: Factory) -> None:
    async with session_factory() as session, session.begin():
        seeded = await seed(session, GUILD, RITA, SAM, suggestions=8)

    async def press(suggestion_id: int, user: int) -> None:
        async with session_factory() as session, session.begin():
            await toggle_votes(session, [Press(GUILD, suggestion_id, user, NOW)])

    async def delete() -> None:
        async with session_factory() as session, session.begin():
            await erase_member(session, Who(RITA, frozenset({GUILD})), NOW)

    work = [press(s, user) for s in sorted(seeded.voted) for user in (RITA, SAM)]
    await asyncio.gather(*work[: len(work) // 2], delete(), *work[len(work) // 2 :])
    async with session_factory() as session:
        left = await overview(session, Who(RITA, frozenset({GUILD})))
    # whatever is left of hers is votes pressed after the deletion: every other kind is gone
    assert {kind.key for kind, _ in left.in_server(GUILD)} <= {"votes"}


async def test_a_reminder_being_sent_refuses_the_delete_and_a_delete_holds_off_the_runner(
    store_info: StoreInfo, engine: AsyncEngine, session_factory: Factory
) -> None:
    async with session_factory() as session, session.begin():
        await seed(session, GUILD, RITA, SAM)
        due = (
            await session.scalars(
                select(Reminder).where(Reminder.user_id == RITA, Reminder.status == PENDING)
            )
        ).all()
        for row in due:
            row.next_attempt_at = NOW  # due now
    async with session_factory() as session, session.begin():
        claimed, batch = await delivery.claim(session, token="t1", now=NOW, late_origin=NOW)
    assert any(outgoing.user_id == RITA for outgoing in batch)  # hers is mid-send now
    async with session_factory() as session:
        before = await overview(session, Who(RITA))
    with pytest.raises(Conflict) as refused:
        async with session_factory() as session, session.begin():
            await erase_member(session, Who(RITA), NOW)
    assert refused.value.user_message == SENDING_NOW
    async with session_factory() as session:
        assert await overview(session, Who(RITA)) == before  # nothing deleted, not even in part
    # the send ends; another of hers falls due: the deletion holds her rows, the runner's claim skips them
    async with session_factory() as session, session.begin():
        await delivery.record(
            session,
            [delivery.Outcome(o, NOW, 1) for o in batch],
            NOW,
        )
    if store_info.backend != "postgresql":
        return  # SQLite: one writer at a time; the claim would wait for the deletion's commit
    other_engine = store_info.engine()
    try:
        async with session_factory() as deleting, deleting.begin():
            await erase_member(deleting, Who(RITA), NOW)
            async with create_session_factory(other_engine)() as claiming, claiming.begin():
                _, claimed_now = await delivery.claim(claiming, token="t2", now=NOW, late_origin=NOW)
            assert all(o.user_id != RITA for o in claimed_now)
    finally:
        await other_engine.dispose()
    async with session_factory() as session:
        assert await session.scalar(select(func.count()).where(Reminder.user_id == RITA)) == 0
