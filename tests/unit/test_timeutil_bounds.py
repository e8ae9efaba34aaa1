"""bot.timeutil under hostile input: dates and durations out of range are refused with BadInput (never
OverflowError), and parse_when / parse_offset only ever give an aware datetime / a timedelta or BadInput."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot import when
from bot.errors import BadInput
from bot.timeutil import (
    MAX_OFFSET,
    date_window,
    next_occurrence,
    parse_offset,
    parse_offsets,
)
from bot.when import parse_when

LA = ZoneInfo("America/Los_Angeles")
NOW = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)
WINDOW = "Dates must be between 1 January 1926 and 31 December 2126."
# Zones at the ends of the offsets (UTC+14, UTC-12) put a local date's UTC a day away.
ZONES = [ZoneInfo(name) for name in ("UTC", "America/Los_Angeles", "Pacific/Kiritimati", "Etc/GMT+12")]

FUZZ = settings(
    derandomize=True,  # the same examples every run: CI stays deterministic
    database=None,  # nothing written to .hypothesis/
    deadline=None,  # dateparser's first call imports a lot
    max_examples=400,
    suppress_health_check=[HealthCheck.too_slow],
)


def test_the_window_is_a_century_either_side_of_now() -> None:
    assert date_window(NOW) == (date(1926, 1, 1), date(2126, 12, 31))
    # Near datetime's own ends the window stops short of them (UTC of a local date may be a day off).
    assert date_window(datetime(9990, 1, 1, tzinfo=UTC))[1] == date(9998, 12, 31)
    assert date_window(datetime(50, 1, 1, tzinfo=UTC))[0] == date(1, 1, 1)


@pytest.mark.parametrize(
    "text",
    [
        # Calendar dates our own parser reads.
        "9999-12-31 23:00",
        "9999-12-31 23:59 IST",
        "9999-12-31t23:00z",
        "0001-01-01 00:30",
        "0001-01-01 00:00 PT",
        "0000-01-01 10:00",
        "31 Dec 9999 11:59pm PT",
        "Dec 31 9999 at 11:30pm",
        "1 Jan 0001 00:00",
        "the 31st of December 9999 at 5pm",
        "Friday 31 December 9999 5pm",
        "1 Jan 2200 9am",
        "1 Jan 1900 9am",
        # Relative forms: a million weeks, minutes past any calendar, a number past 64 bits.
        "in 1000000 weeks",
        "in 999999 w",
        "in 99999999 minutes",
        "in 18446744073709551617 days",
        "in 5300 weeks",
        # dateparser's fallback.
        "9999 5pm",
        "5pm 0001",
        "5pm 10 december 1900",
        "5pm 10 december 2200",
        "friday 5pm 9999",
    ],
)
def test_dates_out_of_range_are_refused_with_the_window(text: str) -> None:
    with pytest.raises(BadInput, match=WINDOW):
        parse_when(text, LA, NOW)


def test_dateparser_is_reached_and_its_far_dates_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fallback is where '9999 5pm' is read; its answer is checked against the window too."""
    seen: list[tuple[date, object] | None] = []
    original = when._dateparser_fallback

    def spy(*args: object) -> tuple[date, object] | None:
        found = original(*args)  # type: ignore[arg-type]
        seen.append(found)
        return found

    monkeypatch.setattr(when, "_dateparser_fallback", spy)
    with pytest.raises(BadInput, match=WINDOW):
        parse_when("9999 5pm", LA, NOW)
    assert seen
    assert seen[0] is not None
    assert seen[0][0].year == 9999


@pytest.mark.parametrize(
    ("text", "year"),
    [
        ("1 Jan 2126 9am", 2126),
        ("1926-01-01 12:00", 1926),
        ("in 5200 weeks", 2126),
        ("2030-06-01 09:00", 2030),
    ],
)
def test_dates_inside_the_window_still_parse(text: str, year: int) -> None:
    parsed = parse_when(text, LA, NOW)
    assert parsed.local.year == year
    assert parsed.utc.tzinfo is UTC


