"""The runner over the store (SQLite and PostgreSQL) with a recording transport, as the job of a background
core driven by a FakeClock: once, retries, grace, repeats, order per destination."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import UTC, datetime, timedelta

from bot.clock import FakeClock
from bot.services.reminders import delivery, queue
from bot.services.reminders.delivery import SendError
from bot.services.reminders.runner import ReminderRunner
from db.engine import create_session_factory
from db.models.reminders import PERSONAL, SESSION
from tests.reminders.helpers import (
    ANNOUNCEMENTS,
    NOW,
    PING_ROLE,
    ManualClock,
    MeetingTransport,
    RecordingTransport,
    configure,
    make_reminder,
    make_session,
    row,
    rows,
    running,
)


def runner_for(
    factory, clock, transport, grace_minutes: int = 60, batch: int = delivery.BATCH
) -> ReminderRunner:
    return ReminderRunner(
        session_factory=factory,
        clock=clock,
        transport=transport,
        grace=timedelta(minutes=grace_minutes),
        batch=batch,
    )


async def claim(factory, row_id: int, token: str, at) -> None:
    """A claim of one due row, as a runner's batch takes it (the row must be at its destination's head)."""
    async with factory() as s, s.begin():
        claimed, _ = await delivery.claim(s, token=token, now=at, late_origin=at)
    assert claimed == 1, "the row was not the only one due"


async def test_due_reminders_go_out_once_at_their_time(session_factory) -> None:
    await configure(session_factory)
    soon = await make_reminder(session_factory, NOW + timedelta(minutes=5), message="First")
    later = await make_reminder(session_factory, NOW + timedelta(hours=2), message="Second")
    clock, transport = FakeClock(NOW), RecordingTransport()
    runner = runner_for(session_factory, clock, transport)
    async with running(runner, session_factory, clock):
        assert transport.sent == []
        await clock.advance(timedelta(minutes=5))
        assert [o.reminder_id for o in transport.sent] == [soon]
        sent = transport.sent[0]
        assert sent.channel_id == 5001
        assert sent.user_id is None
        assert sent.ping_role_id is None
        assert sent.content == "⏰ **Reminder**\nFirst"
        assert sent.nonce == f"pc-rem-{soon}-0"
        assert len(sent.nonce) <= 25
        await clock.advance(timedelta(minutes=1))
        assert await runner.run_due() == 0
        assert len(transport.sent) == 1
    first = await row(session_factory, soon)
    assert first.status == "sent"
    assert first.sent_at == NOW + timedelta(minutes=5)
    assert first.attempts == 1
    assert first.sent_message_id == 900_001
    assert not first.delayed
    assert (await row(session_factory, later)).status == "pending"


async def test_one_destination_s_reminders_go_out_in_due_order(session_factory) -> None:
    """Three reminders for one channel due together (created in the other order) go out one after another,
    earliest first, while another channel's goes out beside them."""
    ids = [
        await make_reminder(session_factory, NOW - timedelta(seconds=s), message=f"{s}") for s in (1, 3, 2)
    ]
    elsewhere = await make_reminder(session_factory, NOW - timedelta(seconds=9), channel_id=5009)
    clock, transport = FakeClock(NOW), RecordingTransport(delay=0.001)
    async with running(runner_for(session_factory, clock, transport), session_factory, clock):
        pass
    in_channel = [o.reminder_id for o in transport.sent if o.channel_id == 5001]
    assert in_channel == [ids[1], ids[2], ids[0]]  # due 3 s, 2 s, 1 s ago
    assert transport.sent[0].reminder_id in (elsewhere, ids[1])
    assert len(transport.sent) == 4


async def test_two_runners_over_one_store_send_each_reminder_once(session_factory, store_info) -> None:
    """Two processes' runners (separate engines, so separate connections) run passes at the same moment.
    Each claims 10 rows a batch, and every reminder has its own channel: while the first runner's first send
    waits for the second's, the second always finds rows left to claim, however late it starts."""
    await configure(session_factory)
    ids = [
        await make_reminder(session_factory, NOW - timedelta(seconds=i % 7), channel_id=6000 + i)
        for i in range(120)
    ]
    other_engine = store_info.engine()
    try:
        other_factory = create_session_factory(other_engine)
        clock = ManualClock(NOW)
        meeting = asyncio.Barrier(2)
        one, two = MeetingTransport(meeting, delay=0.001), MeetingTransport(meeting, delay=0.001)
        first = runner_for(session_factory, clock, one, batch=10)
        second = runner_for(other_factory, clock, two, batch=10)
        sent = await asyncio.gather(first.run_due(), second.run_due(), first.run_due(), second.run_due())
        counts = Counter(o.reminder_id for o in one.sent + two.sent)
        assert sorted(counts) == ids
        assert set(counts.values()) == {1}
        assert sum(sent) == 120
        assert one.sent
        assert two.sent
        assert {r.status for r in await rows(session_factory)} == {"sent"}
    finally:
        await other_engine.dispose()


