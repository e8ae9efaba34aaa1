"""A repeating reminder whose next occurrence would fall past the calendar's end ends its series (no
OverflowError in the runner's transaction); one inside the calendar goes on."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.services.reminders import queue
from tests.reminders.helpers import make_reminder, rows


async def test_a_series_at_the_calendars_end_stops_there(session_factory) -> None:
    last = datetime(9999, 12, 31, 12, 0, tzinfo=UTC)
    reminder = await make_reminder(
        session_factory, last, repeat="daily", repeat_timezone="Pacific/Kiritimati"
    )
    async with session_factory() as s, s.begin():
        assert await queue.plan_next_occurrence(s, reminder, last) is None
    assert await rows(session_factory, series_id=reminder) == []


async def test_a_series_inside_the_calendar_goes_on(session_factory) -> None:
    due = datetime(2126, 12, 31, 12, 0, tzinfo=UTC)
    reminder = await make_reminder(session_factory, due, repeat="monthly", repeat_timezone="Etc/GMT+12")
    async with session_factory() as s, s.begin():
        following = await queue.plan_next_occurrence(s, reminder, due)
    assert following is not None
    assert following.due_at == datetime(2127, 1, 31, 12, 0, tzinfo=UTC)