@pytest.mark.parametrize(
    "text", ["1000000w", "999999 weeks 999999 days", "522w", "3651d", "99999999999999999999999 minutes"]
)
def test_durations_past_the_maximum_are_refused(text: str) -> None:
    with pytest.raises(BadInput, match=r"at most 3650d \(about 10 years\)"):
        parse_offset(text)


def test_the_longest_duration_is_accepted_and_lists_still_cap_at_30_days() -> None:
    assert parse_offset("3650d") == MAX_OFFSET
    assert parse_offset("520w") == timedelta(weeks=520)
    with pytest.raises(BadInput, match="at most 30d"):
        parse_offsets("24h, 3650d")
    with pytest.raises(BadInput, match="at most 3650d"):
        parse_offsets("1000000w")


def test_over_long_duration_text_is_refused_without_reading_it() -> None:
    with pytest.raises(BadInput, match="couldn't read"):
        parse_offset("1m " * 60)
    with pytest.raises(BadInput, match="too long to read"):
        parse_when("in " + "1m " * 60, LA, NOW)


# ---------------------------------------------------------------- repeats near the calendar's end


@pytest.mark.parametrize("rule", ["daily", "weekly", "monthly"])
@pytest.mark.parametrize("zone", ZONES, ids=lambda z: z.key)
def test_repeats_near_year_9999_stop_with_bad_input(rule: str, zone: ZoneInfo) -> None:
    start = datetime(9999, 12, 31 if rule == "daily" else 26, 12, 0, tzinfo=UTC)
    with pytest.raises(BadInput, match="end of the calendar"):
        next_occurrence(start, rule, zone, anchor_day=31)  # type: ignore[arg-type]


@pytest.mark.parametrize("rule", ["daily", "weekly", "monthly"])
@pytest.mark.parametrize("zone", ZONES, ids=lambda z: z.key)
def test_repeats_at_the_window_end_are_fine(rule: str, zone: ZoneInfo) -> None:
    last = datetime(2126, 12, 31, 12, 0, tzinfo=UTC)
    following = next_occurrence(last, rule, zone, anchor_day=31)  # type: ignore[arg-type]
    assert following > last
    assert following.tzinfo is UTC


# ---------------------------------------------------------------- fuzz: BadInput or a good value, nothing else

NASTY = [
    "in 1000000 weeks",
    "in -5 hours",
    "in 0 minutes",
    "in ² hours",
    "in ٣ hours",
    "in 1e9 days",
    "in 1_000 days",
    "in an",
    "in",
    "9999-99-99 99:99",
    "2026-02-30 10:00",
    "2026-13-01 10:00",
    "2026-00-10 10:00",
    "-2026-01-01 10:00",
    "29 feb 2027 10am",
    "31 nov 10am",
    "0 jan 10am",
    "thursday 5 nov 2027 9am",
    "13pm",
    "0am",
    "24:00",
    "99:99",
    "noon midnight",
    "tomorrow tomorrow 5pm",
    "next next thursday 9am",
    "5/12 10am",
    "12.05.2026 10am",
    "@everyone 5pm",
    "<@123> tomorrow 5pm",
    "**tomorrow** 5pm",
    "tomorrow\u200b 5pm",
    "\u200b",
    "\u202etomorrow 5pm",
    "tomorrow 5pm / whenever",
    "5pm PT PT",
    "5pm Mars/Base",
    "2026-03-08 02:30 PT",
    "2026-11-01 01:30 PT",
    "1 jan 1926 00:00 UTC",
    "31 dec 2126 23:59 Pacific/Kiritimati",
    "31 dec 2126 23:59 Etc/GMT+12",
    "x" * 100,
    "x" * 101,
    "5pm " + "9" * 90,
    "ｔｏｍｏｒｒｏｗ ５ｐｍ",
    "tomorrow ５:００",
    "\x00\x01\x02",
    "",
    "   ",
]


@pytest.mark.parametrize("text", NASTY)
@pytest.mark.parametrize("zone", ZONES, ids=lambda z: z.key)
def test_nasty_times_give_bad_input_or_an_aware_time(text: str, zone: ZoneInfo) -> None:
    _check_when(text, zone, NOW)


