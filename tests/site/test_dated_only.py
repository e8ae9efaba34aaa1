"""Sessions the club dated without a time (the page's "Reading so far"): a programme gives the date alone,
and the session shows its date only everywhere: the pages, the feeds, the session info Discord's cards
read (and the card's time line), the paper history; an export writes the date back. A date alone for a
session to come is refused: it gets a Discord event and reminders, which need its time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import icalendar
import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import timeutil
from bot.services.papers.queries import paper_history
from bot.services.programme.checks import ProgrammeInvalid
from bot.services.programme.files import export_text, import_text
from bot.services.sessions.rules import session_changes
from bot.services.sessions.store import edit_session, get_session
from cogs.sessions._render import club_time, when_text
from db.models import ClubSession, Paper
from tests.reading.conftest import snapshot
from tests.site.conftest import OCTOBER, Club
from tests.site.helpers import text_of

OCT16 = "Sandbox infrastructure for environments at scale"
ONE = """\
settings:
  timezone: America/Los_Angeles
sessions:
  - title: Old reading
    starts_at: {start}
    papers: [DSec]
"""


async def _row(factory: async_sessionmaker[AsyncSession], title: str) -> ClubSession:
    async with factory() as session:
        row = await session.scalar(select(ClubSession).where(ClubSession.title == title))
        assert row is not None
        return row


async def test_a_date_alone_imports_dated_only_and_exports_back(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    await import_text(session_factory, ONE.format(start="2026-10-16 09:30"), suffix=".yaml", guild_id=3)
    timed = await _row(session_factory, "Old reading")
    _, report = await import_text(session_factory, ONE.format(start="2026-10-16"), suffix=".yaml", guild_id=3)
    assert (report.sessions.new, report.sessions.changed) == (0, 1)  # the same session, now dated only
    row = await _row(session_factory, "Old reading")
    assert row.id == timed.id
    assert row.date_only
    assert row.starts_at == datetime(2026, 10, 16, 19, 0, tzinfo=UTC)  # midday PT: the same date everywhere
    exported = await export_text(session_factory, 3, suffix=".yaml")
    assert "starts_at: '2026-10-16'" in exported
    before = await snapshot(session_factory)
    _, again = await import_text(session_factory, exported, suffix=".yaml", guild_id=3)
    assert not again.changed_anything
    assert await snapshot(session_factory) == before


@pytest.mark.parametrize(
    ("start", "message"),
    [
        ("today", "is today or to come: give its time too"),
        ("next week", "is today or to come: give its time too"),
        ("2026-02-30", "is not a date"),
    ],
)
async def test_a_date_alone_for_a_session_to_come_is_refused(
    session_factory: async_sessionmaker[AsyncSession], start: str, message: str
) -> None:
    today = datetime.now(UTC).astimezone(timeutil.resolve_timezone("America/Los_Angeles")).date()
    given = {"today": today, "next week": today + timedelta(days=7)}.get(start, start)
    with pytest.raises(ProgrammeInvalid) as refused:
        await import_text(session_factory, ONE.format(start=given), suffix=".yaml", guild_id=3)
    (problem,) = refused.value.problems
    assert (problem.line, problem.where) == (5, "sessions[1] (“Old reading”).starts_at")
    assert message in problem.message
    assert not any((await snapshot(session_factory)).values())  # nothing written


async def test_pages_and_feeds_show_the_date_only(client: TestClient, club: Club) -> None:
    row = await _row(club.session_factory, OCT16)
    home = text_of(await (await client.get("/paper-club/")).text())
    assert f"16 October — {OCT16}." in home
    page = text_of((await (await client.get(f"/paper-club/sessions/{row.id}/")).text()).split("<main")[1])
    assert "Friday 16 October" in page
    assert not any(mark in page for mark in (" AM", " PM", "Your time", "hour"))
    past = text_of(await (await client.get("/paper-club/past/")).text())
    assert "16 October — Sandbox" in past
    calendar = icalendar.Calendar.from_ical(await (await client.get("/paper-club/calendar.ics")).read())
    (event,) = [e for e in calendar.walk("VEVENT") if str(e["SUMMARY"]) == OCT16]
    assert event["DTSTART"].params["VALUE"] == "DATE"  # an all-day event on its day
    assert event["DTSTART"].dt.isoformat() == "2026-10-16"
    assert event["DTEND"].dt.isoformat() == "2026-10-17"
    atom = (await (await client.get("/paper-club/feed.atom")).read()).decode()
    assert "Friday 16 October\nDSec, the sandbox platform" in atom


async def test_discord_cards_and_the_paper_history_see_the_date_only(club: Club) -> None:
    row = await _row(club.session_factory, OCT16)
    async with club.session_factory() as session:
        info = await get_session(session, row.guild_id, row.id)
        dsec = await session.scalar(select(Paper.id).where(Paper.title == "DSec"))
        assert dsec is not None
        history = await paper_history(session, row.guild_id, dsec)
    assert info.date_only
    zones = timeutil.DEFAULT_DISPLAY_ZONES
    assert club_time(info, zones, OCTOBER) == "Friday 16 October"
    assert when_text(info, zones, OCTOBER) == "Friday 16 October"  # no <t:…> stamp of a time never given
    (read,) = history.sessions
    assert read.date_only
    async with club.session_factory() as session, session.begin():  # an organizer gives it a time
        changes = session_changes(now=OCTOBER, session_zone=info.timezone, when="2026-11-26 09:30")
        edited = await edit_session(session, row.guild_id, row.id, changes, now=OCTOBER)
    assert not edited.info.date_only
    assert "starts_at" in edited.changed
    assert club_time(edited.info, zones, OCTOBER).endswith("9:30 AM PT / 5:30 PM GMT / 11:00 PM IST")


def test_the_club_date() -> None:
    now = datetime(2026, 10, 20, 12, tzinfo=UTC)
    tz = timeutil.resolve_timezone("America/Los_Angeles")
    assert timeutil.club_date(datetime(2026, 12, 3, 17, 30, tzinfo=UTC), tz, now=now) == "Thursday 3 December"
    assert (
        timeutil.club_date(datetime(2027, 1, 7, 17, 30, tzinfo=UTC), tz, now=now) == "Thursday 7 January 2027"
    )
    assert (
        timeutil.club_date(datetime(2026, 10, 16, 19, tzinfo=UTC), "PT", now=now, weekday=False)
        == "16 October"
    )
    # dated in the zone: 1 AM UTC on 1 January is still 31 December in PT, last year
    assert (
        timeutil.club_date(datetime(2026, 1, 1, 1, tzinfo=UTC), tz, now=now) == "Wednesday 31 December 2025"
    )
    london = timeutil.DisplayZone("Europe/London")
    assert timeutil.zone_names(london, 2026) == "GMT/BST"
    assert timeutil.zone_names(timeutil.DisplayZone("Asia/Kolkata"), 2026) == "IST"
    assert timeutil.zone_names(timeutil.DisplayZone("America/Los_Angeles", "PT"), 2026) == "PT"
