"""Bursts: batch claims by two runners at once (each row claimed once, no runner waiting on the other),
batch records, a crash between a batch's sends and their record, and the pace under Discord's global limit."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from datetime import timedelta

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.services.reminders import delivery, queue
from bot.services.reminders.runner import ReminderRunner
from cogs.reminders import _transport as transport_module
from db.engine import create_session_factory
from tests.reminders.helpers import (
    NOW,
    ManualClock,
    RecordingTransport,
    configure,
    make_reminder,
    rows,
    running,
)


async def many(factory: async_sessionmaker[AsyncSession], count: int, *, channels: int) -> list[int]:
    return [
        await make_reminder(factory, NOW - timedelta(seconds=i % 5), channel_id=7000 + i % channels)
        for i in range(count)
    ]


async def claim(
    factory: async_sessionmaker[AsyncSession], token: str, limit: int = delivery.BATCH
) -> set[int]:
    async with factory() as s, s.begin():
        _, outgoing = await delivery.claim(s, token=token, now=NOW, late_origin=NOW, limit=limit)
    return {o.reminder_id for o in outgoing}


async def test_two_claims_at_once_split_the_rows_without_waiting(session_factory, store_info) -> None:
    """Runner A's claim holds its rows (not committed yet) while runner B claims: on PostgreSQL B skips A's
    locked rows at once (FOR UPDATE SKIP LOCKED) and takes the others; after A commits, no row is claimed
    twice. (SQLite has one writer: B's claim runs after A's transaction.)"""
    await configure(session_factory)
    ids = await many(session_factory, 150, channels=150)  # oldest first: the claims take them in due order
    by_due = sorted(ids, key=lambda i: (-(ids.index(i) % 5), i))
    other = store_info.engine()
    try:
        other_factory = create_session_factory(other)
        async with session_factory() as a, a.begin():
            _, outgoing = await delivery.claim(a, token="a", now=NOW, late_origin=NOW, limit=100)
            took_a = {o.reminder_id for o in outgoing}
            if store_info.backend == "postgresql":  # B while A still holds its rows: no waiting
                took_b = await asyncio.wait_for(claim(other_factory, "b"), timeout=10)
        if store_info.backend == "sqlite":
            took_b = await claim(other_factory, "b")
        assert took_a == set(by_due[:100])
        assert took_b == set(by_due[100:])
        assert await claim(other_factory, "c") == set()  # nothing left to claim
    finally:
        await other.dispose()
    by_token = Counter(r.claim_token for r in await rows(session_factory))
    assert by_token == {"a": 100, "b": 50}


class Meeting:
    """Opens once two transports have tried to send (so neither runner can drain the burst alone)."""

    def __init__(self) -> None:
        self.arrived: set[int] = set()
        self.open = asyncio.Event()

    async def attend(self, who: object) -> None:
        self.arrived.add(id(who))
        if len(self.arrived) == 2:
            self.open.set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.open.wait(), 5)


class HeldTransport(RecordingTransport):
    """Every send waits until both runners' transports are sending: each runner can send only its first
    batch before the other must take part."""

    def __init__(self, meeting: Meeting, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.meeting = meeting

    async def send(self, outgoing):  # type: ignore[no-untyped-def]
        await self.meeting.attend(self)
        return await super().send(outgoing)


async def test_two_runners_share_a_burst_and_send_each_reminder_once(session_factory, store_info) -> None:
    """Two processes' runners (separate engines) over one store, 300 reminders due across 300 channels:
    both claim in batches at the same moment, every reminder goes out once."""
    await configure(session_factory)
    ids = await many(session_factory, 300, channels=300)
    other = store_info.engine()
    try:
        clock = ManualClock(NOW)
        meeting = Meeting()
        one, two = HeldTransport(meeting, delay=0.001), HeldTransport(meeting, delay=0.001)
        first = ReminderRunner(session_factory=session_factory, clock=clock, transport=one, batch=40)
        second = ReminderRunner(
            session_factory=create_session_factory(other), clock=clock, transport=two, batch=40
        )
        sent = await asyncio.gather(first.run_due(), second.run_due())
        counts = Counter(o.reminder_id for o in one.sent + two.sent)
        assert sorted(counts) == ids
        assert set(counts.values()) == {1}
        assert one.sent
        assert two.sent
        assert sum(sent) == 300
        assert {r.status for r in await rows(session_factory)} == {"sent"}
    finally:
        await other.dispose()


async def test_a_burst_is_claimed_and_recorded_in_a_few_transactions(session_factory, monkeypatch) -> None:
    await configure(session_factory)
    await many(session_factory, 120, channels=120)
    claims: list[int] = []
    records: list[int] = []
    real_claim, real_record = delivery.claim, delivery.record

    async def counting_claim(session, **kwargs):
        claimed = await real_claim(session, **kwargs)
        claims.append(claimed[0])
        return claimed

    async def counting_record(session, outcomes, now):
        records.append(len(outcomes))
        return await real_record(session, outcomes, now)

    monkeypatch.setattr(delivery, "claim", counting_claim)
    monkeypatch.setattr(delivery, "record", counting_record)
    clock, transport = FakeClock(NOW), RecordingTransport()
    runner = ReminderRunner(session_factory=session_factory, clock=clock, transport=transport, batch=50)
    assert await runner.run_due() == 120
    assert claims == [50, 50, 20, 0]  # a batch at a time, then nothing more is due
    assert records == [50, 50, 20]
    assert len(transport.sent) == 120
    assert {r.status for r in await rows(session_factory)} == {"sent"}


async def test_a_crash_before_a_batch_is_recorded_resends_it_once_with_its_nonces(
    session_factory, monkeypatch
) -> None:
    """The sends went out, then recording them failed (the process died): the rows stay claimed; another
    runner, once their leases ran out, sends them again with the same nonces (Discord returns the first
    messages) and records them."""
    await configure(session_factory)
    ids = await many(session_factory, 20, channels=20)
    real_finish = delivery.finish_sent

    async def crash(*args, **kwargs):
        raise ConnectionError("the process died before recording its sends")

    monkeypatch.setattr(delivery, "finish_sent", crash)
    dying = RecordingTransport()
    first = ReminderRunner(session_factory=session_factory, clock=FakeClock(NOW), transport=dying)
    with pytest.raises(ConnectionError):
        await first.run_due()
    assert sorted(o.reminder_id for o in dying.sent) == ids
    assert {r.status for r in await rows(session_factory)} == {"sending"}
    monkeypatch.setattr(delivery, "finish_sent", real_finish)

    later = FakeClock(NOW + timedelta(seconds=30))
    again = RecordingTransport()
    second = ReminderRunner(session_factory=session_factory, clock=later, transport=again)
    async with running(second, session_factory, later):
        assert again.sent == []  # the claims are still live
        await later.advance(queue.SENDING_LEASE)
    assert sorted(o.reminder_id for o in again.sent) == ids
    assert {o.nonce for o in again.sent} == {o.nonce for o in dying.sent}
    assert {r.status for r in await rows(session_factory)} == {"sent"}


async def test_a_send_whose_claim_was_taken_over_is_not_recorded(session_factory) -> None:
    ids = await many(session_factory, 3, channels=3)
    async with session_factory() as s, s.begin():
        _, sends = await delivery.claim(s, token="mine", now=NOW, late_origin=NOW)
    assert {o.reminder_id for o in sends} == set(ids)
    async with session_factory() as s, s.begin():  # the lease ran out and another runner re-claimed one
        await queue.set_if(s, ids[0], [], claim_token="theirs")
    async with session_factory() as s, s.begin():
        recorded = await delivery.finish_sent(
            s, [delivery.Outcome(o, NOW, 900 + o.reminder_id) for o in sends], now=NOW
        )
    assert recorded == set(ids[1:])
    found = {r.id: r for r in await rows(session_factory)}
    assert found[ids[0]].status == "sending"
    assert [(found[i].status, found[i].sent_message_id) for i in ids[1:]] == [
        ("sent", 900 + i) for i in ids[1:]
    ]


# ---------------------------------------------------------------- the pace under the global limit


class SteppedClock:
    """Monotonic seconds moved only by the pace's own sleeps."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


