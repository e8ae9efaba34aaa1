"""The calendar file (bot/services/calendars/ics.py, built with icalendar): lines within 75 octets and whole
UTF-8, and hostile text (commas, semicolons, backslashes, line breaks, long unicode) read back by icalendar's
parser and by recurring-ical-events as typed, but for the two things icalendar writes otherwise."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

import icalendar
import pytest
import recurring_ical_events
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.services.calendars import ics
from bot.services.papers.store import PaperInfo
from bot.services.series.info import SeriesInfo, WeekInfo
from bot.services.series.rules import Rule
from bot.services.sessions.info import SessionInfo

NOW = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)
PIECES = [
    ",",
    ";",
    "\\",
    "\n",
    "\r\n",
    "\r",
    ":",
    "\\n",
    "\\,",
    "^",
    '"',
    "\t",
    " ",
    "é",
    "日本語の論文",
    "🎉",
    "x" * 80,
]
HOSTILE = st.one_of(
    st.text(st.characters(exclude_categories=("Cs",)), max_size=200),
    st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=12)), max_size=30).map("".join),
)


def info(n: int = 7, **kw: object) -> SessionInfo:
    start = kw.pop("starts_at", datetime(2026, 12, 3, 17, 30, tzinfo=UTC) + timedelta(days=n))
    assert isinstance(start, datetime)
    duration = kw.pop("duration_minutes", 60)
    assert isinstance(duration, int)
    base: dict[str, object] = dict(
        id=n,
        guild_id=99,
        title=f"Session {n}: environments, benchmarks; simulators",
        description=None,
        starts_at=start,
        ends_at=start + timedelta(minutes=duration),
        duration_minutes=duration,
        timezone="America/Los_Angeles",
        presenter_id=None,
        presenter_name=None,
        papers=[],
        signup_url=None,
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
    return SessionInfo(**base)  # type: ignore[arg-type]


def sessions() -> list[SessionInfo]:
    paper = PaperInfo(
        1,
        "arxiv:2401.12345",
        "arxiv",
        "Terminal-World, a benchmark",
        "https://arxiv.org/abs/2401.12345",
        "2401.12345",
        None,
    )
    return [
        info(1),
        info(
            2,
            presenter_name="Ada Lovelace",
            papers=[paper, PaperInfo(2, "t:x", "title", "Untitled", None, None, None)],
        ),
        info(3, status="cancelled", cancel_reason="Speaker ill; back next week", sequence=4),
        info(4, status="cancelled", sequence=1, signup_url="https://lu.ma/pc?x=1,2;3"),
        info(5, description="Line one\nLine two, with a comma; and a semicolon \\ backslash\r\nthird" * 4),
        info(
            6,
            title="論文の読書会 — 强化学习环境 🎉 " * 6,
            presenter_name="Zoë Ñúñez",
            recording_url="https://youtu.be/x",
            notes_url="https://n.example/a",
            wiki_url="https://w.example/b",
        ),
        info(7, title="x" * 73 + "\\" + "y" * 200, description="^" * 150),
        info(8, starts_at=datetime(2026, 12, 3, 17, 30, 45, 123456, tzinfo=UTC), sequence=12),
    ]


def series(
    zone: str = "America/Los_Angeles",
    *,
    sid: int = 1,
    until: date | None = None,
    title: str = "Thursday paper club",
) -> ics.SeriesCalendar:
    rule = Rule(weekday=3, start=time(9, 30), zone=zone, interval=1, anchor=date(2026, 12, 3), until=until)
    meta = SeriesInfo(
        sid,
        99,
        "Thursday paper club",
        rule,
        60,
        "https://lu.ma/pc",
        "Weekly; bring questions, please",
        2,
        None,
        None,
    )
    weeks = []
    for k in range(6):
        day = rule.anchor + timedelta(weeks=k)
        regular = rule.start_on(day)
        club = info(
            100 * sid + k,
            starts_at=regular,
            title="Thursday paper club",
            description="Weekly; bring questions, please",
        )
        status = "scheduled"
        if k == 1:
            club = info(
                100 * sid + k,
                starts_at=regular,
                title="Thursday paper club",
                presenter_name="Sam, the presenter",
            )
        elif k == 2:
            club = info(
                100 * sid + k,
                starts_at=regular - timedelta(hours=1, minutes=30),
                title="Thursday paper club",
                sequence=1,
            )
        elif k == 3:
            status = "skipped"
        elif k == 4:
            club = info(100 * sid + k, starts_at=regular, title=title, sequence=2)
        weeks.append(WeekInfo(day, status, regular, session=club))
    return ics.SeriesCalendar(meta, tuple(weeks))


def test_every_line_is_at_most_75_octets_and_whole_utf8() -> None:
    data = ics.calendar_bytes(sessions(), now=NOW, series=[series()])
    for line in data.split(b"\r\n"):
        assert len(line) <= 75
        line.decode("utf-8")  # never split inside a character


def _as_written(text: str) -> str:
    """What a TEXT value reads back as: as typed, but a backslash before ``N`` and CRLF and a lone CR are
    line breaks (LF), and a leading U+FEFF is dropped (what icalendar does, ics._vevent says)."""
    return text.replace("\\N", "\n").replace("\r\n", "\n").replace("\r", "\n").removeprefix("\ufeff")


def _one_line(text: str) -> str:
    return text.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(title=HOSTILE, description=HOSTILE, presenter=HOSTILE, reason=HOSTILE, name=HOSTILE)
def test_hostile_text_round_trips_through_icalendars_parser(
    title: str, description: str, presenter: str, reason: str, name: str
) -> None:
    one = info(
        1,
        title=title,
        description=description,
        presenter_name=presenter,
        status="cancelled",
        cancel_reason=reason,
    )
    repeating = series(title=title or "x")
    data = ics.calendar_bytes([one], now=NOW, name=name, series=[repeating])
    for line in data.split(b"\r\n"):
        assert len(line) <= 75
    calendar = icalendar.Calendar.from_ical(data)
    assert str(calendar["X-WR-CALNAME"]) == _one_line(name)  # not escaped, as icalendar writes it
    events = {
        (str(e["UID"]), "RECURRENCE-ID" in e, str(e.get("SUMMARY"))): e for e in calendar.walk("VEVENT")
    }
    (event,) = [e for (uid, _, _), e in events.items() if uid == ics.session_uid(one)]
    assert str(event["SUMMARY"]) == _as_written(title)
    assert str(event["DESCRIPTION"]) == _as_written(ics._description(one))
    assert str(event["STATUS"]) == "CANCELLED"
    # the week with its own title: one instance of the repeating event, as calendar apps expand it
    instances = recurring_ical_events.of(calendar).between(NOW, NOW + timedelta(weeks=8))
    titles = [str(e["SUMMARY"]) for e in instances if str(e["UID"]).startswith("series-")]
    assert _as_written(title or "x") in titles or (title or "x") == "Thursday paper club"


def test_typed_text_is_kept_but_a_backslash_n_and_a_leading_bom() -> None:
    """icalendar takes a typed backslash-N for a line break and drops a leading U+FEFF (ics._vevent)."""
    written = {
        "C:\\Old folder; a, b \\ c": "C:\\Old folder; a, b \\ c",
        "C:\\New folder": "C:\n" + "ew folder",  # a line break, then the rest
        "\ufeffStarts with a BOM": "Starts with a BOM",
        "Middle\ufeffBOM": "Middle\ufeffBOM",
    }
    for title, read_back in written.items():
        data = ics.calendar_bytes([info(1, title=title)], now=NOW)
        (event,) = icalendar.Calendar.from_ical(data).walk("VEVENT")
        assert str(event["SUMMARY"]) == read_back


def test_a_naive_time_is_refused_not_guessed() -> None:
    with pytest.raises(ValueError, match="naive"):
        ics.calendar_bytes([info(1, starts_at=datetime(2026, 12, 3, 17, 30))], now=NOW)
