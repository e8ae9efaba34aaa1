"""/organize reminder add, cancel, list and me at the service level, on the store (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.errors import BadInput, Conflict, NotFound
from bot.services.reminders import requested as svc
from db.models import SessionSubscription
from tests.reminders.helpers import CHANNEL, GUILD, NOW, make_reminder, make_session, rows

ZONE = "America/Los_Angeles"


async def add(factory, when="tomorrow 9am", message="Read the paper", **kw):
    now, max_pending = kw.pop("now", NOW), kw.pop("max_pending", 500)
    asked = svc.CustomReminder(
        guild_id=kw.pop("guild_id", GUILD),
        channel_id=kw.pop("channel_id", CHANNEL),
        message=message,
        when=when,
        zone=kw.pop("zone", ZONE),
        created_by=kw.pop("created_by", 9),
        **kw,
    )
    async with factory() as s, s.begin():
        return await svc.add_custom(s, asked, now=now, max_pending=max_pending)


async def test_add_reads_the_time_in_the_guild_zone(session_factory) -> None:
    info, note = await add(session_factory, when="tomorrow 9am", repeat="weekly")
    assert info.due_at == datetime(2026, 12, 1, 17, 0, tzinfo=UTC)
    assert note is None
    assert info.number == 1  # the server's first organizer's reminder
    assert info.repeat == "weekly"
    assert info.status == "pending"
    stored = (await rows(session_factory))[0]
    assert stored.repeat_timezone == ZONE
    assert stored.channel_id == CHANNEL
    assert stored.created_by == 9
    monthly, _ = await add(session_factory, when="2027-01-31 09:00", repeat="monthly")
    assert (await rows(session_factory, id=monthly.row_id))[0].repeat_anchor_day == 31
    relative, _ = await add(session_factory, when="in 2 hours")
    assert relative.due_at == NOW + timedelta(hours=2)


async def test_add_tied_to_a_session_counts_back_from_its_start(session_factory) -> None:
    starts = NOW + timedelta(days=3)
    club = await make_session(session_factory, starts)
    info, _ = await add(session_factory, when="2h", session_id=club)
    assert info.due_at == starts - timedelta(hours=2)
    assert info.session_title
    assert (await rows(session_factory))[0].offset_minutes == 120
    with pytest.raises(BadInput, match="already past"):
        await add(session_factory, when="4d", session_id=club)
    with pytest.raises(BadInput, match="cannot repeat"):
        await add(session_factory, when="1h", session_id=club, repeat="daily")


@pytest.mark.parametrize(
    ("when", "message", "error"),
    [
        ("yesterday 9am", "x", "in the past"),
        ("2026-11-01 09:00", "x", "in the past"),
        ("in 1 minute ago", "x", "I couldn't read"),
        ("whenever", "x", "I couldn't read"),
        ("2029-01-01 09:00", "x", "too far ahead"),
        ("tomorrow 9am", "   ", "empty"),
        ("tomorrow 9am", "x" * 1801, "1,801 characters"),
        ("tomorrow 9am", "x", None),
    ],
)
async def test_bad_input_is_refused_and_nothing_is_stored(session_factory, when, message, error) -> None:
    if error is None:
        await add(session_factory, when=when, message="x" * 1800)
        assert len(await rows(session_factory)) == 1
        return
    with pytest.raises(BadInput, match=error):
        await add(session_factory, when=when, message=message)
    assert await rows(session_factory) == []


async def test_the_pending_cap_refuses_more(session_factory) -> None:
    for _ in range(3):
        await add(session_factory, max_pending=3)
    with pytest.raises(Conflict, match="3 pending reminders"):
        await add(session_factory, max_pending=3)
    await add(session_factory, max_pending=3, guild_id=GUILD + 1)  # another guild has its own count
    assert len(await rows(session_factory, guild_id=GUILD)) == 3


async def test_sessions_that_cannot_be_reminded_of(session_factory) -> None:
    cancelled = await make_session(session_factory, NOW + timedelta(days=1), status="cancelled")
    past = await make_session(session_factory, NOW - timedelta(hours=1), title="Past")
    elsewhere = await make_session(session_factory, NOW + timedelta(days=1), guild_id=GUILD + 1)
    with pytest.raises(Conflict, match="cancelled"):
        await add(session_factory, when="1h", session_id=cancelled)
    with pytest.raises(Conflict, match="already started"):
        await add(session_factory, when="1h", session_id=past)
    for missing in (elsewhere, 9999):
        with pytest.raises(NotFound):
            await add(session_factory, when="1h", session_id=missing)
    assert await rows(session_factory) == []


async def test_cancel_by_number_including_a_repeat_series(session_factory) -> None:
    info, _ = await add(session_factory)
    series_root = await make_reminder(
        session_factory, NOW - timedelta(days=7), status="sent", repeat="weekly", number=7
    )
    current = await make_reminder(
        session_factory, NOW + timedelta(hours=5), repeat="weekly", series_id=series_root, number=7
    )
    async with session_factory() as s, s.begin():
        cancelled = await svc.cancel_reminder(s, GUILD, 7, by_user=9, now=NOW)
    assert cancelled.row_id == current
    assert cancelled.number == 7
    assert cancelled.status == "cancelled"
    async with session_factory() as s, s.begin():
        with pytest.raises(NotFound):
            await svc.cancel_reminder(s, GUILD, 7, by_user=9, now=NOW)
        with pytest.raises(NotFound):
            await svc.cancel_reminder(s, GUILD + 1, info.number or 0, by_user=9, now=NOW)
    stored = (await rows(session_factory, id=current))[0]
    assert stored.cancelled_by == 9
    assert stored.last_error == "Cancelled by an organizer."


async def test_list_pages_pending_then_recent_problems(session_factory) -> None:
    for hours in range(1, 6):
        await make_reminder(session_factory, NOW + timedelta(hours=hours), message=f"pending {hours}")
    await make_reminder(session_factory, NOW - timedelta(days=1), status="missed", last_error="offline")
    await make_reminder(session_factory, NOW - timedelta(days=2), status="failed", last_error="DMs closed")
    await make_reminder(session_factory, NOW - timedelta(days=9), status="failed", last_error="too old")
    await make_reminder(session_factory, NOW - timedelta(days=1), status="sent")
    async with session_factory() as s:
        first = await svc.list_reminders(s, GUILD, now=NOW, page=0, per_page=4)
        second = await svc.list_reminders(s, GUILD, now=NOW, page=1, per_page=4)
        past_the_end = await svc.list_reminders(s, GUILD, now=NOW, page=9, per_page=4)
    assert (first.total_pending, first.total_problems, first.page, first.pages) == (5, 2, 0, 2)
    assert past_the_end == second
    assert second.page == 1
    assert [i.message for i in first.pending] == [f"pending {h}" for h in range(1, 5)]
    assert first.problems == []
    assert [i.message for i in second.pending] == ["pending 5"]
    assert [i.last_error for i in second.problems] == ["offline", "DMs closed"]


async def test_cancel_choices_match_number_or_text(session_factory) -> None:
    one, _ = await add(session_factory, message="Read TMax before Thursday")
    await add(session_factory, message="Vote on the next paper")
    async with session_factory() as s:
        by_text = await svc.cancel_choices(s, GUILD, current="tmax", zone=ZONE)
        by_number = await svc.cancel_choices(s, GUILD, current=f"#{one.number}", zone=ZONE)
        everything = await svc.cancel_choices(s, GUILD, current="", zone=ZONE)
    assert [v for _, v in by_text] == [one.number] == [v for _, v in by_number]
    assert by_text[0][0].startswith(f"#{one.number} · Tue 1 Dec 09:00 · Read TMax")
    assert len(everything) == 2
    assert all(len(name) <= 100 for name, _ in everything)


async def test_autocomplete_caps_at_25(session_factory) -> None:
    for i in range(30):
        await make_reminder(session_factory, NOW + timedelta(hours=i + 1), message="y" * 300, number=i + 1)
    async with session_factory() as s:
        choices = await svc.cancel_choices(s, GUILD, current="", zone=ZONE)
    assert len(choices) == 25
    assert all(len(name) <= 100 for name, _ in choices)


async def test_remind_me_toggles_and_moves(session_factory) -> None:
    starts = NOW + timedelta(days=2)
    club = await make_session(session_factory, starts)

    async def toggle(before=None, user=42):
        async with session_factory() as s, s.begin():
            return await svc.toggle_personal(
                s,
                guild_id=GUILD,
                session_id=club,
                user_id=user,
                before=before,
                now=NOW,
                max_pending=500,
                presenter_dm_days=3,
            )

    on = await toggle()
    assert on.subscribed
    assert on.due_at == starts - timedelta(hours=1)
    personal = await rows(session_factory, plan_key="personal:42")
    assert [(r.status, r.due_at, r.user_id) for r in personal] == [
        ("pending", starts - timedelta(hours=1), 42)
    ]
    moved = await toggle(before=timedelta(minutes=30))
    assert moved.subscribed
    assert moved.changed_offset
    assert (await rows(session_factory, plan_key="personal:42"))[0].due_at == starts - timedelta(minutes=30)
    off = await toggle()
    assert not off.subscribed
    assert {r.status for r in await rows(session_factory, plan_key="personal:42")} == {"cancelled"}
    async with session_factory() as s:
        assert await s.get(SessionSubscription, (club, 42)) is None
    with pytest.raises(BadInput, match="already past"):
        await toggle(before=timedelta(days=3))
    with pytest.raises(BadInput, match="at most"):
        await toggle(before=timedelta(days=31))


async def test_organizers_reminders_are_numbered_apart_from_automatic_ones(session_factory) -> None:
    for offset in (24, 1):  # a session's automatic reminders come first in the table
        await make_reminder(session_factory, NOW + timedelta(hours=offset), kind="session", message=None)
    first, _ = await add(session_factory, message="Bring questions")
    second, _ = await add(session_factory, message="Vote on the next paper")
    assert (first.number, second.number) == (1, 2)
    async with session_factory() as s:
        mine = await svc.list_reminders(s, GUILD, now=NOW, page=0, per_page=8)
        everything = await svc.list_reminders(s, GUILD, now=NOW, page=0, per_page=8, automatic=True)
        choices = await svc.cancel_choices(s, GUILD, current="", zone=ZONE)
    assert [i.number for i in mine.pending] == [1, 2]
    assert (mine.total_pending, mine.hidden) == (2, 2)
    assert sorted(i.number or 0 for i in everything.pending) == [0, 0, 1, 2]
    assert (everything.total_pending, everything.hidden) == (4, 0)
    assert sorted(v for _, v in choices) == [1, 2]  # automatic ones are not cancelled by number
    async with session_factory() as s, s.begin():
        await svc.cancel_reminder(s, GUILD, 2, by_user=9, now=NOW)
    third, _ = await add(session_factory, message="Another")
    assert third.number == 3  # a number is never taken again while its reminder is kept
