"""Pure rendering: the club page's time line across DST in both zones, cards within Discord's limits,
and .ics files that icalendar reads back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import discord
import icalendar
import pytest

from bot import timeutil
from bot.layouts import count_components
from bot.replies import markdown_link
from bot.services.calendars import ics
from bot.services.papers.store import PaperInfo
from bot.services.sessions import rules
from bot.services.sessions.events import event_fields
from bot.services.sessions.info import SessionInfo
from bot.services.sessions.publish import thread_name
from bot.timeutil import DEFAULT_DISPLAY_ZONES
from cogs.sessions import _render as render

NOW = datetime(2026, 10, 1, 12, 0, tzinfo=UTC)


def make_info(**kw) -> SessionInfo:
    start = kw.pop("starts_at", datetime(2026, 11, 5, 16, 0, tzinfo=UTC))
    duration = kw.pop("duration_minutes", 60)
    base = dict(
        id=7,
        guild_id=99,
        title="Building data recipes for terminal agents",
        description=None,
        starts_at=start,
        ends_at=start + timedelta(minutes=duration),
        duration_minutes=duration,
        timezone="America/Los_Angeles",
        presenter_id=None,
        presenter_name="Hamish Ivison",
        papers=[
            PaperInfo(1, "title:tmax", "title", "TMax", None, None, None),
            PaperInfo(
                2,
                "arxiv:2401.12345",
                "arxiv",
                "Terminal-World",
                "https://arxiv.org/abs/2401.12345",
                "2401.12345",
                None,
            ),
        ],
        signup_url="https://lu.ma/paperclub",
        recording_url=None,
        notes_url=None,
        wiki_url=None,
        status="scheduled",
        announcement_channel_id=None,
        announcement_message_id=None,
        thread_id=None,
        event_id=None,
        sequence=0,
    )
    base.update(kw)
    return SessionInfo(**base)


# typed in PT -> UTC -> the club page's line. PT and UK are 7 h apart in the March and Oct/Nov windows.
TIME_TABLE = [
    # the club page's two November sessions (PT back on standard time since 1 November 2026)
    (
        "2026-11-05 08:00",
        datetime(2026, 11, 5, 16, 0, tzinfo=UTC),
        "Thursday 5 November, 8:00 AM PT / 4:00 PM GMT / 9:30 PM IST",
    ),
    (
        "Thursday 19 November 2026 9:30 AM",
        datetime(2026, 11, 19, 17, 30, tzinfo=UTC),
        "Thursday 19 November, 9:30 AM PT / 5:30 PM GMT / 11:00 PM IST",
    ),
    # March window: the US springs forward on 14 March 2027, the UK only on 28 March
    (
        "2027-03-18 09:30",
        datetime(2027, 3, 18, 16, 30, tzinfo=UTC),
        "Thursday 18 March 2027, 9:30 AM PT / 4:30 PM GMT / 10:00 PM IST",
    ),
    # both on summer time: 8 h apart again
    (
        "2027-04-01 09:30",
        datetime(2027, 4, 1, 16, 30, tzinfo=UTC),
        "Thursday 1 April 2027, 9:30 AM PT / 5:30 PM BST / 10:00 PM IST",
    ),
    # October window: the UK falls back on 25 October 2026, the US only on 1 November
    (
        "2026-10-29 09:30",
        datetime(2026, 10, 29, 16, 30, tzinfo=UTC),
        "Thursday 29 October, 9:30 AM PT / 4:30 PM GMT / 10:00 PM IST",
    ),
    # before either change
    (
        "2026-10-22 09:30",
        datetime(2026, 10, 22, 16, 30, tzinfo=UTC),
        "Thursday 22 October, 9:30 AM PT / 5:30 PM BST / 10:00 PM IST",
    ),
    # late in PT is the next day in IST
    (
        "2026-12-03 17:00",
        datetime(2026, 12, 4, 1, 0, tzinfo=UTC),
        "Thursday 3 December, 5:00 PM PT / 1:00 AM GMT (Fri) / 6:30 AM IST (Fri)",
    ),
]


@pytest.mark.parametrize(("typed", "utc", "line"), TIME_TABLE)
def test_time_table(typed, utc, line) -> None:
    start = rules.resolve_start(typed, "PT", "UTC", NOW)
    assert start.utc == utc
    info = make_info(starts_at=start.utc)
    assert render.club_time(info, DEFAULT_DISPLAY_ZONES, NOW) == line
    assert f"<t:{int(utc.timestamp())}:F>" in render.when_text(info, DEFAULT_DISPLAY_ZONES, NOW)


def test_same_moment_typed_in_uk_time() -> None:
    start = rules.resolve_start("5 Nov 2026 4:00 PM", "UK", "America/Los_Angeles", NOW)
    assert start.utc == TIME_TABLE[0][1]
    assert start.zone == "Europe/London"


def test_card_fits_discords_limits_with_huge_input() -> None:
    many = [
        PaperInfo(
            i, f"title:p{i}", "title", "P" * 300 + str(i), f"https://example.com/{'x' * 400}/{i}", None, None
        )
        for i in range(10)
    ]
    info = make_info(
        title="T" * 200,
        description="D" * 2000,
        papers=many,
        presenter_name="N" * 100,
        recording_url="https://r.example/" + "r" * 490,
        notes_url="https://n.example/" + "n" * 490,
        wiki_url="https://w.example/" + "w" * 490,
    )
    view = render.session_card(info, DEFAULT_DISPLAY_ZONES, now=NOW).view(note="N" * 3000)
    payload = view.to_components()
    assert sum(count_components(c) for c in payload) <= 40
    assert view.content_length() <= 4000
    texts = [t.content for t in view.walk_children() if isinstance(t, discord.ui.TextDisplay)]
    assert any(t.startswith("-# … and ") and t.endswith(" more papers") for t in texts)
    assert len(thread_name(info)) <= 100
    assert thread_name(info).endswith("…")
    fields = event_fields(info, DEFAULT_DISPLAY_ZONES)
    assert len(fields.name) <= 100
    assert len(fields.description) <= 1000
    assert fields.location == "https://lu.ma/paperclub"
    long_signup = make_info(signup_url="https://x.example/" + "y" * 200)
    assert event_fields(long_signup, DEFAULT_DISPLAY_ZONES).location == "Video call"
    assert event_fields(make_info(signup_url=None), DEFAULT_DISPLAY_ZONES).location == "Video call"
    assert (
        len(
            render.cancellation_notice(
                make_info(status="cancelled", cancel_reason="R" * 500), DEFAULT_DISPLAY_ZONES
            )
        )
        <= 2000
    )


def test_links_cannot_break_out_of_markdown() -> None:
    # Link text is never backslash-escaped (Discord shows backslashes there): look-alikes stand in.
    assert markdown_link("a]b", "https://x.example/a_(b)") == "[a］b](https://x.example/a_%28b%29)"


def test_cancelled_card() -> None:
    info = make_info(status="cancelled", cancel_reason="Presenter ill")
    view = render.session_card(info, DEFAULT_DISPLAY_ZONES, now=NOW).view()
    (container,) = view.to_components()
    head = container["components"][0]["content"]
    assert head.startswith("## Cancelled: Building data recipes for terminal agents\n~~Thursday 5 November")
    assert "**This session is cancelled** — Presenter ill" in head
    assert container["accent_color"] == render.CANCELLED_COLOUR.value


def test_card_text_shows_as_typed() -> None:
    # member text is escaped once in a text display; a paper's link is the button beside it
    paper = PaperInfo(
        3, "url:x", "url", "[click](https://evil.example) **bold** `x`", "https://x.example/p.pdf", None, None
    )
    info = make_info(title="# Not *a* heading", papers=[paper], description="> quoted @everyone")
    (container,) = render.session_card(info, DEFAULT_DISPLAY_ZONES, now=NOW).view().to_components()
    head, description, _separator, section = container["components"]  # no "Session #7" footer
    assert head["content"].startswith("## \\# Not \\*a\\* heading\n")
    assert description["content"] == "\\> quoted @everyone"
    assert (
        section["components"][0]["content"] == "**\\[click](https://evil.example) \\*\\*bold\\*\\* \\`x\\`**"
    )
    assert section["accessory"] == {
        "type": 2,
        "style": 5,
        "label": "PDF",
        "url": "https://x.example/p.pdf",
        "disabled": False,
    }


def test_duration_text() -> None:
    assert [timeutil.format_duration(m) for m in (60, 120, 45, 90)] == [
        "1 hour",
        "2 hours",
        "45 minutes",
        "1 h 30 min",
    ]


def _events(data: bytes) -> list[icalendar.Event]:
    calendar = icalendar.Calendar.from_ical(data)
    assert calendar["VERSION"] == "2.0"
    assert calendar["PRODID"]
    assert calendar["METHOD"] == "PUBLISH"
    return list(calendar.walk("VEVENT"))


def test_ics_round_trip() -> None:
    info = make_info(sequence=3, description="Where tasks come from.")
    data = ics.calendar_bytes([info], now=NOW)
    assert b"\r\n" in data
    assert b"DTSTART:20261105T160000Z" in data
    (event,) = _events(data)
    assert str(event["UID"]) == "session-99-7@paperclub.invalid"
    assert event.decoded("DTSTART") == info.starts_at
    assert event.decoded("DTEND") == info.ends_at
    assert event.decoded("DTSTART").utcoffset() == timedelta(0)
    assert event.decoded("DTSTAMP") == NOW
    assert int(event["SEQUENCE"]) == 3
    assert str(event["STATUS"]) == "CONFIRMED"
    assert str(event["SUMMARY"]) == info.title
    assert str(event["LOCATION"]) == "https://lu.ma/paperclub"
    assert "Terminal-World" in str(event["DESCRIPTION"])
    assert "Hamish Ivison" in str(event["DESCRIPTION"])


def test_ics_cancelled_and_uid_stable_across_edits() -> None:
    before = make_info()
    after = make_info(title="Renamed", sequence=2, status="cancelled", cancel_reason="ill")
    (a,) = _events(ics.calendar_bytes([before], now=NOW))
    (b,) = _events(ics.calendar_bytes([after], now=NOW))
    assert a["UID"] == b["UID"]
    assert int(b["SEQUENCE"]) > int(a["SEQUENCE"])
    assert str(b["STATUS"]) == "CANCELLED"


def test_ics_long_and_odd_text_is_folded_and_escaped() -> None:
    info = make_info(title="Semi; colon, comma \\ and a very long title " * 5, description="Line 1\nLine 2")
    data = ics.calendar_bytes([info], now=NOW)
    assert all(len(line) <= 75 for line in data.split(b"\r\n"))
    (event,) = _events(data)
    assert str(event["SUMMARY"]) == info.title
    assert "Line 1\nLine 2" in str(event["DESCRIPTION"])
