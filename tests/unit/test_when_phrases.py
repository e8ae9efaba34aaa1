"""The phrases members type for a time, across the changes of the clocks: "in 2 hours" elapses, "in 3 days"
keeps the wall clock, "next thursday 5pm" and "this friday 5pm" are that weekday at that local time, a day
alone is read at the caller's default time or refused naming the day (property tests over zones and dates)."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot import timeutil
from bot.errors import BadInput
from bot.when import parse_when

ZONES = [
    ZoneInfo(name) for name in ("America/Los_Angeles", "Europe/London", "Asia/Kolkata", "Australia/Sydney")
]
# Two years either side of the changes of the clocks, to the minute.
NOWS = st.datetimes(
    min_value=datetime(2026, 1, 1), max_value=datetime(2028, 1, 1), timezones=st.just(UTC)
).map(lambda moment: moment.replace(second=0, microsecond=0))
WEEKDAYS = st.sampled_from(timeutil.WEEKDAYS)
PROPERTY = settings(derandomize=True, database=None, deadline=None, max_examples=300)
LA = ZoneInfo("America/Los_Angeles")
BEFORE_SPRING = datetime(2027, 3, 12, 15, 0, tzinfo=UTC)  # Friday 12 March 2027, 7:00 AM PST


@PROPERTY
@given(now=NOWS, zone=st.sampled_from(ZONES), hours=st.integers(1, 400))
def test_in_hours_is_that_much_time_later(now: datetime, zone: ZoneInfo, hours: int) -> None:
    assert parse_when(f"in {hours} hours", zone, now).utc == now + timedelta(hours=hours)
    assert parse_when(f"{hours} hours from now", zone, now).utc == now + timedelta(hours=hours)


@PROPERTY
@given(now=NOWS, zone=st.sampled_from(ZONES), days=st.integers(1, 60))
def test_in_days_keeps_the_wall_clock(now: datetime, zone: ZoneInfo, days: int) -> None:
    local = now.astimezone(zone)
    parsed = parse_when(f"in {days} days", zone, now)
    assert parsed.local.date() == local.date() + timedelta(days=days)
    expected = timeutil.wall_to_utc(parsed.local.date(), local.time(), zone)  # a skipped hour moves on
    assert parsed.utc == expected


@PROPERTY
@given(now=NOWS, zone=st.sampled_from(ZONES), day=WEEKDAYS, lead=st.sampled_from(["next ", "this ", ""]))
def test_a_weekday_at_5pm_is_that_weekday_at_5pm_local(
    now: datetime, zone: ZoneInfo, day: str, lead: str
) -> None:
    parsed = parse_when(f"{lead}{day} 5pm", zone, now)
    today = now.astimezone(zone).date()
    assert timeutil.WEEKDAYS[parsed.local.weekday()] == day
    assert parsed.local.time() == time(17, 0)
    assert parsed.utc > now
    ahead = (parsed.local.date() - today).days
    assert (1 if lead == "next " else 0) <= ahead <= 7


@PROPERTY
@given(now=NOWS, zone=st.sampled_from(ZONES), day=WEEKDAYS, lead=st.sampled_from(["next ", "this ", ""]))
def test_a_day_alone_is_read_at_the_default_time_or_refused_naming_it(
    now: datetime, zone: ZoneInfo, day: str, lead: str
) -> None:
    parsed = parse_when(f"{lead}{day}", zone, now, default_clock=time(9))
    assert parsed.local.time() == time(9) or parsed.note  # 9:00 AM, or the clocks skip it (said)
    assert timeutil.WEEKDAYS[parsed.local.weekday()] == day
    assert parsed.utc > now
    with pytest.raises(
        BadInput, match=f"is {timeutil.WEEKDAYS[parsed.local.weekday()].title()} .*; add a time"
    ):
        parse_when(f"{lead}{day}", zone, now)


@pytest.mark.parametrize(
    ("text", "local"),
    [
        ("next thursday 5pm", datetime(2027, 3, 18, 17, 0)),  # after the change: 5:00 PM PDT
        ("this friday 5pm", datetime(2027, 3, 12, 17, 0)),
        ("in 2 hours", datetime(2027, 3, 12, 9, 0)),
        ("in 3 days", datetime(2027, 3, 15, 7, 0)),  # 7:00 AM as now, though 71 hours on
        ("in 2 days at 5pm", datetime(2027, 3, 14, 17, 0)),
        ("in 1 day 2 hours", datetime(2027, 3, 13, 9, 0)),
        ("2 days from now", datetime(2027, 3, 14, 7, 0)),
        ("next month 5pm", datetime(2027, 4, 12, 17, 0)),  # dateparser's, read again on our clock
    ],
)
def test_phrases_across_the_march_change(text: str, local: datetime) -> None:
    assert parse_when(text, LA, BEFORE_SPRING).local == local.replace(tzinfo=LA)


def test_a_day_alone() -> None:
    with pytest.raises(BadInput, match="“next thursday” is Thursday 18 March; add a time of day"):
        parse_when("next thursday", LA, BEFORE_SPRING)
    with pytest.raises(BadInput, match="“tomorrow” is Saturday 13 March; add a time of day"):
        parse_when("tomorrow", LA, BEFORE_SPRING)
    nine = parse_when("next thursday", LA, BEFORE_SPRING, default_clock=time(9))
    assert nine.local == datetime(2027, 3, 18, 9, 0, tzinfo=LA)
    assert nine.note == "no time of day given, so 9:00 AM"
    with pytest.raises(BadInput, match="needs minutes or AM/PM"):
        parse_when("thursday 9", LA, BEFORE_SPRING, default_clock=time(9))
    with pytest.raises(BadInput, match="whole days with a time of day"):
        parse_when("in 2 hours at 5pm", LA, BEFORE_SPRING)
