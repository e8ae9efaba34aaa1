"""Every answer is built from the store at the request: a change made by another process sharing the
database (its own engine, as far as the site's handlers can tell) shows at the next request, each kind of
data a page or feed shows included; time alone moves a session from "Next sessions" to "Reading so far"
and out of calendar.ics; a site turned off stops at once. The answers' ETag (a hash of the body), 304s and
Cache-Control, route by route."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from aiohttp.test_utils import TestClient
from icalendar import Calendar
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.services.config.guild import update_config
from bot.services.site import config as site_config
from db.models import ClubSession, Paper, SessionPaper, SessionSubscription
from db.models.core import SiteSettings
from db.models.reading import ReadingList, ReadingListItem
from db.models.series import Series
from db.models.suggestions import Suggestion, SuggestionVote
from tests.site.conftest import Club

Factory = async_sessionmaker[AsyncSession]
NOV5 = "Building data recipes for terminal agents"
OCT16 = "Sandbox infrastructure for environments at scale"


async def _get(http: TestClient, path: str) -> tuple[str, str]:
    answer = await http.get(path)
    assert answer.status == 200, path
    return await answer.text(), answer.headers["ETag"]


async def _session_id(factory: Factory, title: str) -> int:
    async with factory() as session:
        found = await session.scalar(select(ClubSession.id).where(ClubSession.title == title))
    assert found is not None
    return found


async def _write(factory: Factory, change: Callable[[AsyncSession], Awaitable[Any]]) -> None:
    async with factory() as s, s.begin():
        await change(s)


# ---------------------------------------------------------------- another process's writes


async def test_another_processs_change_shows_at_the_next_request(
    club: Club, served: TestClient, other_process: Factory
) -> None:
    async with other_process() as session:
        sid = await session.scalar(select(ClubSession.id).where(ClubSession.title == NOV5))
        paper_id = await session.scalar(
            select(SessionPaper.paper_id).where(SessionPaper.session_id == sid, SessionPaper.position == 0)
        )
    paths = [
        "/paper-club/",
        f"/paper-club/sessions/{sid}/",
        "/paper-club/calendar.ics",
        "/paper-club/feed.atom",
    ]
    before = {path: await _get(served, path) for path in paths}
    assert before == {path: await _get(served, path) for path in paths}  # nothing changed: the same bytes
    async with other_process() as session, session.begin():
        await session.execute(
            update(ClubSession)
            .where(ClubSession.id == sid)
            .values(title="Terminal agents renamed elsewhere", sequence=ClubSession.sequence + 1)
        )
        # arXiv's title arriving later touches the paper only, not the session's updated_at
        await session.execute(update(Paper).where(Paper.id == paper_id).values(title="TMax, as arXiv has it"))
    for path in paths:
        text, etag = await _get(served, path)
        assert etag != before[path][1], path
        assert "Terminal agents renamed elsewhere" in text, path
    for path in paths[:2]:
        assert "TMax, as arXiv has it" in (await _get(served, path))[0], path
    async with other_process() as session, session.begin():
        await site_config.set_about(session, club.guild_id, "Changed elsewhere", now=club.clock.now())
    assert "Changed elsewhere" in (await _get(served, "/paper-club/"))[0]


async def test_each_kind_of_shown_data_changes_the_next_answer(
    club: Club, served: TestClient, other_process: Factory
) -> None:
    sid = await _session_id(club.session_factory, NOV5)
    home, page, ics, atom = (
        "/paper-club/",
        f"/paper-club/sessions/{sid}/",
        "/paper-club/calendar.ics",
        "/paper-club/feed.atom",
    )
    async with club.session_factory() as s:
        list_id = await s.scalar(select(ReadingList.id).where(ReadingList.guild_id == club.guild_id).limit(1))
        paper_id = await s.scalar(select(Paper.id).where(Paper.guild_id == club.guild_id).order_by(Paper.id))
        extra = await s.scalar(
            select(Paper.id).where(Paper.guild_id == club.guild_id).order_by(Paper.id.desc())
        )
    listed = f"/paper-club/lists/{list_id}/"

    async def shortlist(s: AsyncSession) -> None:
        s.add(
            Suggestion(
                guild_id=club.guild_id,
                paper_id=paper_id,
                submitter_id=7,
                status="shortlisted",
                reason="Shortlisted elsewhere",
            )
        )

    async def vote(s: AsyncSession) -> None:
        found = await s.scalar(select(Suggestion.id).where(Suggestion.guild_id == club.guild_id))
        s.add_all(SuggestionVote(suggestion_id=found, user_id=u) for u in (1, 2, 3))

    async def link_paper(s: AsyncSession) -> None:
        await s.execute(update(Paper).where(Paper.id == extra).values(title="A paper linked elsewhere"))
        s.add(SessionPaper(session_id=sid, paper_id=extra, position=9))

    async def series(s: AsyncSession) -> None:
        s.add(
            Series(
                guild_id=club.guild_id,
                name="Thursdays",
                name_key="thursdays",
                weekday=3,
                start_time="09:30",
                timezone="America/Los_Angeles",
                interval=1,
                first_date=date(2026, 11, 26),
                anchor_date=date(2026, 11, 26),
            )
        )

    changes: list[tuple[str, Callable[[AsyncSession], Awaitable[Any]], list[str], str | None]] = [
        (
            "list name",
            lambda s: s.execute(
                update(ReadingList).where(ReadingList.id == list_id).values(name="Renamed list elsewhere")
            ),
            [home, listed],
            "Renamed list elsewhere",
        ),
        (
            "list note",
            lambda s: s.execute(
                update(ReadingListItem)
                .where(ReadingListItem.list_id == list_id)
                .values(note="A note elsewhere")
            ),
            [listed],
            "A note elsewhere",
        ),
        ("shortlist", shortlist, [home], "Shortlisted elsewhere"),
        ("votes", vote, [home], None),
        (
            "topics",
            lambda s: update_config(s, club.guild_id, suggestion_topics="robot soccer;other"),
            [home],
            "robot soccer",
        ),
        (
            "zones",
            lambda s: update_config(s, club.guild_id, display_zones="Asia/Tokyo=JST"),
            [home, page, atom],
            "JST",
        ),
        ("session paper", link_paper, [home, page, ics, atom], "A paper linked elsewhere"),
        (
            "cancelled",
            lambda s: s.execute(
                update(ClubSession)
                .where(ClubSession.id == sid)
                .values(status="cancelled", cancel_reason="Called off elsewhere")
            ),
            [page, ics, atom],
            None,
        ),
        ("series", series, [ics], None),
        (
            "site title",
            lambda s: s.execute(
                update(SiteSettings)
                .where(SiteSettings.guild_id == club.guild_id)
                .values(title="Retitled elsewhere")
            ),
            [home, page, ics, atom],
            "Retitled elsewhere",
        ),
    ]
    for name, change, paths, shown in changes:
        before = {path: await _get(served, path) for path in paths}
        await _write(other_process, change)
        for path in paths:
            text, etag = await _get(served, path)
            assert etag != before[path][1], (name, path)
            if shown is not None:
                assert shown in (text.replace("\r\n ", "") if path == ics else text), (name, path)


async def test_a_site_turned_off_stops_at_once(
    club: Club, served: TestClient, other_process: Factory
) -> None:
    for path in ("/paper-club/", "/paper-club/calendar.ics", "/paper-club/feed.atom"):
        await _get(served, path)
    async with other_process() as session, session.begin():
        await site_config.set_website(
            session, club.guild_id, enabled=False, slug=None, title=None, now=club.clock.now()
        )
    for path in ("/paper-club/", "/paper-club/calendar.ics", "/paper-club/feed.atom"):
        assert (await served.get(path)).status == 404, path


# ---------------------------------------------------------------- time alone


def _section(html: str, heading: str) -> str:
    """The text of the home page's section under ``<h2 id="heading">`` (up to the next heading)."""
    start = html.index(f'<h2 id="{heading}">')
    end = html.find("<h2 ", start + 1)
    return html[start : end if end != -1 else None]


