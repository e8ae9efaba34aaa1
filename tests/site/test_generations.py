"""The guild's content generation (migration 0015) and what the kept pages make of it, on both stores.

Writes go through an engine of their own (another bot process, as far as the site's handlers can tell):
each kind of data a page or feed shows moves the generation, so the next answer shows it; an unchanged
page costs one read; time alone moves a session from "Next sessions" to "Reading so far" and a session
out of calendar.ics with no write at all.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from types import SimpleNamespace
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from aiohttp.test_utils import TestClient
from icalendar import Calendar
from sqlalchemy import delete, event, insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.services.setup.config import update_config
from bot.services.site import config as site_config
from bot.services.site import render
from bot.services.site.feed_reads import calendar_changes_at
from bot.services.site.kept import next_quarter_hour, soonest, year_turns
from db.migrate import upgrade_database
from db.models import ClubSession, Paper, SessionPaper
from db.models.reading import ReadingList, ReadingListItem
from db.models.series import Series, SeriesSettings, SeriesWeek
from db.models.site import SiteSettings
from db.models.suggestions import Suggestion, SuggestionVote
from db.site_generations import GUILD_OF, _existing, trigger_names
from tests.site.conftest import OTHER_GUILD, Club, enable_site, import_club

Factory = async_sessionmaker[AsyncSession]
NOV5 = "Building data recipes for terminal agents"
OCT16 = "Sandbox infrastructure for environments at scale"


async def _text(http: TestClient, path: str) -> tuple[str, str]:
    answer = await http.get(path)
    assert answer.status == 200, path
    return await answer.text(), answer.headers["ETag"]


async def _generation(factory: Factory, slug: str = "paper-club") -> int:
    async with factory() as session:
        live = await site_config.live_site(session, slug)
    assert live is not None
    return live.generation


@contextmanager
def _statements(engine: AsyncEngine) -> Iterator[list[str]]:
    seen: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(statement)

    event.listen(engine.sync_engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", record)


async def _session_id(factory: Factory, title: str) -> int:
    async with factory() as session:
        found = await session.scalar(select(ClubSession.id).where(ClubSession.title == title))
    assert found is not None
    return found


# ---------------------------------------------------------------- the generation, table by table


async def _a_paper(s: AsyncSession, guild_id: int) -> int:
    found = await s.scalar(select(Paper.id).where(Paper.guild_id == guild_id).order_by(Paper.id).limit(1))
    assert found is not None
    return found


async def _a_suggestion(s: AsyncSession, guild_id: int) -> int:
    paper = await _a_paper(s, guild_id)
    row = Suggestion(guild_id=guild_id, paper_id=paper, submitter_id=7, status="shortlisted")
    s.add(row)
    await s.flush()
    return row.id


def _series(guild_id: int) -> Series:
    return Series(
        guild_id=guild_id,
        name="Thursdays",
        name_key="thursdays",
        weekday=3,
        start_time="09:30",
        timezone="America/Los_Angeles",
        interval=1,
        first_date=date(2026, 11, 26),
        anchor_date=date(2026, 11, 26),
    )


async def _a_series(s: AsyncSession, guild_id: int) -> int:
    row = _series(guild_id)
    s.add(row)
    await s.flush()
    return row.id


async def _write_sessions(s: AsyncSession, g: int, _: Any) -> None:
    await s.execute(
        update(ClubSession).where(ClubSession.guild_id == g).values(title=ClubSession.title + "!")
    )


async def _write_session_papers(s: AsyncSession, g: int, _: Any) -> None:
    sid = await s.scalar(select(ClubSession.id).where(ClubSession.guild_id == g).limit(1))
    await s.execute(delete(SessionPaper).where(SessionPaper.session_id == sid))


async def _write_papers(s: AsyncSession, g: int, _: Any) -> None:
    await s.execute(update(Paper).where(Paper.id == await _a_paper(s, g)).values(title="Renamed"))


async def _write_reading_lists(s: AsyncSession, g: int, _: Any) -> None:
    await s.execute(update(ReadingList).where(ReadingList.guild_id == g).values(description="Changed"))


async def _write_reading_list_items(s: AsyncSession, g: int, _: Any) -> None:
    lists = select(ReadingList.id).where(ReadingList.guild_id == g).scalar_subquery()
    await s.execute(update(ReadingListItem).where(ReadingListItem.list_id.in_(lists)).values(note="Noted"))


async def _write_suggestions(s: AsyncSession, g: int, _: Any) -> None:
    await _a_suggestion(s, g)


async def _write_suggestion_votes(s: AsyncSession, g: int, made: Any) -> None:
    await s.execute(insert(SuggestionVote).values(suggestion_id=made, user_id=99))


async def _write_series(s: AsyncSession, g: int, _: Any) -> None:
    await _a_series(s, g)


async def _write_series_weeks(s: AsyncSession, g: int, made: Any) -> None:
    s.add(SeriesWeek(series_id=made, guild_id=g, week_date=date(2026, 11, 26)))


async def _write_series_settings(s: AsyncSession, g: int, _: Any) -> None:
    s.add(SeriesSettings(guild_id=g, horizon_weeks=3, nudge_days=2))


async def _write_guild_settings(s: AsyncSession, g: int, _: Any) -> None:
    await update_config(s, g, display_zones="UTC")


async def _write_site_settings(s: AsyncSession, g: int, _: Any) -> None:
    await s.execute(update(SiteSettings).where(SiteSettings.guild_id == g).values(title="Renamed club"))


Setup = Callable[[AsyncSession, int], Awaitable[Any]] | None
WRITES: dict[str, tuple[Setup, Callable[[AsyncSession, int, Any], Awaitable[None]]]] = {
    "sessions": (None, _write_sessions),
    "session_papers": (None, _write_session_papers),
    "papers": (None, _write_papers),
    "reading_lists": (None, _write_reading_lists),
    "reading_list_items": (None, _write_reading_list_items),
    "suggestions": (None, _write_suggestions),
    "suggestion_votes": (_a_suggestion, _write_suggestion_votes),
    "series": (None, _write_series),
    "series_weeks": (_a_series, _write_series_weeks),
    "series_settings": (None, _write_series_settings),
    "guild_settings": (None, _write_guild_settings),
    "site_settings": (None, _write_site_settings),
}


def test_every_followed_table_has_a_write() -> None:
    assert set(GUILD_OF) == set(WRITES)


async def test_a_dropped_trigger_is_put_back_by_the_next_upgrade(
    club: Club, engine: AsyncEngine, other_process: Factory
) -> None:
    """A SQLite batch rebuild of a table (another branch's migration) drops its triggers."""
    name = "sg_sessions" if engine.dialect.name == "postgresql" else "sg_sessions_update"
    async with engine.begin() as conn:
        on = " ON sessions" if engine.dialect.name == "postgresql" else ""
        await conn.execute(text(f"DROP TRIGGER {name}{on}"))
    before = await _generation(club.session_factory)
    await _write(other_process, lambda s: _write_sessions(s, club.guild_id, None))
    assert await _generation(club.session_factory) == before  # the hole this closes
    await upgrade_database(engine)
    async with engine.connect() as conn:
        assert await conn.run_sync(lambda c: trigger_names(c.dialect.name) <= _existing(c)[1])
    await _write(other_process, lambda s: _write_sessions(s, club.guild_id, None))
    assert await _generation(club.session_factory) > before


@pytest.mark.parametrize("table", list(WRITES))
async def test_a_write_to_what_the_site_shows_moves_only_its_guilds_generation(
    club: Club, other_process: Factory, table: str
) -> None:
    await import_club(club.session_factory, OTHER_GUILD)
    await enable_site(club.session_factory, OTHER_GUILD, "other-club")
    setup, write = WRITES[table]
    made = None
    if setup is not None:
        async with other_process() as s, s.begin():
            made = await setup(s, club.guild_id)
    ours, theirs = (
        await _generation(club.session_factory),
        await _generation(club.session_factory, "other-club"),
    )
    async with other_process() as s:  # rolled back: nothing moves
        transaction = await s.begin()
        await write(s, club.guild_id, made)
        await s.flush()
        await transaction.rollback()
    assert await _generation(club.session_factory) == ours
    async with other_process() as s, s.begin():
        await write(s, club.guild_id, made)
    assert await _generation(club.session_factory) > ours
    assert await _generation(club.session_factory, "other-club") == theirs


async def test_a_bulk_write_moves_the_generation_once_on_postgresql(
    club: Club, other_process: Factory, store_info: Any
) -> None:
    before = await _generation(club.session_factory)
    async with other_process() as s, s.begin():
        await s.execute(
            insert(Paper),
            [
                {"guild_id": club.guild_id, "key": f"title:bulk {i}", "kind": "title", "title": f"Bulk {i}"}
                | {"normalized_title": f"bulk {i}"}
                for i in range(50)
            ],
        )
    moved = await _generation(club.session_factory) - before
    assert moved == (1 if store_info.backend == "postgresql" else 50)


# ---------------------------------------------------------------- the pages


async def test_an_unchanged_page_costs_one_read(club: Club, kept: TestClient, engine: AsyncEngine) -> None:
    sid = await _session_id(club.session_factory, NOV5)
    paths = [
        "/paper-club/",
        f"/paper-club/sessions/{sid}/",
        "/paper-club/calendar.ics",
        "/paper-club/feed.atom",
    ]
    first = {path: await _text(kept, path) for path in paths}
    for path in paths:
        with _statements(engine) as seen:
            assert await _text(kept, path) == first[path], path
        reads = [q for q in seen if q.split(None, 1)[0].upper() not in ("BEGIN", "COMMIT", "ROLLBACK")]
        assert len(reads) == 1, (path, reads)
        assert "site_generations" in reads[0]


async def _write(factory: Factory, change: Callable[[AsyncSession], Awaitable[Any]]) -> None:
    async with factory() as s, s.begin():
        await change(s)


async def test_each_kind_of_shown_data_changes_the_next_answer(
    club: Club, kept: TestClient, other_process: Factory
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
        paper_id = await _a_paper(s, club.guild_id)
        extra = await s.scalar(
            select(Paper.id).where(Paper.guild_id == club.guild_id).order_by(Paper.id.desc())
        )
    listed = f"/paper-club/lists/{list_id}/"

    async def shortlist(s: AsyncSession) -> None:
        made = Suggestion(
            guild_id=club.guild_id,
            paper_id=paper_id,
            submitter_id=7,
            status="shortlisted",
            reason="Shortlisted elsewhere",
        )
        s.add(made)

    async def vote(s: AsyncSession) -> None:
        found = await s.scalar(select(Suggestion.id).where(Suggestion.guild_id == club.guild_id))
        s.add_all(SuggestionVote(suggestion_id=found, user_id=u) for u in (1, 2, 3))

    async def link_paper(s: AsyncSession) -> None:
        await s.execute(update(Paper).where(Paper.id == extra).values(title="A paper linked elsewhere"))
        s.add(SessionPaper(session_id=sid, paper_id=extra, position=9))

    async def series(s: AsyncSession) -> None:
        s.add(_series(club.guild_id))

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
        before = {path: await _text(kept, path) for path in paths}
        await _write(other_process, change)
        for path in paths:
            text, etag = await _text(kept, path)
            assert etag != before[path][1], (name, path)
            if shown is not None and path != ics:
                assert shown in text, (name, path)
            elif shown is not None:
                assert shown in text.replace("\r\n ", ""), (name, path)


# ---------------------------------------------------------------- time alone


def _section(html: str, heading: str) -> str:
    """The text of the home page's section under ``<h2 id="heading">`` (up to the next heading)."""
    start = html.index(f'<h2 id="{heading}">')
    end = html.find("<h2 ", start + 1)
    return html[start : end if end != -1 else None]


async def test_time_alone_moves_a_session_from_next_to_reading_so_far(
    club: Club, kept: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[int] = []
    real = render.home_html
    monkeypatch.setattr(render, "home_html", lambda *a, **k: built.append(1) or real(*a, **k))
    html, _ = await _text(kept, "/paper-club/")
    assert NOV5 in _section(html, "next")
    assert NOV5 not in _section(html, "read")
    starts = datetime(2026, 11, 5, 16, 0, tzinfo=UTC)  # 8:00 AM PT, an hour
    await club.clock.advance(starts - timedelta(seconds=1) - club.clock.now())
    assert (await _text(kept, "/paper-club/"))[0] == html
    assert len(built) == 1  # nothing changes before it starts: the kept body, no build
    await club.clock.advance(timedelta(seconds=1) + timedelta(minutes=60))  # it has ended
    html, _ = await _text(kept, "/paper-club/")
    assert NOV5 not in _section(html, "next")
    assert NOV5 in _section(html, "read")
    assert len(built) == 2  # rebuilt once, with no write: its start was the page's next change


async def test_time_alone_moves_a_session_out_of_the_calendar(club: Club, kept: TestClient) -> None:
    def summaries(body: str) -> set[str]:
        return {str(e.get("SUMMARY")) for e in Calendar.from_ical(body).walk("VEVENT")}

    assert OCT16 in summaries((await _text(kept, "/paper-club/calendar.ics"))[0])
    leaves = datetime(2026, 10, 16, 16, 30, tzinfo=UTC) + timedelta(days=90)  # 9:30 AM PT + 90 days
    await club.clock.advance(leaves - club.clock.now() - timedelta(minutes=1))
    assert OCT16 in summaries((await _text(kept, "/paper-club/calendar.ics"))[0])
    await club.clock.advance(timedelta(minutes=2))
    assert OCT16 not in summaries((await _text(kept, "/paper-club/calendar.ics"))[0])


async def test_a_session_page_follows_its_session_ending(club: Club, kept: TestClient) -> None:
    sid = await _session_id(club.session_factory, NOV5)
    async with club.session_factory() as s, s.begin():
        await s.execute(update(ClubSession).where(ClubSession.id == sid).values(signup_url="https://lu.ma/x"))
    path = f"/paper-club/sessions/{sid}/"
    assert 'class="signup"' in (await _text(kept, path))[0]
    await club.clock.advance(datetime(2026, 11, 5, 17, 0, tzinfo=UTC) - club.clock.now())
    assert 'class="signup"' not in (await _text(kept, path))[0]  # no sign-up once it took place


def test_the_instants_time_alone_changes_a_page() -> None:
    now = datetime(2026, 12, 31, 23, 50, tzinfo=UTC)
    assert next_quarter_hour(now) == datetime(2027, 1, 1, 0, 0, tzinfo=UTC)
    assert next_quarter_hour(datetime(2027, 1, 1, 0, 0, tzinfo=UTC)) == datetime(
        2027, 1, 1, 0, 15, tzinfo=UTC
    )
    # The new year in Los Angeles comes eight hours after London's.
    assert year_turns(now, ZoneInfo("America/Los_Angeles")) == datetime(2027, 1, 1, 8, 0, tzinfo=UTC)
    assert soonest(
        now, (None, now, now - timedelta(1), now + timedelta(2), now + timedelta(1))
    ) == now + timedelta(1)
    assert soonest(now, (None, now)) is None


def test_calendar_ics_changes_the_instant_after_its_oldest_session_leaves() -> None:
    oldest = SimpleNamespace(starts_at=datetime(2026, 10, 16, 16, 30, tzinfo=UTC))
    at_the_edge = oldest.starts_at + timedelta(days=90)  # still in (starts_at >= now - 90 days)
    changes = calendar_changes_at([oldest], at_the_edge, series=False)  # type: ignore[list-item]
    assert changes == at_the_edge + timedelta(microseconds=1)
    assert calendar_changes_at([], at_the_edge, series=False) is None
    assert calendar_changes_at([], at_the_edge, series=True) == next_quarter_hour(at_the_edge)
