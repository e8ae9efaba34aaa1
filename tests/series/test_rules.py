"""The series' rule and checks, without a store or Discord: wall-clock times across daylight saving (a year of
Thursdays in the club's three zones), the dates a rule meets on, and each refusal's words."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

import pytest

from bot.errors import BadInput
from bot.services.series import rules
from bot.services.series.rules import Rule
from bot.timeutil import DEFAULT_DISPLAY_ZONES, MONTHS, format_club_time

NOW = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)  # Monday 30 November 2026, 9:00 AM PT
THURSDAYS = Rule(
    weekday=3, start=time(9, 30), zone="America/Los_Angeles", interval=1, anchor=date(2027, 1, 7)
)

# What UK and India readers see of 9:30 AM PT, by week of 2027, from the clocks' published change dates
# (not from the zone database the code uses): the US springs forward on 14 March and falls back on
# 7 November; the UK on 28 March and 31 October; India keeps UTC+5:30.
YEAR_2027 = [
    (date(2027, 1, 7), date(2027, 3, 11), "5:30 PM GMT", "11:00 PM IST"),  # both on standard time
    (date(2027, 3, 18), date(2027, 3, 25), "4:30 PM GMT", "10:00 PM IST"),  # the US has changed, the UK not
    (date(2027, 4, 1), date(2027, 10, 28), "5:30 PM BST", "10:00 PM IST"),  # both on summer time
    (date(2027, 11, 4), date(2027, 11, 4), "4:30 PM GMT", "10:00 PM IST"),  # the UK changed back first
    (date(2027, 11, 11), date(2027, 12, 30), "5:30 PM GMT", "11:00 PM IST"),  # both on standard time again
]


def _expected(day: date) -> str:
    for first, last, uk, india in YEAR_2027:
        if first <= day <= last:
            return f"Thursday {day.day} {MONTHS[day.month - 1].title()}, 9:30 AM PT / {uk} / {india}"
    raise AssertionError(f"{day} is not in the table")


def test_a_year_of_thursdays_stays_at_half_past_nine_in_los_angeles() -> None:
    days = list(THURSDAYS.dates(date(2027, 1, 1), date(2027, 12, 31)))
    assert len(days) == 52
    assert days[0] == date(2027, 1, 7)
    assert days[-1] == date(2027, 12, 30)
    table = [(day, format_club_time(THURSDAYS.start_on(day), DEFAULT_DISPLAY_ZONES)) for day in days]
    assert table == [(day, _expected(day)) for day in days]
    # the four kinds of week the club page's readers see, each present
    shown = {line.split(" / ", 1)[1] for _, line in table}
    assert shown == {
        "5:30 PM GMT / 11:00 PM IST",
        "4:30 PM GMT / 10:00 PM IST",
        "5:30 PM BST / 10:00 PM IST",
    }
    assert [day for day, line in table if "4:30 PM GMT" in line] == [
        date(2027, 3, 18),
        date(2027, 3, 25),
        date(2027, 11, 4),
    ]


def test_every_other_week_and_until() -> None:
    rule = Rule(3, time(9, 30), "America/Los_Angeles", 2, date(2026, 11, 5), until=date(2026, 12, 31))
    assert list(rule.dates(date(2026, 11, 1), date(2027, 2, 1))) == [
        date(2026, 11, 5),
        date(2026, 11, 19),
        date(2026, 12, 3),
        date(2026, 12, 17),
        date(2026, 12, 31),
    ]
    assert list(rule.dates(date(2026, 11, 20), date(2026, 12, 4))) == [date(2026, 12, 3)]
    assert rule.meets_on(date(2026, 12, 3))
    assert not rule.meets_on(date(2026, 12, 10))
    assert rule.next_date(NOW) == date(2026, 12, 3)
    assert rule.horizon(NOW, 8) == [date(2026, 12, 3), date(2026, 12, 17), date(2026, 12, 31)]
    assert rule.next_date(datetime(2027, 1, 1, tzinfo=UTC)) is None  # ended


def test_a_date_the_series_does_not_meet_on_is_named() -> None:
    assert THURSDAYS.mismatch(date(2027, 1, 14)) is None
    assert THURSDAYS.mismatch(date(2027, 12, 3)) == "This series meets on Thursdays; 3 December is a Friday."
    fortnightly = Rule(3, time(9, 30), "America/Los_Angeles", 2, date(2026, 12, 3))
    assert fortnightly.mismatch(date(2026, 12, 10)) == (
        "This series meets every other Thursday; 10 December is not one of its weeks (3 December and "
        "17 December are)."
    )
    assert "before that" in (THURSDAYS.mismatch(date(2026, 12, 31)) or "")


@pytest.mark.parametrize(
    ("typed", "weekday"), [("Thursday", 3), ("thu", 3), ("Thursdays", 3), ("  MONDAY ", 0), ("weds", 2)]
)
def test_weekdays(typed: str, weekday: int) -> None:
    assert rules.parse_weekday(typed) == weekday


@pytest.mark.parametrize("typed", ["Funday", "Thorsday", "", "1", "thursday 9:30"])
def test_a_day_that_is_not_a_weekday_is_refused(typed: str) -> None:
    with pytest.raises(BadInput, match="is not a day of the week"):
        rules.parse_weekday(typed)


@pytest.mark.parametrize(
    ("typed", "day"),
    [
        ("2026-12-24", date(2026, 12, 24)),
        ("24 Dec 2026", date(2026, 12, 24)),
        ("24 December", date(2026, 12, 24)),
        ("Dec 24", date(2026, 12, 24)),
        ("Thursday 24 December", date(2026, 12, 24)),
        ("5 November", date(2027, 11, 5)),  # the next one
        ("today", date(2026, 11, 30)),
    ],
)
def test_dates(typed: str, day: date) -> None:
    assert rules.parse_date(typed, THURSDAYS.tz, NOW) == day


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("Friday 24 December 2026", "24 December 2026 is a Thursday, not a Friday."),
        ("12/24", "could be day/month or month/day"),
        ("the 24th", "couldn't read"),
        ("30 February 2027", "February 2027 has no day 30."),
    ],
)
def test_bad_dates(typed: str, message: str) -> None:
    with pytest.raises(BadInput, match=message):
        rules.parse_date(typed, THURSDAYS.tz, NOW)


def test_every_is_one_or_two_weeks() -> None:
    assert rules.check_every(1) == 1
    assert rules.check_every(2) == 2
    with pytest.raises(
        BadInput, match=r"every week \(every: 1\) or every other week \(every: 2\), not every 3"
    ):
        rules.check_every(3)


def test_a_time_the_clocks_skip_is_refused_naming_the_date() -> None:
    with pytest.raises(
        BadInput, match=r"2:30 AM on Sunday 14 March 2027 does not exist in America/Los_Angeles"
    ):
        rules.new_series(
            name="Night owls", day="Sunday", time="2:30am", now=NOW, default_zone="America/Los_Angeles"
        )
    # the same in a zone without daylight saving is fine
    draft = rules.new_series(
        name="Night owls", day="Sunday", time="2:30am", now=NOW, default_zone="Asia/Kolkata"
    )
    assert draft.rule.anchor == date(2026, 12, 6)


def test_a_new_series_is_checked_once() -> None:
    draft = rules.new_series(
        name="  Thursday   paper club ", day="thu", time="9:30 AM", now=NOW, default_zone="PT"
    )
    assert draft.name == "Thursday paper club"
    assert rules.name_key(draft.name) == "thursday paper club"
    assert draft.rule == Rule(3, time(9, 30), "America/Los_Angeles", 1, date(2026, 12, 3))
    with pytest.raises(BadInput, match=r"until \(Thursday 26 November 2026\) is before the first week"):
        rules.new_series(
            name="x", day="Thursday", time="9:30am", until="2026-11-26", now=NOW, default_zone="PT"
        )
    with pytest.raises(BadInput, match=r"This series meets on Thursdays; 4 December \(first\) is a Friday."):
        rules.new_series(
            name="x", day="Thursday", time="9:30am", first="2026-12-04", now=NOW, default_zone="PT"
        )
    with pytest.raises(BadInput, match="in the past"):
        rules.new_series(
            name="x", day="Thursday", time="9:30am", first="2026-11-26", now=NOW, default_zone="PT"
        )
    today_later = rules.new_series(name="x", day="Monday", time="5pm", now=NOW, default_zone="PT")
    assert today_later.rule.anchor == date(2026, 11, 30)  # today, not begun yet
    today_over = rules.new_series(name="x", day="Monday", time="8am", now=NOW, default_zone="PT")
    assert today_over.rule.anchor == date(2026, 12, 7)


def test_an_edit_starts_the_new_rule_from_the_next_week() -> None:
    fortnightly = Rule(3, time(9, 30), "America/Los_Angeles", 2, date(2026, 11, 19))
    moved = rules.edit_rule(fortnightly, 60, now=NOW, day="Tuesday")
    assert moved.rule.anchor == date(2026, 12, 1)  # the week of 3 December, on its Tuesday
    assert moved.changed == {"day"}
    assert moved.changed & rules.MOVES
    later = rules.edit_rule(fortnightly, 60, now=NOW, day="Monday", time="8am")
    assert later.rule.anchor == date(2026, 12, 14)  # 30 November has begun: the next cycle's Monday
    longer = rules.edit_rule(fortnightly, 60, now=NOW, duration=90, until="2027-03-25")
    assert longer.rule.anchor == fortnightly.anchor
    assert not longer.changed & rules.MOVES
    assert longer.changed == {"duration", "until"}
    with pytest.raises(BadInput, match="has passed"):
        rules.edit_rule(fortnightly, 60, now=NOW, until="2026-11-01")


def test_a_moved_week_reads_a_time_alone_as_that_day() -> None:
    start = rules.read_move("8:00am", date(2026, 12, 10), THURSDAYS, NOW)
    assert start == datetime(2026, 12, 10, 16, 0, tzinfo=UTC)
    start = rules.read_move("2026-12-09 17:00", date(2026, 12, 10), THURSDAYS, NOW)
    assert start == datetime(2026, 12, 10, 1, 0, tzinfo=UTC)
    with pytest.raises(BadInput, match="in the past"):
        rules.read_move("8:00am", date(2026, 11, 26), THURSDAYS, NOW)
    # a day alone: that day at the series' time (9:30 AM PT)
    start = rules.read_move("next friday", date(2026, 12, 10), THURSDAYS, NOW)
    assert start == datetime(2026, 12, 4, 17, 30, tzinfo=UTC)


def test_the_horizon_and_the_event_budget() -> None:
    assert rules.weeks_held(8, 1) == 9
    assert rules.weeks_held(8, 2) == 5
    assert rules.weeks_held(rules.MAX_HORIZON_WEEKS, 1) * 3 <= rules.EVENT_BUDGET <= 100 // 2
    with pytest.raises(BadInput):
        rules.check_horizon(13)
    with pytest.raises(BadInput):
        rules.check_nudge_days(29)
    assert THURSDAYS.horizon(datetime(2027, 1, 7, 17, 29, tzinfo=UTC), 1) == [
        date(2027, 1, 7),
        date(2027, 1, 14),
    ]
    assert THURSDAYS.horizon(datetime(2027, 1, 7, 17, 30, tzinfo=UTC), 1) == [date(2027, 1, 14)]
    assert THURSDAYS.start_on(date(2027, 1, 7)) - THURSDAYS.start_on(date(2027, 7, 1)) != timedelta(0)
