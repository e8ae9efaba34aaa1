"""The calendar file of a series, expanded the way calendar apps expand it (recurring-ical-events), week by
week against what /series show says: one VEVENT with RRULE from DTSTART in the series' zone (with its
VTIMEZONE), EXDATE for the skipped week, RECURRENCE-ID overrides for the moved week and the weeks with their
own presenter or title; one-off sessions as before (SQLite and PostgreSQL)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import icalendar
import recurring_ical_events

from bot.timeutil import DEFAULT_DISPLAY_ZONES, format_club_time
from tests.series.helpers import add_thursdays, configure, from_bot, press, run, week_lines

NOW = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)
BOLD = re.compile(r"^\*\*(.+?)\*\*")


def expand(data: bytes, start: datetime, end: datetime) -> list[icalendar.Event]:
    calendar = icalendar.Calendar.from_ical(data)
    return sorted(recurring_ical_events.of(calendar).between(start, end), key=lambda e: e.decoded("dtstart"))


def shown_weeks(lines: list[str]) -> list[str]:
    """The club time of each week /series show lists as taking place (skipped ones left out)."""
    return [match.group(1) for line in lines if (match := BOLD.match(line))]


async def test_the_calendar_is_one_repeating_event_that_matches_series_show(env) -> None:
    await configure(env)
    sam = env.members[0]
    await add_thursdays(env, signup_url="https://lu.ma/pc")
    await run(env, "series skip", {"series": "1", "date": "2026-12-24", "reason": "Christmas Eve"})
    await run(env, "series move", {"series": "1", "date": "2026-12-17", "when": "8:00am"})
    await run(env, "series open", {"series": "1"})
    board = from_bot(env, env.messages_in(env.announcements))[-1]
    await press(env, board, "series:present:2", sam)  # 10 December
    await run(env, "session edit", {"session": 5, "title": "User models and user simulators"})  # 31 December
    one_off = await run(env, "session add", {"title": "Reading retreat", "when": "2026-12-05 10:00"})
    assert one_off.text.startswith("Added session #9")

    reply = await run(env, "session calendar", member=sam)
    assert reply.text.startswith("8 upcoming sessions.")  # 24 December is skipped
    data = reply.file("paperclub-sessions.ics")
    calendar = icalendar.Calendar.from_ical(data)
    (zone,) = calendar.walk("VTIMEZONE")
    assert zone["TZID"] == "America/Los_Angeles"
    series = [e for e in calendar.walk("VEVENT") if str(e["UID"]).startswith("series-")]
    master = next(e for e in series if "RECURRENCE-ID" not in e)
    text = master.to_ical().decode()
    assert "DTSTART;TZID=America/Los_Angeles:20261203T093000" in text
    assert "RRULE:FREQ=WEEKLY;INTERVAL=1;BYDAY=TH" in text
    assert "EXDATE;TZID=America/Los_Angeles:20261224T093000" in text
    overrides = sorted(str(e.decoded("recurrence-id").date()) for e in series if "RECURRENCE-ID" in e)
    assert overrides == ["2026-12-10", "2026-12-17", "2026-12-31"]
    assert len({str(e["UID"]) for e in series}) == 1

    # every instance of the coming eight weeks is a week /series show lists, at its time, with its title
    lines = week_lines(await run(env, "series show", {"series": "1"}, member=sam))
    instances = [
        e for e in expand(data, NOW, NOW + timedelta(weeks=8)) if str(e["UID"]).startswith("series-")
    ]
    club_times = [
        format_club_time(e.decoded("dtstart").astimezone(UTC), DEFAULT_DISPLAY_ZONES) for e in instances
    ]
    assert [t.replace(" 2027", "") for t in shown_weeks(lines)] == club_times
    assert len(instances) == 7  # eight weeks, one skipped
    by_day = {e.decoded("dtstart").date().isoformat(): e for e in instances}
    assert "2026-12-24" not in by_day
    assert str(by_day["2026-12-17"]["SUMMARY"]) == "Thursday paper club"
    assert by_day["2026-12-17"].decoded("dtstart") == datetime(2026, 12, 17, 16, 0, tzinfo=UTC)
    assert f"Presenter: {sam.display_name}" in str(by_day["2026-12-10"]["DESCRIPTION"])
    assert str(by_day["2026-12-31"]["SUMMARY"]) == "User models and user simulators"
    for line, instance in zip([ln for ln in lines if ln.startswith("**")], instances, strict=True):
        title = str(instance["SUMMARY"])
        assert (f"“{title}”" in line) == (title != "Thursday paper club"), line

    # beyond the horizon the rule carries on at 9:30 AM PT through the clock changes
    spring = expand(data, datetime(2027, 3, 10, tzinfo=UTC), datetime(2027, 3, 20, tzinfo=UTC))
    assert [e.decoded("dtstart").astimezone(UTC) for e in spring if str(e["UID"]).startswith("series-")] == [
        datetime(2027, 3, 11, 17, 30, tzinfo=UTC),  # PST
        datetime(2027, 3, 18, 16, 30, tzinfo=UTC),  # PDT: 4:30 PM in London that week
    ]
    # the one-off session stays a VEVENT of its own
    (retreat,) = [e for e in calendar.walk("VEVENT") if str(e["SUMMARY"]) == "Reading retreat"]
    assert str(retreat["UID"]).startswith("session-")

    # Add to calendar on a week's announcement gives the whole series, the same repeating event
    await run(env, "session announce", {"session": 3})
    announcement = from_bot(env, env.messages_in(env.announcements))[-1]
    reply = await press(env, announcement, "session:ics:3", sam)
    assert reply.text.startswith("This week is part of a series")
    week_file = reply.file("paperclub-session-3.ics")
    week_events = icalendar.Calendar.from_ical(week_file).walk("VEVENT")
    assert {str(e["UID"]) for e in week_events} == {str(master["UID"])}


async def test_an_ended_series_stops_with_until_in_utc(env) -> None:
    await configure(env)
    await add_thursdays(env, every=2)
    await run(env, "series end", {"series": "1", "after": "2027-01-14"})
    reply = await run(env, "session calendar", member=env.member)
    data = reply.file("paperclub-sessions.ics")
    text = data.decode()
    assert "RRULE:FREQ=WEEKLY;UNTIL=20270115T075959Z;INTERVAL=2;BYDAY=TH" in text
    instances = expand(data, NOW, NOW + timedelta(weeks=30))
    assert [e.decoded("dtstart").date().isoformat() for e in instances] == [
        "2026-12-03",
        "2026-12-17",
        "2026-12-31",
        "2027-01-14",
    ]