async def test_the_pace_lets_at_most_limit_starts_in_any_window() -> None:
    clock = SteppedClock()
    pace = transport_module.Pace(5, 1.0, clock=clock, sleep=clock.sleep)
    starts = []
    for _ in range(12):
        await pace.acquire()
        starts.append(clock.now)
    assert starts == [0.0] * 5 + [1.0] * 5 + [2.0] * 2
    assert all(sum(1 for t in starts if start <= t < start + 1.0) <= 5 for start in starts)


def test_the_global_pace_is_discord_s_limit_with_a_margin() -> None:
    pace = transport_module.global_pace(50)
    assert pace is not None
    assert (pace.limit, pace.period) == (50, pytest.approx(1.1))
    assert transport_module.global_pace(0) is None
    with pytest.raises(ValueError, match="at least 1 request"):
        transport_module.Pace(0, 1.0)


# ---------------------------------------------------------------- end to end: a burst under the global limit


async def test_a_burst_under_the_global_limit_paces_itself_and_gets_no_429(env) -> None:
    """The stand-in emulates a global limit of 5 requests per half second; the bot's transport paces its
    sends under the limit it knows, so a burst of 12 reminders due together goes out without a 429."""
    from tests.reminders.helpers import cog, run

    channels = [await env.standin.create_channel(env.guild, f"burst-{i}") for i in range(12)]
    for i, channel in enumerate(channels):
        await run(
            env,
            "organize reminder add",
            {"when": "in 5 minutes", "message": f"Burst {i}", "channel": channel},
        )
    env.standin.global_limit = (5, 0.5)
    cog(env).reminders.runner.transport.pace = transport_module.Pace(5, 0.5 + transport_module.MARGIN)
    await env.clock.advance(timedelta(minutes=5))
    posts = env.standin.requests_to("POST", r"/channels/\d+/messages$")
    assert sorted(r.json["content"] for r in posts if r.status == 200) == sorted(
        f"⏰ **Reminder**\nBurst {i}" for i in range(12)
    )
    assert [r.status for r in env.standin.requests if r.status == 429] == []
    times = sorted(r.time for r in posts)
    assert times[5] - times[0] >= 0.5 - 0.02  # the sixth waited for room under the limit