async def test_time_alone_moves_a_session_from_next_to_reading_so_far(club: Club, served: TestClient) -> None:
    html, etag = await _get(served, "/paper-club/")
    assert NOV5 in _section(html, "next")
    assert NOV5 not in _section(html, "read")
    starts = datetime(2026, 11, 5, 16, 0, tzinfo=UTC)  # 8:00 AM PT, an hour
    await club.clock.advance(starts - timedelta(seconds=1) - club.clock.now())
    assert await _get(served, "/paper-club/") == (html, etag)  # nothing changes before it starts
    await club.clock.advance(timedelta(seconds=1) + timedelta(minutes=60))  # it has ended
    html, later = await _get(served, "/paper-club/")
    assert later != etag
    assert NOV5 not in _section(html, "next")
    assert NOV5 in _section(html, "read")


async def test_time_alone_moves_a_session_out_of_the_calendar(club: Club, served: TestClient) -> None:
    def summaries(body: str) -> set[str]:
        return {str(e.get("SUMMARY")) for e in Calendar.from_ical(body).walk("VEVENT")}

    assert OCT16 in summaries((await _get(served, "/paper-club/calendar.ics"))[0])
    # dated only (the club gave no time): kept at midday PT, so it leaves 90 days after that
    leaves = datetime(2026, 10, 16, 19, 0, tzinfo=UTC) + timedelta(days=90)
    await club.clock.advance(leaves - club.clock.now() - timedelta(minutes=1))
    assert OCT16 in summaries((await _get(served, "/paper-club/calendar.ics"))[0])
    await club.clock.advance(timedelta(minutes=2))
    assert OCT16 not in summaries((await _get(served, "/paper-club/calendar.ics"))[0])


