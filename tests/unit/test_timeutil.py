"""bot.timeutil and bot.when: zones, parsing user times, offsets, the club's time format and repeats."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.errors import BadInput
from bot.timeutil import (
    CLUB_ZONE_ABBREVIATIONS,
    DEFAULT_DISPLAY_ZONES,
    DisplayZone,
    discord_timestamp,
    ensure_aware_utc,
    ensure_future,
    ensure_within,
    format_club_date,
    format_club_time,
    format_display_zones,
    format_offset,
    next_occurrence,
    parse_display_zones,
    parse_offset,
    parse_offsets,
    resolve_timezone,
    timezone_choices,
)
from bot.when import parse_when

LA = ZoneInfo("America/Los_Angeles")
LONDON = ZoneInfo("Europe/London")
KOLKATA = ZoneInfo("Asia/Kolkata")
NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)  # Monday; 05:00 PST in Los Angeles


def la(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=LA)


# ---------------------------------------------------------------- club format


@pytest.mark.parametrize(
    ("local", "expected"),
    [
        # The club page's two sessions (US already back on PST, UK on GMT).
        (la(2026, 11, 5, 8, 0), "Thursday 5 November, 8:00 AM PT / 4:00 PM GMT / 9:30 PM IST"),
        (la(2026, 11, 19, 9, 30), "Thursday 19 November, 9:30 AM PT / 5:30 PM GMT / 11:00 PM IST"),
        # March window: US on PDT since 8 March, UK still GMT until 29 March -> 7 hours apart.
        (la(2026, 3, 12, 9, 30), "Thursday 12 March, 9:30 AM PT / 4:30 PM GMT / 10:00 PM IST"),
        # Summer: both on daylight time; London shows BST.
        (la(2026, 7, 16, 9, 30), "Thursday 16 July, 9:30 AM PT / 5:30 PM BST / 10:00 PM IST"),
        # Late October: UK back on GMT since 25 October, US still PDT until 1 November.
        (la(2026, 10, 29, 9, 30), "Thursday 29 October, 9:30 AM PT / 4:30 PM GMT / 10:00 PM IST"),
        # Before the UK change the usual 8 hours.
        (la(2026, 10, 22, 9, 30), "Thursday 22 October, 9:30 AM PT / 5:30 PM BST / 10:00 PM IST"),
        # IST crosses midnight: its weekday is shown.
        (la(2026, 11, 19, 11, 0), "Thursday 19 November, 11:00 AM PT / 7:00 PM GMT / 12:30 AM IST (Fri)"),
        # Noon and midnight.
        (la(2026, 11, 19, 12, 0), "Thursday 19 November, 12:00 PM PT / 8:00 PM GMT / 1:30 AM IST (Fri)"),
        (la(2026, 11, 19, 0, 5), "Thursday 19 November, 12:05 AM PT / 8:05 AM GMT / 1:35 PM IST"),
    ],
)
def test_format_club_time(local: datetime, expected: str) -> None:
    assert format_club_time(local.astimezone(UTC), DEFAULT_DISPLAY_ZONES) == expected


def test_format_club_time_default_zones_year_and_earlier_day() -> None:
    dt = datetime(2026, 11, 5, 16, 0, tzinfo=UTC)
    assert format_club_time(dt) == "Thursday 5 November, 8:00 AM PT / 4:00 PM GMT / 9:30 PM IST"
    assert format_club_time(dt, with_year=True).startswith("Thursday 5 November 2026, 8:00 AM PT")
    zones = [DisplayZone("Asia/Kolkata", "IST"), DisplayZone("America/Los_Angeles", None)]
    early = datetime(2026, 11, 5, 2, 0, tzinfo=UTC)
    assert format_club_time(early, zones) == "Thursday 5 November, 7:30 AM IST / 6:00 PM PST (Wed)"


def test_format_club_time_numeric_zone_names_and_errors() -> None:
    dt = datetime(2026, 11, 5, 16, 0, tzinfo=UTC)
    assert format_club_time(dt, [DisplayZone("Asia/Dubai")]) == "Thursday 5 November, 8:00 PM UTC+4"
    with pytest.raises(ValueError, match="display zone"):
        format_club_time(dt, [])
    with pytest.raises(ValueError, match="naive"):
        format_club_time(datetime(2026, 11, 5, 16, 0), DEFAULT_DISPLAY_ZONES)


def test_format_club_date_and_discord_timestamp() -> None:
    dt = datetime(2026, 11, 5, 16, 0, tzinfo=UTC)
    assert format_club_date(dt, "America/Los_Angeles") == "5 November"
    assert format_club_date(dt, KOLKATA, now=NOW) == "5 November"
    assert format_club_date(dt, LA, now=datetime(2027, 1, 2, tzinfo=UTC)) == "5 November 2026"
    # 23:30 UTC on 5 Nov is already 6 Nov in India.
    assert format_club_date(datetime(2026, 11, 5, 23, 30, tzinfo=UTC), KOLKATA) == "6 November"
    assert discord_timestamp(dt) == f"<t:{int(dt.timestamp())}:F>"
    assert discord_timestamp(datetime(2025, 11, 5, 16, 0, tzinfo=UTC), "R") == "<t:1762358400:R>"


# ---------------------------------------------------------------- zones


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("PT", "America/Los_Angeles"),
        ("pst", "America/Los_Angeles"),
        ("PDT", "America/Los_Angeles"),
        ("ET", "America/New_York"),
        ("est", "America/New_York"),
        ("UK", "Europe/London"),
        ("BST", "Europe/London"),
        ("GMT", "Etc/GMT"),
        ("CET", "Europe/Paris"),
        ("IST", "Asia/Kolkata"),
        ("UTC", "UTC"),
        ("america/los_angeles", "America/Los_Angeles"),
        (" Europe/London ", "Europe/London"),
        ("America/New York", "America/New_York"),
        ("asia/kolkata", "Asia/Kolkata"),
    ],
)
def test_resolve_timezone(name: str, key: str) -> None:
    assert resolve_timezone(name).key == key


def test_gmt_input_is_fixed_but_uk_follows_bst() -> None:
    summer = datetime(2026, 7, 1, 12, tzinfo=UTC)
    assert summer.astimezone(resolve_timezone("GMT")).utcoffset() == timedelta(0)
    assert summer.astimezone(resolve_timezone("UK")).utcoffset() == timedelta(hours=1)


@pytest.mark.parametrize("name", ["", "   ", "Mars/Olympus", "XYZ", "PT8"])
def test_resolve_timezone_unknown(name: str) -> None:
    with pytest.raises(BadInput, match="America/Los_Angeles"):
        resolve_timezone(name)


def test_abbreviations_are_valid_zones() -> None:
    for zone in CLUB_ZONE_ABBREVIATIONS.values():
        ZoneInfo(zone)


def test_timezone_choices() -> None:
    everything = timezone_choices("")
    assert len(everything) == 25
    assert everything[0] == ("PT (America/Los_Angeles)", "PT")
    london = timezone_choices("london")
    assert ("UK (Europe/London)", "UK") in london
    assert ("Europe/London", "Europe/London") in london
    assert [v for _, v in london].index("UK") < [v for _, v in london].index("Europe/London")
    assert len(timezone_choices("a", limit=100)) == 25
    assert len(timezone_choices("america", limit=3)) == 3
    assert timezone_choices("no such place") == []
    for name, value in timezone_choices("america", limit=25):
        assert len(name) <= 100
        assert len(value) <= 100
        resolve_timezone(value)


# ---------------------------------------------------------------- parse_when


@pytest.mark.parametrize(
    ("text", "expected_local"),
    [
        ("2026-11-05 08:00", la(2026, 11, 5, 8, 0)),
        ("2026-11-05T08:00", la(2026, 11, 5, 8, 0)),
        ("2026-11-05 08:00:00", la(2026, 11, 5, 8, 0)),
        ("5 Nov 2026 8:00 AM", la(2026, 11, 5, 8, 0)),
        ("5 November 2026, 8am", la(2026, 11, 5, 8, 0)),
        ("Nov 5 2026 8am", la(2026, 11, 5, 8, 0)),
        ("November 5th, 2026 at 8:00 am", la(2026, 11, 5, 8, 0)),
        ("Thursday 5 November 2026, 8:00 AM", la(2026, 11, 5, 8, 0)),
        # Weekdays: next occurrence after now (Mon 30 Nov, 05:00 PST).
        ("Thursday 9:30am", la(2026, 12, 3, 9, 30)),
        ("thu 9:30", la(2026, 12, 3, 9, 30)),
        ("thurs at 9:30 AM", la(2026, 12, 3, 9, 30)),
        ("9:30am thursday", la(2026, 12, 3, 9, 30)),
        ("next thursday 9:30am", la(2026, 12, 3, 9, 30)),
        ("monday 9:30", la(2026, 11, 30, 9, 30)),  # later today
        ("next monday 9:30", la(2026, 12, 7, 9, 30)),  # 'next' never means today
        ("this monday 9:30", la(2026, 11, 30, 9, 30)),
        ("monday 5:00", la(2026, 12, 7, 5, 0)),  # exactly now -> next week
        ("mon 4am", la(2026, 12, 7, 4, 0)),  # passed today -> next week
        ("sunday noon", la(2026, 12, 6, 12, 0)),
        ("tomorrow 17:00", la(2026, 12, 1, 17, 0)),
        ("today 5pm", la(2026, 11, 30, 17, 0)),
        ("5pm today", la(2026, 11, 30, 17, 0)),
        ("Today 5 PM", la(2026, 11, 30, 17, 0)),
        ("tomorrow midnight", la(2026, 12, 1, 0, 0)),
        ("9:30am", la(2026, 11, 30, 9, 30)),  # bare time: next occurrence
        ("4:30am", la(2026, 12, 1, 4, 30)),
        # Year-less dates: the next such date.
        ("5 Dec 10am", la(2026, 12, 5, 10, 0)),
        ("5 Nov 10am", la(2027, 11, 5, 10, 0)),
        ("the 5th of december at 10:00", la(2026, 12, 5, 10, 0)),
        ("Saturday, December 5, 2026 9:00 AM", la(2026, 12, 5, 9, 0)),
        # Beyond the built-in forms, dateparser reads the rest (still interpreted in the zone).
        ("Dec 5th, 2026 @ 9am", la(2026, 12, 5, 9, 0)),
        ("Thursday at 9:30 in the morning", la(2026, 12, 3, 9, 30)),
    ],
)
def test_parse_when_wall_clock_forms(text: str, expected_local: datetime) -> None:
    parsed = parse_when(text, LA, NOW)
    assert parsed.local == expected_local
    assert parsed.utc == expected_local.astimezone(UTC)
    assert parsed.utc.tzinfo is UTC
    assert parsed.local.tzinfo is LA
    assert parsed.note is None


@pytest.mark.parametrize(
    ("text", "delta"),
    [
        ("in 2 hours", timedelta(hours=2)),
        ("in 30 minutes", timedelta(minutes=30)),
        ("in 3 days", timedelta(days=3)),
        ("in 1h30m", timedelta(minutes=90)),
        ("in an hour", timedelta(hours=1)),
        ("In 2 Weeks", timedelta(weeks=2)),
    ],
)
def test_parse_when_relative(text: str, delta: timedelta) -> None:
    parsed = parse_when(text, LA, NOW)
    assert parsed.utc == NOW + delta
    assert parsed.local == parsed.utc
    assert parsed.local.tzinfo is LA


def test_parse_when_weekday_depends_on_zone() -> None:
    # 30 Nov 13:00 UTC is 18:30 Monday in Kolkata: 'monday 9:30am' has passed there.
    assert parse_when("monday 9:30am", KOLKATA, NOW).local == datetime(2026, 12, 7, 9, 30, tzinfo=KOLKATA)
    assert parse_when("monday 9:30am", LA, NOW).local == la(2026, 11, 30, 9, 30)


def test_parse_when_other_zones_and_explicit_zone() -> None:
    assert parse_when("2026-11-05 16:00", LONDON, NOW).utc == datetime(2026, 11, 5, 16, 0, tzinfo=UTC)
    assert parse_when("2026-07-05 16:00", LONDON, NOW).utc == datetime(2026, 7, 5, 15, 0, tzinfo=UTC)
    # A trailing zone overrides the default zone; the club's own format reads back.
    club = "Thursday 5 November 2026, 8:00 AM PT / 4:00 PM GMT / 9:30 PM IST"
    assert parse_when(club, KOLKATA, NOW).utc == datetime(2026, 11, 5, 16, 0, tzinfo=UTC)
    assert parse_when("2026-11-05 21:30 IST", LA, NOW).utc == datetime(2026, 11, 5, 16, 0, tzinfo=UTC)
    assert parse_when("2026-11-05T16:00Z", LA, NOW).utc == datetime(2026, 11, 5, 16, 0, tzinfo=UTC)


def test_parse_when_spring_forward_gap() -> None:
    with pytest.raises(BadInput) as err:
        parse_when("2026-03-08 02:30", LA, NOW)
    message = err.value.user_message
    assert "2:30 AM on Sunday 8 March 2026 does not exist in America/Los_Angeles" in message
    assert "2:00–3:00 AM" in message
    with pytest.raises(BadInput, match="1:00–2:00 AM"):
        parse_when("2026-03-29 01:15", LONDON, NOW)
    # Either side of the gap is fine.
    assert parse_when("2026-03-08 01:59", LA, NOW).utc == datetime(2026, 3, 8, 9, 59, tzinfo=UTC)
    assert parse_when("2026-03-08 03:00", LA, NOW).utc == datetime(2026, 3, 8, 10, 0, tzinfo=UTC)


def test_parse_when_fall_back_ambiguity_takes_first() -> None:
    parsed = parse_when("2026-11-01 01:30", LA, NOW)
    assert parsed.utc == datetime(2026, 11, 1, 8, 30, tzinfo=UTC)  # PDT, UTC-7
    assert parsed.note == (
        "1:30 AM on 1 November 2026 happens twice in America/Los_Angeles; I took the first (PDT, UTC-7)"
    )
    london = parse_when("2026-10-25 01:30", LONDON, NOW)
    assert london.utc == datetime(2026, 10, 25, 0, 30, tzinfo=UTC)
    assert london.note is not None
    assert "(BST, UTC+1)" in london.note


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "e.g."),
        ("   ", "e.g."),
        ("whenever", "Try e.g."),
        ("next blue moon", "Try e.g."),
        ("thursday 9", "needs minutes or AM/PM"),
        ("2026-11-05", "add a time"),
        ("2026-13-01 10:00", "no month 13"),
        ("2026-02-30 10:00", "no day 30"),
        ("31 nov 10am", "no day 31"),
        ("13pm tomorrow", "12-hour"),
        ("tomorrow 25:00", "not a valid time"),
        ("Friday 5 November 2026 8am", "is a Thursday, not a Friday"),
        ("in a while", "in 2 hours"),
        ("x" * 101, "too long"),
        ("5/12/2026 10:00", "day/month or month/day"),
        ("5/12 10am", "day/month or month/day"),
        ("05.12.2026 10:00", "day/month or month/day"),
        ("next week friday 3pm", "Try e.g."),
    ],
)
def test_parse_when_rejects(text: str, fragment: str) -> None:
    with pytest.raises(BadInput, match=fragment):
        parse_when(text, LA, NOW)


def test_parse_when_requires_aware_now() -> None:
    with pytest.raises(ValueError, match="naive"):
        parse_when("today 5pm", LA, datetime(2026, 11, 30, 13, 0))


def test_parse_when_allows_past_and_ensure_helpers() -> None:
    past = parse_when("2026-11-05 08:00", LA, NOW).utc
    with pytest.raises(BadInput, match="in the past"):
        ensure_future(past, NOW)
    with pytest.raises(BadInput, match="reminder"):
        ensure_future(NOW, NOW, what="reminder")
    ensure_future(NOW + timedelta(minutes=1), NOW)
    ensure_within(NOW + timedelta(days=730), NOW)
    with pytest.raises(BadInput, match="730 days"):
        ensure_within(NOW + timedelta(days=731), NOW)
    with pytest.raises(BadInput, match="30 days"):
        ensure_within(NOW + timedelta(days=31), NOW, max_days=30)


def test_ensure_aware_utc() -> None:
    assert ensure_aware_utc(la(2026, 11, 5, 8, 0)) == datetime(2026, 11, 5, 16, 0, tzinfo=UTC)
    assert ensure_aware_utc(la(2026, 11, 5, 8, 0)).tzinfo is UTC
    with pytest.raises(ValueError, match="naive"):
        ensure_aware_utc(datetime(2026, 11, 5, 8, 0))


# ---------------------------------------------------------------- offsets


@pytest.mark.parametrize(
    ("text", "delta"),
    [
        ("1h", timedelta(hours=1)),
        ("30m", timedelta(minutes=30)),
        ("2d", timedelta(days=2)),
        ("1h30m", timedelta(minutes=90)),
        ("1h 30m", timedelta(minutes=90)),
        ("90 minutes", timedelta(minutes=90)),
        ("24 h", timedelta(hours=24)),
        ("1 hour and 30 minutes", timedelta(minutes=90)),
        ("1w", timedelta(days=7)),
        ("2 days", timedelta(days=2)),
        (" 15 MIN ", timedelta(minutes=15)),
    ],
)
def test_parse_offset(text: str, delta: timedelta) -> None:
    assert parse_offset(text) == delta


@pytest.mark.parametrize("text", ["", "1", "h", "soon", "1x", "0m", "-1h", "1.5h", "1 hourly"])
def test_parse_offset_rejects(text: str) -> None:
    with pytest.raises(BadInput):
        parse_offset(text)


def test_parse_offsets() -> None:
    assert parse_offsets("24h,1h") == [timedelta(hours=24), timedelta(hours=1)]
    assert parse_offsets("1h, 24h; 1h, 60m, 1d") == [timedelta(hours=24), timedelta(hours=1)]
    assert parse_offsets("30d") == [timedelta(days=30)]
    with pytest.raises(BadInput, match="at most 30d"):
        parse_offsets("31d")
    with pytest.raises(BadInput, match="At most 5"):
        parse_offsets("1m,2m,3m,4m,5m,6m")
    assert len(parse_offsets("1m,2m,3m,4m,5m,5m")) == 5
    with pytest.raises(BadInput):
        parse_offsets(" , ")
    with pytest.raises(BadInput):
        parse_offsets("1h, 0m")


@pytest.mark.parametrize(
    ("delta", "text"),
    [
        (timedelta(hours=24), "24h"),
        (timedelta(minutes=90), "1h30m"),
        (timedelta(days=2), "2d"),
        (timedelta(days=7), "7d"),
        (timedelta(hours=36), "36h"),
        (timedelta(minutes=15), "15m"),
        (timedelta(hours=1), "1h"),
        (timedelta(0), "0m"),
    ],
)
def test_format_offset(delta: timedelta, text: str) -> None:
    assert format_offset(delta) == text
    if delta:
        assert parse_offset(text) == delta


# ---------------------------------------------------------------- display zones


def test_display_zones_parse_and_round_trip() -> None:
    text = "America/Los_Angeles=PT, Europe/London, Asia/Kolkata=IST"
    zones = parse_display_zones(text)
    assert zones == list(DEFAULT_DISPLAY_ZONES)
    assert format_display_zones(zones) == text
    assert parse_display_zones(format_display_zones(zones)) == zones
    assert parse_display_zones("pt, uk=London") == [
        DisplayZone("America/Los_Angeles", None),
        DisplayZone("Europe/London", "London"),
    ]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "at least one"),
        (" , ", "at least one"),
        ("Mars/Base", "don't know"),
        ("UTC, PT, ET, UK, IST, CET", "At most 5"),
        ("Europe/London, UK", "listed twice"),
        ("Europe/London=Lon don", "label"),
        ("Europe/London=ABCDEFGHIJK", "label"),
    ],
)
def test_display_zones_rejects(text: str, fragment: str) -> None:
    with pytest.raises(BadInput, match=fragment):
        parse_display_zones(text)


# ---------------------------------------------------------------- repeats


def test_weekly_repeat_keeps_wall_clock_across_dst() -> None:
    start = la(2027, 3, 11, 9, 30).astimezone(UTC)  # Thursday before US spring-forward (14 March)
    following = next_occurrence(start, "weekly", LA)
    assert following == la(2027, 3, 18, 9, 30).astimezone(UTC)
    assert following.tzinfo is UTC
    assert following - start == timedelta(days=7, hours=-1)
    autumn = next_occurrence(la(2026, 10, 29, 9, 30).astimezone(UTC), "weekly", LA)
    assert autumn.astimezone(LA) == la(2026, 11, 5, 9, 30)


def test_daily_and_monthly_repeat() -> None:
    assert next_occurrence(la(2026, 3, 7, 9, 30), "daily", LA) == la(2026, 3, 8, 9, 30).astimezone(UTC)
    jan31 = la(2027, 1, 31, 9, 30)
    feb = next_occurrence(jan31, "monthly", LA)
    assert feb.astimezone(LA) == la(2027, 2, 28, 9, 30)
    assert next_occurrence(feb, "monthly", LA, anchor_day=31).astimezone(LA) == la(2027, 3, 31, 9, 30)
    assert next_occurrence(la(2026, 12, 15, 9, 30), "monthly", LA).astimezone(LA) == la(2027, 1, 15, 9, 30)
    assert next_occurrence(la(2028, 1, 31, 9, 30), "monthly", LA).astimezone(LA) == la(2028, 2, 29, 9, 30)


def test_repeat_into_gap_shifts_forward_and_ambiguous_takes_first() -> None:
    gap = next_occurrence(la(2026, 3, 1, 2, 30), "weekly", LA)
    assert gap.astimezone(LA) == la(2026, 3, 8, 3, 30)
    ambiguous = next_occurrence(la(2026, 10, 25, 1, 30), "weekly", LA)
    assert ambiguous == datetime(2026, 11, 1, 8, 30, tzinfo=UTC)


def test_repeat_rejects_naive_and_unknown_rule() -> None:
    with pytest.raises(ValueError, match="naive"):
        next_occurrence(datetime(2026, 3, 1, 9, 30), "weekly", LA)
    with pytest.raises(ValueError, match="unknown repeat rule"):
        next_occurrence(la(2026, 3, 1, 9, 30), "yearly", LA)  # type: ignore[arg-type]
