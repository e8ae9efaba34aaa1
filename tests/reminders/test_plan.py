"""Automatic session reminders planned from the store: added, moved, cancelled, never doubled."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy.exc import IntegrityError

from bot.services.reminders import plan
from db.models import ClubSession, SessionSubscription
from db.models.reminders import SESSION, Reminder
from tests.reminders.helpers import GUILD, NOW, configure, make_reminder, make_session, rows

STARTS = NOW + timedelta(days=5)


async def replan(factory, club, now=NOW, days=3):
    async with factory() as s, s.begin():
        return await plan.plan_session(s, GUILD, club, now=now, presenter_dm_days=days)


def slots(found):
    return sorted((r.plan_key, r.due_at, r.user_id) for r in found if r.status == "pending")


async def test_a_new_session_gets_offsets_subscribers_and_presenter_reminders(session_factory) -> None:
    club = await make_session(session_factory, STARTS, presenter_id=77, subscribers={42: 60, 43: 15})
    result = await replan(session_factory, club)
    assert result.added == 6
    assert slots(await rows(session_factory)) == sorted(
        [
            ("session:1440", STARTS - timedelta(hours=24), None),
            ("session:60", STARTS - timedelta(hours=1), None),
            ("personal:42", STARTS - timedelta(minutes=60), 42),
            ("personal:43", STARTS - timedelta(minutes=15), 43),
            ("presenter", STARTS - timedelta(days=3), 77),
            ("recap", STARTS + timedelta(hours=2), 77),
        ]
    )
    assert await replan(session_factory, club) == plan.PlanResult()  # planning is idempotent
    assert len(await rows(session_factory)) == 6


async def test_presenter_dm_off_and_past_slots_skipped(session_factory) -> None:
    club = await make_session(session_factory, NOW + timedelta(hours=5), presenter_id=77)
    await replan(session_factory, club, days=0)
    assert [key for key, _, _ in slots(await rows(session_factory))] == ["recap", "session:60"]


async def test_moving_a_session_moves_its_reminders(session_factory) -> None:
    club = await make_session(session_factory, STARTS, subscribers={42: 60})
    await replan(session_factory, club)
    before = {r.plan_key: r.id for r in await rows(session_factory)}
    later = STARTS + timedelta(days=7)
    async with session_factory() as s, s.begin():
        (await s.get(ClubSession, club)).starts_at = later
    result = await replan(session_factory, club)
    assert result.moved == 3
    assert result.added == 0
    after = await rows(session_factory)
    assert {r.plan_key: r.id for r in after} == before  # same rows, new times
    assert slots(after) == sorted(
        [
            ("session:1440", later - timedelta(hours=24), None),
            ("session:60", later - timedelta(hours=1), None),
            ("personal:42", later - timedelta(hours=1), 42),
        ]
    )


async def test_moving_a_session_close_cancels_reminders_now_past(session_factory) -> None:
    club = await make_session(session_factory, STARTS)
    await replan(session_factory, club)
    soon = NOW + timedelta(hours=3)
    async with session_factory() as s, s.begin():
        (await s.get(ClubSession, club)).starts_at = soon
    result = await replan(session_factory, club)
    assert (result.moved, result.cancelled) == (1, 1)
    assert slots(await rows(session_factory)) == [("session:60", soon - timedelta(hours=1), None)]


async def test_cancelling_a_session_cancels_every_pending_reminder(session_factory) -> None:
    club = await make_session(session_factory, STARTS, presenter_id=77)
    await replan(session_factory, club)
    custom = await make_reminder(
        session_factory, STARTS - timedelta(hours=3), session_id=club, offset_minutes=180
    )
    async with session_factory() as s, s.begin():
        (await s.get(ClubSession, club)).status = "cancelled"
    result = await replan(session_factory, club)
    assert result.cancelled == 5
    assert {r.status for r in await rows(session_factory)} == {"cancelled"}
    assert (await rows(session_factory, id=custom))[0].last_error == "Its session was cancelled."


async def test_changing_the_offsets_replans(session_factory) -> None:
    club = await make_session(session_factory, STARTS)
    await replan(session_factory, club)
    await configure(session_factory, reminder_offsets="2d, 30m")
    result = await replan(session_factory, club)
    assert (result.added, result.cancelled) == (2, 2)
    assert [key for key, _, _ in slots(await rows(session_factory))] == ["session:2880", "session:30"]


async def test_sent_and_organizer_cancelled_slots_are_not_planned_again(session_factory) -> None:
    club = await make_session(session_factory, STARTS)
    await replan(session_factory, club)
    first, second = await rows(session_factory)
    async with session_factory() as s, s.begin():
        (await s.get(Reminder, first.id)).status = "sent"
        row = await s.get(Reminder, second.id)
        row.status, row.cancelled_by = "cancelled", 9
    assert await replan(session_factory, club) == plan.PlanResult()
    assert len(await rows(session_factory)) == 2


async def test_unsubscribing_cancels_the_dm(session_factory) -> None:
    club = await make_session(session_factory, STARTS, subscribers={42: 60})
    await replan(session_factory, club)
    async with session_factory() as s, s.begin():
        await s.delete(await s.get(SessionSubscription, (club, 42)))
    assert (await replan(session_factory, club)).cancelled == 1


async def test_custom_reminders_tied_to_a_session_follow_it(session_factory) -> None:
    club = await make_session(session_factory, STARTS)
    custom = await make_reminder(
        session_factory, STARTS - timedelta(hours=2), session_id=club, offset_minutes=120
    )
    later = STARTS + timedelta(days=1)
    async with session_factory() as s, s.begin():
        (await s.get(ClubSession, club)).starts_at = later
    await replan(session_factory, club)
    assert (await rows(session_factory, id=custom))[0].due_at == later - timedelta(hours=2)


async def test_one_live_reminder_per_slot_even_for_racing_planners(session_factory) -> None:
    club = await make_session(session_factory, STARTS)
    await replan(session_factory, club)
    with pytest.raises(IntegrityError):
        await make_reminder(
            session_factory, STARTS - timedelta(hours=1), kind=SESSION, session_id=club, plan_key="session:60"
        )


async def test_upcoming_sessions_for_start_up(session_factory) -> None:
    upcoming = await make_session(session_factory, STARTS)
    await make_session(session_factory, NOW - timedelta(days=2), title="Long over")
    await make_session(session_factory, STARTS, title="Cancelled", status="cancelled")
    async with session_factory() as s:
        assert await plan.upcoming_session_ids(s, NOW) == [(GUILD, upcoming)]


async def test_members_notes_for_the_presenter_add_the_day_and_start_dms(session_factory) -> None:
    from db.models.sessions import SessionQuestion

    club = await make_session(session_factory, STARTS, presenter_id=77)
    await replan(session_factory, club)
    assert "presenter:start" not in {r.plan_key for r in await rows(session_factory)}  # nothing to carry yet
    async with session_factory() as s, s.begin():
        s.add(SessionQuestion(session_id=club, user_id=42, named=False, text="Why?"))
    result = await replan(session_factory, club)
    assert result.added == 2
    keys = {key: due for key, due, _ in slots(await rows(session_factory))}
    assert keys["presenter:questions"] == STARTS - timedelta(hours=24)
    assert keys["presenter:start"] == STARTS
    await replan(session_factory, club, days=1)  # the presenter's DM is the day's: no second one then
    keys = {key for key, _, _ in slots(await rows(session_factory))}
    assert "presenter:questions" not in keys
    assert "presenter:start" in keys