async def test_a_session_page_follows_its_session_ending(club: Club, served: TestClient) -> None:
    sid = await _session_id(club.session_factory, NOV5)
    async with club.session_factory() as s, s.begin():
        await s.execute(update(ClubSession).where(ClubSession.id == sid).values(signup_url="https://lu.ma/x"))
    path = f"/paper-club/sessions/{sid}/"
    assert 'class="signup button"' in (await _get(served, path))[0]
    await club.clock.advance(datetime(2026, 11, 5, 17, 0, tzinfo=UTC) - club.clock.now())
    assert 'class="signup' not in (await _get(served, path))[0]  # no sign-up once it took place


# ---------------------------------------------------------------- ETag, 304, Cache-Control


async def test_each_route_answers_etag_304_and_cache_control(club: Club, served: TestClient) -> None:
    sid = await _session_id(club.session_factory, NOV5)
    async with club.session_factory() as s, s.begin():
        list_id = await s.scalar(select(ReadingList.id).where(ReadingList.guild_id == club.guild_id).limit(1))
        s.add(SessionSubscription(session_id=sid, user_id=77, before_minutes=60))
        issued = await site_config.issue(s, club.guild_id, 77, now=club.clock.now(), reset=False)
    expected = {
        "/paper-club/": "public, max-age=60",
        f"/paper-club/sessions/{sid}/": "public, max-age=60",
        f"/paper-club/lists/{list_id}/": "public, max-age=60",
        "/paper-club/past/": "public, max-age=60",
        "/paper-club/search?q=environments": "public, max-age=60",
        "/paper-club/calendar.ics": "public, max-age=300",
        "/paper-club/feed.atom": "public, max-age=300",
        f"/paper-club/calendar/{issued.token}.ics": "private, max-age=300",
    }
    for path, cache in expected.items():
        answer = await served.get(path)
        assert answer.status == 200, path
        body = await answer.read()
        etag = answer.headers["ETag"]
        assert etag == '"' + hashlib.sha256(body).hexdigest()[:40] + '"', path  # strong: no W/
        assert answer.headers["Cache-Control"] == cache, path
        again = await served.get(path, headers={"If-None-Match": etag})
        assert again.status == 304, path
        assert await again.read() == b""
        assert (again.headers["ETag"], again.headers["Cache-Control"]) == (etag, cache), path
        other = await served.get(path, headers={"If-None-Match": '"someone-elses"'})
        assert other.status == 200, path
        assert await other.read() == body, path
    assert (await served.get("/no-such-club/")).headers["Cache-Control"] == "no-cache"


async def test_an_old_etag_gets_the_new_body_after_a_change(
    club: Club, served: TestClient, other_process: Factory
) -> None:
    _, etag = await _get(served, "/paper-club/")
    async with other_process() as session, session.begin():
        await site_config.set_about(session, club.guild_id, "Now on Fridays", now=club.clock.now())
    answer = await served.get("/paper-club/", headers={"If-None-Match": etag})
    assert answer.status == 200
    assert answer.headers["ETag"] != etag
    assert "Now on Fridays" in await answer.text()
