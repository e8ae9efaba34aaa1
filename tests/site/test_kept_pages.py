"""The bot keeps built pages (``cache_seconds``), and every answer still reads the store's generation: a
change made by another process sharing the database shows at the next request, a kept body is reused
only while nothing it shows changed (same ETag, 304s), and a site turned off stops at once. (The
generation itself, table by table, and time alone: test_generations.py.)"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.services.site import config as site_config
from bot.services.site import feeds, render
from db.models import ClubSession, Paper, SessionPaper
from tests.site.conftest import Club

TITLE = "Building data recipes for terminal agents"


def _counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    calls: list[int] = []
    real: Callable[..., Any] = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


async def _get(http: TestClient, path: str) -> tuple[str, str]:
    answer = await http.get(path)
    assert answer.status == 200, path
    return await answer.text(), answer.headers["ETag"]


async def test_another_processs_change_shows_at_the_next_request(
    club: Club, kept: TestClient, other_process: async_sessionmaker[AsyncSession]
) -> None:
    async with other_process() as session:
        sid = await session.scalar(select(ClubSession.id).where(ClubSession.title == TITLE))
        paper_id = await session.scalar(
            select(SessionPaper.paper_id).where(SessionPaper.session_id == sid, SessionPaper.position == 0)
        )
    paths = [
        "/paper-club/",
        f"/paper-club/sessions/{sid}/",
        "/paper-club/calendar.ics",
        "/paper-club/feed.atom",
    ]
    before = {path: await _get(kept, path) for path in paths}
    assert before == {path: await _get(kept, path) for path in paths}  # nothing changed: the same bytes
    async with other_process() as session, session.begin():
        await session.execute(
            update(ClubSession)
            .where(ClubSession.id == sid)
            .values(title="Terminal agents renamed elsewhere", sequence=ClubSession.sequence + 1)
        )
        # arXiv's title arriving later touches the paper only, not the session's updated_at
        await session.execute(update(Paper).where(Paper.id == paper_id).values(title="TMax, as arXiv has it"))
    for path in paths:
        text, etag = await _get(kept, path)
        assert etag != before[path][1], path
        assert "Terminal agents renamed elsewhere" in text, path
    for path in paths[:2]:
        assert "TMax, as arXiv has it" in (await _get(kept, path))[0], path
    async with other_process() as session, session.begin():
        await site_config.set_about(session, club.guild_id, "Changed elsewhere", now=club.clock.now())
    assert "Changed elsewhere" in (await _get(kept, "/paper-club/"))[0]


async def test_a_kept_body_is_reused_only_while_the_store_gives_the_same_values(
    club: Club, kept: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    homes = _counting(monkeypatch, render, "home_html")
    calendars = _counting(monkeypatch, feeds, "ics_feed")
    first, etag = await _get(kept, "/paper-club/")
    assert (await _get(kept, "/paper-club/")) == (first, etag)
    assert len(homes) == 1
    not_modified = await kept.get("/paper-club/", headers={"If-None-Match": etag})
    assert not_modified.status == 304
    await _get(kept, "/paper-club/calendar.ics")
    await _get(kept, "/paper-club/calendar.ics")
    assert len(calendars) == 1
    await club.clock.advance(timedelta(days=20))  # 5 November has been read: the page differs
    later, later_etag = await _get(kept, "/paper-club/")
    assert len(homes) == 2
    assert later_etag != etag
    assert later != first


async def test_nothing_kept_outlives_opt_out(club: Club, kept: TestClient) -> None:
    await _get(kept, "/paper-club/")
    await _get(kept, "/paper-club/calendar.ics")
    async with club.session_factory() as session, session.begin():
        await site_config.set_website(
            session, club.guild_id, enabled=False, slug=None, title=None, now=club.clock.now()
        )
    for path in ("/paper-club/", "/paper-club/calendar.ics", "/paper-club/feed.atom"):
        assert (await kept.get(path)).status == 404, path
