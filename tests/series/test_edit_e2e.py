"""/organize series edit moving the weeks ahead (SQLite and PostgreSQL): a new weekday takes each week to that day of
its own week (a skipped week stays skipped, a moved one keeps its time); every other week drops the weeks
between, cancelling their sessions and events; past weeks never change."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.series.helpers import add_thursdays, configure, run, week_lines

EVENT_SCHEDULED, EVENT_CANCELED = 1, 4


def events(env) -> dict[str, int]:
    return {e["scheduled_start_time"][:16]: e["status"] for e in env.scheduled_events()}


async def test_a_new_day_and_every_other_week(env) -> None:
    await configure(env)
    await add_thursdays(env)
    await run(env, "organize series skip", {"series": "1", "date": "2026-12-24", "reason": "Christmas Eve"})
    await run(env, "organize series move", {"series": "1", "date": "2026-12-17", "when": "8:00am"})
    await env.clock.set(datetime(2026, 12, 4, 17, 0, tzinfo=UTC))  # 3 December is past

    reply = await run(env, "organize series edit", {"series": "1", "day": "Tuesday"})
    assert reply.text.startswith("Saved **Thursday paper club**: changed day.")
    lines = week_lines(await run(env, "series show", {"series": "1"}, member=env.member))
    assert lines[0].startswith("**Tuesday 8 December, 9:30 AM PT")
    assert lines[1].startswith(
        "**Thursday 17 December, 8:00 AM PT / 4:00 PM GMT / 9:30 PM IST** (moved from 9:30 AM)"
    )
    assert lines[2] == "~~Tuesday 22 December~~ — **skipped**: Christmas Eve"
    assert lines[3].startswith("**Tuesday 29 December, 9:30 AM PT")
    now = events(env)
    assert now["2026-12-03T17:30"] == 3  # the past week is left as it was: Discord ended its link event
    assert now["2026-12-08T17:30"] == EVENT_SCHEDULED
    assert "2026-12-10T17:30" not in now
    assert now["2026-12-17T16:00"] == EVENT_SCHEDULED

    reply = await run(env, "organize series edit", {"series": "1", "every": 2})
    assert (
        "Tuesday 29 December 2026 is no longer a week of the series; its session is cancelled." in reply.text
    )
    assert (
        "The week of Tuesday 15 December 2026 was moved to Thursday 17 December 2026, so it stays as a "
        "session of its own." in reply.text
    )
    lines = week_lines(await run(env, "series show", {"series": "1"}, member=env.member))
    assert lines[0].startswith("**Tuesday 8 December, 9:30 AM PT")
    assert lines[1] == "~~Tuesday 22 December~~ — **skipped**: Christmas Eve"
    assert lines[2].startswith("**Tuesday 5 January 2027, 9:30 AM PT")
    assert lines[3].startswith("**Tuesday 19 January 2027, 9:30 AM PT")
    now = events(env)
    assert now["2026-12-29T17:30"] == EVENT_CANCELED
    assert now["2026-12-17T16:00"] == EVENT_SCHEDULED  # the moved week goes ahead on its own
