"""Pasted Discord timestamps (`<t:1796320800:F>`, as the client's @time picker writes them) in every `when`:
read as that exact instant, whatever zone the command reads typed times in; every style Discord documents
accepted; the same markup discord.py 2.7's TIMESTAMP_PATTERN reads; malformed and out-of-range ones refused
with BadInput (never an overflow)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from discord.utils import TIMESTAMP_PATTERN
from hypothesis import given, settings
from hypothesis import strategies as st

from bot import timeutil, when
from bot.errors import BadInput
from bot.services.reminders.requested import resolve_due
from bot.services.series.rules import Rule, parse_date, read_move
from bot.services.sessions.rules import resolve_start

NOW = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)
THURSDAY = datetime(2026, 12, 3, 18, 0, tzinfo=UTC)  # 10:00 AM in Los Angeles, 11:30 PM in Kolkata
STAMP = int(THURSDAY.timestamp())
# discord-api-docs, Reference → Message Formatting → Timestamp Styles (f the default, s and S since 2025).
STYLES = ["", ":t", ":T", ":d", ":D", ":f", ":F", ":s", ":S", ":R"]
ZONES = [
    ZoneInfo(n) for n in ("UTC", "America/Los_Angeles", "Asia/Kolkata", "Pacific/Kiritimati", "Etc/GMT+12")
]
WINDOW = "Dates must be between 1 January 1926 and 31 December 2126."
FUZZ = settings(derandomize=True, database=None, deadline=None, max_examples=300)
FIRST, LAST = timeutil.date_window(NOW)
LOW = int(datetime.combine(FIRST, datetime.min.time(), tzinfo=UTC).timestamp())
HIGH = int(datetime.combine(LAST + timedelta(days=1), datetime.min.time(), tzinfo=UTC).timestamp()) - 1


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("zone", ZONES, ids=str)
def test_every_style_reads_as_the_instant_in_any_zone(style: str, zone: ZoneInfo) -> None:
    parsed = when.parse_when(f"<t:{STAMP}{style}>", zone, NOW)
    assert parsed.utc == THURSDAY
    assert parsed.utc.tzinfo is UTC
    assert parsed.local == THURSDAY
    assert parsed.local.tzinfo == zone
    assert parsed.note is None


def test_spaces_around_it_are_ignored_and_seconds_kept() -> None:
    assert when.parse_when(f"  <t:{STAMP + 30}:F>  ", ZONES[1], NOW).utc == THURSDAY + timedelta(seconds=30)


@FUZZ
@given(st.integers(LOW, HIGH), st.sampled_from(STYLES), st.sampled_from(ZONES))
def test_any_instant_in_the_window_reads_exactly(seconds: int, style: str, zone: ZoneInfo) -> None:
    parsed = when.parse_when(f"<t:{seconds}{style}>", zone, NOW)
    assert parsed.utc == datetime.fromtimestamp(seconds, UTC)


MARKUP = st.text(alphabet="<>t:T-0123456789dDfFsSRxq ", max_size=18)


@FUZZ
@given(
    st.one_of(
        MARKUP, st.builds(lambda n, s: f"<t:{n}{s}>", st.integers(-(10**12), 10**12), st.sampled_from(STYLES))
    )
)
def test_the_markup_read_is_discord_pys(text: str) -> None:
    """Exactly what discord.py 2.7's TIMESTAMP_PATTERN reads as a whole value is a timestamp here."""
    assert when.is_timestamp(text) == (TIMESTAMP_PATTERN.fullmatch(text.strip()) is not None)


@FUZZ
@given(MARKUP)
def test_near_markup_gives_a_time_or_badinput(text: str) -> None:
    try:
        parsed = when.parse_when(text, ZONES[1], NOW)
    except BadInput:
        return
    assert parsed.utc.tzinfo is UTC


@pytest.mark.parametrize(
    "text",
    [
        "<t:abc>",
        "<t:>",
        "<t:1796320800:x>",
        "<t:1796320800",
        "<t:1796320800:F> PT",
        "<T:1796320800>",
        "< t:1:F>",
    ],
)
def test_malformed_timestamps_are_refused_clearly(text: str) -> None:
    with pytest.raises(BadInput, match="is not a Discord timestamp I can read") as refused:
        when.parse_when(text, ZONES[1], NOW)
    assert "<t:1796320800:F>" in refused.value.user_message  # the example, in `code` so it shows as typed


@pytest.mark.parametrize(
    "seconds", [HIGH + 1, LOW - 1, 10**15, -(10**15), int("9" * 90), 253402300800, -62135596801]
)
def test_out_of_range_timestamps_get_the_window(seconds: int) -> None:
    with pytest.raises(BadInput) as refused:
        when.parse_when(f"<t:{seconds}:F>", ZONES[1], NOW)
    assert refused.value.user_message == WINDOW


def test_a_past_timestamp_is_refused_where_past_times_are() -> None:
    with pytest.raises(BadInput, match="is in the past"):
        resolve_start("<t:1000000000:F>", "UK", "America/Los_Angeles", NOW)
    with pytest.raises(BadInput, match="is in the past"):
        resolve_due("<t:1000000000>", zone="UTC", now=NOW, session_starts=None)


def test_a_session_start_keeps_its_zone_and_takes_the_instant() -> None:
    start = resolve_start(f"<t:{STAMP}:F>", "UK", "America/Los_Angeles", NOW)
    assert (start.utc, start.zone, start.note) == (THURSDAY, "Europe/London", None)


def test_series_dates_are_the_instants_date_in_the_series_zone() -> None:
    la, kolkata = ZoneInfo("America/Los_Angeles"), ZoneInfo("Asia/Kolkata")
    late = int(datetime(2026, 12, 24, 3, 0, tzinfo=UTC).timestamp())  # 23 December in Los Angeles
    assert parse_date(f"<t:{late}:D>", la, NOW) == date(2026, 12, 23)
    assert parse_date(f"<t:{late}:D>", kolkata, NOW) == date(2026, 12, 24)
    with pytest.raises(BadInput, match="not a Discord timestamp"):
        parse_date("<t:soon>", la, NOW)
    with pytest.raises(BadInput, match="Dates must be between"):
        parse_date("<t:99999999999999>", la, NOW)


def test_a_moved_week_takes_the_instant() -> None:
    rule = Rule(3, datetime(2026, 1, 1, 9, 30).time(), "America/Los_Angeles", 1, date(2026, 12, 3), None)
    assert read_move(f"<t:{STAMP}:f>", date(2026, 12, 3), rule, NOW) == THURSDAY
    with pytest.raises(BadInput, match="is in the past"):
        read_move("<t:1000000000:f>", date(2026, 12, 3), rule, NOW)


def test_a_reminder_before_a_session_may_be_an_instant() -> None:
    due, minutes, note = resolve_due(f"<t:{STAMP - 5400}:F>", zone="UTC", now=NOW, session_starts=THURSDAY)
    assert (due, minutes, note) == (THURSDAY - timedelta(minutes=90), 90, None)
    with pytest.raises(BadInput, match="is not before the session"):
        resolve_due(f"<t:{STAMP}:F>", zone="UTC", now=NOW, session_starts=THURSDAY)
    with pytest.raises(BadInput, match="is in the past"):
        resolve_due("<t:1000000000:F>", zone="UTC", now=NOW, session_starts=THURSDAY)
    with pytest.raises(BadInput, match="not a Discord timestamp"):
        resolve_due("<t:soon>", zone="UTC", now=NOW, session_starts=THURSDAY)
    assert resolve_due("1h", zone="UTC", now=NOW, session_starts=THURSDAY)[1] == 60  # offsets as before