async def test_failed_send_is_retried_with_backoff_and_the_same_nonce(session_factory) -> None:
    due = NOW + timedelta(minutes=1)
    reminder = await make_reminder(session_factory, due)
    clock = FakeClock(NOW)
    transport = RecordingTransport(failures=[SendError("Discord answered 500.", retryable=True)])
    async with running(runner_for(session_factory, clock, transport), session_factory, clock):
        await clock.advance(timedelta(minutes=1))
        after_failure = await row(session_factory, reminder)
        assert after_failure.status == "pending"
        assert after_failure.attempts == 1
        assert after_failure.next_attempt_at == due + delivery.BACKOFF_BASE
        assert after_failure.last_error == "Attempt 1 failed: Discord answered 500."
        await clock.advance(timedelta(seconds=29))
        assert transport.sent == []
        await clock.advance(timedelta(seconds=1))
        assert len(transport.sent) == 1
    assert [o.nonce for o in transport.attempts] == [f"pc-rem-{reminder}-0"] * 2
    done = await row(session_factory, reminder)
    assert done.status == "sent"
    assert done.attempts == 2
    assert done.last_error is None
    assert not done.delayed  # a retry is not downtime


async def test_gives_up_after_the_last_attempt(session_factory) -> None:
    reminder = await make_reminder(session_factory, NOW)
    clock = FakeClock(NOW)
    failures = [SendError("Discord answered 503.", retryable=True) for _ in range(delivery.MAX_ATTEMPTS)]
    transport = RecordingTransport(failures=failures)
    async with running(runner_for(session_factory, clock, transport), session_factory, clock):
        for attempt in range(1, delivery.MAX_ATTEMPTS):
            await clock.advance(delivery.backoff(attempt))
        final = await row(session_factory, reminder)
        assert len(transport.attempts) == delivery.MAX_ATTEMPTS
        assert transport.sent == []
        assert final.status == "failed"
        assert final.last_error == "Gave up after 5 attempts: Discord answered 503."
        await clock.advance(timedelta(hours=1))
        assert len(transport.attempts) == delivery.MAX_ATTEMPTS


async def test_closed_dms_fail_without_retry(session_factory) -> None:
    club = await make_session(session_factory, NOW + timedelta(hours=1))
    reminder = await make_reminder(
        session_factory, NOW, kind=PERSONAL, channel_id=None, user_id=42, session_id=club, message=None
    )
    clock = FakeClock(NOW)
    closed = SendError("The member does not accept DMs from the bot (Discord error 50007).", retryable=False)
    transport = RecordingTransport(failures=[closed])
    async with running(runner_for(session_factory, clock, transport), session_factory, clock):
        await clock.advance(timedelta(hours=1))
    final = await row(session_factory, reminder)
    assert len(transport.attempts) == 1
    assert transport.attempts[0].user_id == 42
    assert final.status == "failed"
    assert "50007" in (final.last_error or "")
    assert final.attempts == 1


async def test_downtime_within_grace_sends_late_marked_delayed(session_factory) -> None:
    reminder = await make_reminder(session_factory, NOW - timedelta(minutes=30))
    clock, transport = FakeClock(NOW), RecordingTransport()
    # the bot comes back 30 minutes after the reminder fell due
    async with running(runner_for(session_factory, clock, transport, 60), session_factory, clock):
        assert len(transport.sent) == 1
    assert transport.sent[0].content.startswith("⏰ **Reminder** (delayed)")
    final = await row(session_factory, reminder)
    assert final.status == "sent"
    assert final.delayed


async def test_downtime_beyond_grace_is_missed_and_a_repeat_goes_on(session_factory) -> None:
    one_off = await make_reminder(session_factory, NOW - timedelta(minutes=61))
    weekly = await make_reminder(
        session_factory,
        NOW - timedelta(hours=3),
        repeat="weekly",
        repeat_timezone="America/Los_Angeles",
    )
    clock, transport = FakeClock(NOW), RecordingTransport()
    async with running(runner_for(session_factory, clock, transport, 60), session_factory, clock):
        assert transport.sent == []
    missed = await row(session_factory, one_off)
    assert missed.status == "missed"
    assert "offline" in (missed.last_error or "")
    assert (await row(session_factory, weekly)).status == "missed"
    following = await rows(session_factory, series_id=weekly)
    assert len(following) == 1
    assert following[0].status == "pending"
    assert following[0].due_at == NOW - timedelta(hours=3) + timedelta(days=7)
    assert following[0].occurrence == 1


async def test_a_clock_jump_while_running_is_not_downtime(session_factory) -> None:
    await make_reminder(session_factory, NOW + timedelta(hours=1))
    clock, transport = FakeClock(NOW), RecordingTransport()
    async with running(runner_for(session_factory, clock, transport, 0), session_factory, clock):
        await clock.advance(timedelta(hours=23))
    assert len(transport.sent) == 1
    assert "(delayed)" not in transport.sent[0].content