@pytest.mark.parametrize("text", [*NASTY, "999999999999w", "1h" * 50, "1 hour and and 2", "٣h", "²h"])
def test_nasty_durations_give_bad_input_or_a_duration(text: str) -> None:
    _check_offset(text)


def _check_when(text: str, zone: ZoneInfo, now: datetime, default_clock: time | None = None) -> None:
    try:
        parsed = parse_when(text, zone, now, default_clock=default_clock)
    except BadInput as error:
        refused: BadInput | None = error
    else:
        refused = None
    if refused is not None:
        assert refused.user_message
        return
    first, last = date_window(now)
    assert parsed.utc.tzinfo is not None
    assert parsed.utc.utcoffset() == timedelta(0)
    assert parsed.local.tzinfo is not None
    assert parsed.local.astimezone(UTC) == parsed.utc  # (== across zones is never true for a fold=0 time)
    assert first <= parsed.local.date() <= last


def _check_offset(text: str) -> None:
    try:
        delta = parse_offset(text)
    except BadInput as error:
        refused: BadInput | None = error
    else:
        refused = None
    if refused is not None:
        assert refused.user_message
        return
    assert timedelta(0) < delta <= MAX_OFFSET


WORDS = [
    "in", "an", "a", "next", "this", "at", "on", "the", "of", "and", "tomorrow", "today", "tonight",
    "noon", "midnight", "am", "pm", "from", "now", "friday", "w", "weeks", "d", "days", "h", "hours", "m", "minutes", "years",
    "thursday", "thu", "nov", "december", "sept", "PT", "UTC", "IST", "Europe/London", "z", "t",
    ":", "-", "/", ".", ",", "²", "٣", "５", "\u200b", "@everyone", "9999", "0001", "0000",
]  # fmt: skip
NUMBERS = st.one_of(
    st.integers(0, 60).map(str),
    st.integers(0, 10**25).map(str),
    st.integers(1, 9999).map(lambda y: f"{y:04d}"),
    st.builds(
        lambda y, m, d: f"{y:04d}-{m:02d}-{d:02d}",
        st.integers(0, 9999),
        st.integers(0, 13),
        st.integers(0, 32),
    ),
    st.builds(lambda h, m: f"{h}:{m:02d}", st.integers(0, 25), st.integers(0, 61)),
)
PHRASES = st.lists(st.one_of(st.sampled_from(WORDS), NUMBERS), min_size=1, max_size=7).map(" ".join)
NOWS = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC))


@FUZZ
@given(text=st.one_of(PHRASES, st.text(max_size=110)), zone=st.sampled_from(ZONES), now=NOWS)
def test_fuzz_parse_when(text: str, zone: ZoneInfo, now: datetime) -> None:
    _check_when(text, zone, now)


@FUZZ
@given(text=PHRASES, zone=st.sampled_from(ZONES), now=NOWS)
def test_fuzz_parse_when_with_a_default_time(text: str, zone: ZoneInfo, now: datetime) -> None:
    _check_when(text, zone, now, default_clock=time(9))


@FUZZ
@given(text=st.one_of(PHRASES, st.text(max_size=110)))
def test_fuzz_parse_offset(text: str) -> None:
    _check_offset(text)


@FUZZ
@given(
    start=st.datetimes(
        min_value=datetime(9990, 1, 1), max_value=datetime(9999, 12, 31), timezones=st.just(UTC)
    ),
    rule=st.sampled_from(["daily", "weekly", "monthly"]),
    zone=st.sampled_from(ZONES),
    anchor=st.one_of(st.none(), st.integers(1, 31)),
)
def test_fuzz_next_occurrence_near_the_end(
    start: datetime, rule: str, zone: ZoneInfo, anchor: int | None
) -> None:
    try:
        following = next_occurrence(start, rule, zone, anchor_day=anchor)  # type: ignore[arg-type]
    except BadInput:
        return
    assert following.tzinfo is not None
    assert following > start - timedelta(hours=1)  # a DST shift may not move it back more than that