async def test_weekly_repeat_keeps_local_time_across_the_march_change(session_factory) -> None:
    # Thursday 5 March 2026, 9:30 AM PST (17:30 UTC); US clocks spring forward on Sunday 8 March.
    first_due = datetime(2026, 3, 5, 17, 30, tzinfo=UTC)
    weekly = await make_reminder(
        session_factory, first_due, repeat="weekly", repeat_timezone="America/Los_Angeles"
    )
    clock, transport = FakeClock(first_due - timedelta(minutes=1)), RecordingTransport()
    async with running(runner_for(session_factory, clock, transport), session_factory, clock):
        await clock.advance(timedelta(minutes=1))
        following = (await rows(session_factory, series_id=weekly))[0]
        assert following.due_at == datetime(2026, 3, 12, 16, 30, tzinfo=UTC)  # 9:30 AM PDT
        await clock.set(following.due_at)
        assert len(transport.sent) == 2
    assert transport.sent[1].nonce == f"pc-rem-{weekly}-1"
    third = (await rows(session_factory, series_id=weekly, status="pending"))[0]
    assert third.due_at == datetime(2026, 3, 19, 16, 30, tzinfo=UTC)
    assert third.occurrence == 2


async def test_a_send_cut_off_by_a_crash_is_resent_with_its_nonce_or_marked_failed(session_factory) -> None:
    recent = await make_reminder(session_factory, NOW - timedelta(minutes=2))
    old = await make_reminder(session_factory, NOW - timedelta(minutes=30), channel_id=5009)
    await claim(session_factory, old, "dead-a", NOW - timedelta(minutes=30))  # a process claimed both,
    await claim(session_factory, recent, "dead-b", NOW - timedelta(minutes=2))  # then died
    clock, transport = FakeClock(NOW), RecordingTransport()
    async with running(runner_for(session_factory, clock, transport), session_factory, clock):
        pass
    assert [o.reminder_id for o in transport.sent] == [recent]
    assert transport.sent[0].nonce == f"pc-rem-{recent}-0"
    assert (await row(session_factory, recent)).status == "sent"
    lost = await row(session_factory, old)
    assert lost.status == "failed"
    assert "stopped while sending" in (lost.last_error or "")


async def test_a_fresh_claim_by_another_runner_is_left_alone(session_factory) -> None:
    reminder = await make_reminder(session_factory, NOW)
    await claim(session_factory, reminder, "alive", NOW)
    clock, transport = FakeClock(NOW + timedelta(seconds=30)), RecordingTransport()
    async with running(runner_for(session_factory, clock, transport), session_factory, clock):
        assert transport.sent == []
        assert (await row(session_factory, reminder)).status == "sending"
        await clock.advance(queue.SENDING_LEASE)  # its claimer never recorded it: taken back, sent
        assert [o.reminder_id for o in transport.sent] == [reminder]


async def test_session_reminder_needs_an_announcements_channel(session_factory) -> None:
    club = await make_session(session_factory, NOW + timedelta(hours=1))
    reminder = await make_reminder(
        session_factory,
        NOW,
        kind=SESSION,
        channel_id=None,
        session_id=club,
        plan_key="session:60",
        message=None,
    )
    clock, transport = FakeClock(NOW), RecordingTransport()
    runner = runner_for(session_factory, clock, transport)
    async with running(runner, session_factory, clock):
        final = await row(session_factory, reminder)
        assert transport.sent == []
        assert final.status == "failed"
        assert "/setup announcements" in (final.last_error or "")
        await configure(session_factory)
        again = await make_reminder(
            session_factory,
            NOW + timedelta(minutes=1),
            kind=SESSION,
            channel_id=None,
            session_id=club,
            plan_key="session:59",
            offset_minutes=59,
            message=None,
        )
        await runner.rearm()
        await clock.advance(timedelta(minutes=1))
    assert [o.reminder_id for o in transport.sent] == [again]
    assert transport.sent[0].channel_id == ANNOUNCEMENTS
    assert transport.sent[0].ping_role_id == PING_ROLE
    assert transport.sent[0].content.startswith(f"<@&{PING_ROLE}> ⏰ **Building data recipes")


async def test_reminders_of_a_cancelled_session_are_not_sent(session_factory) -> None:
    club = await make_session(session_factory, NOW + timedelta(hours=1), status="cancelled")
    reminder = await make_reminder(session_factory, NOW, session_id=club, offset_minutes=60)
    clock, transport = FakeClock(NOW), RecordingTransport()
    assert await runner_for(session_factory, clock, transport).run_due() == 0
    assert transport.sent == []
    assert (await row(session_factory, reminder)).status == "cancelled"


async def test_monthly_repeat_keeps_its_day_clamped_to_short_months(session_factory) -> None:
    first = datetime(2027, 1, 31, 17, 0, tzinfo=UTC)  # 9:00 AM PST
    assert queue.next_due(first, "monthly", "America/Los_Angeles", 31, first) == datetime(
        2027, 2, 28, 17, 0, tzinfo=UTC
    )
    assert queue.next_due(
        datetime(2027, 2, 28, 17, 0, tzinfo=UTC), "monthly", "America/Los_Angeles", 31, first
    ) == datetime(2027, 3, 31, 16, 0, tzinfo=UTC)  # 9:00 AM PDT
    # Long downtime: the next occurrence is the first one after now, not one in the past.
    assert queue.next_due(
        first, "daily", "UTC", None, first + timedelta(days=3, hours=1)
    ) == first + timedelta(days=4)
