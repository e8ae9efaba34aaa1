"""`where:` in the programme file: a voice or stage channel's id or a link, for a session and a series; stored,
exported and imported again unchanged; anything else refused with its line, nothing written (SQLite and
PostgreSQL)."""

from __future__ import annotations

import pytest
import yaml
from sqlalchemy import select

from bot.services.programme.document import ProgrammeInvalid
from bot.services.programme.files import export_text, import_text
from db.models import ClubSession
from db.models.series import Series

GUILD = 4242
ROOM = 1188000000000000001
FILE = f"""\
sessions:
  - title: In the reading room
    starts_at: 2026-11-05 08:00
    where: {ROOM}
  - title: On a call
    starts_at: 2026-11-12 08:00
    where: https://lu.ma/paperclub
series:
  - name: Thursday paper club
    day: Thursday
    time: "9:30"
    timezone: America/Los_Angeles
    first: 2026-12-03
    where: "<#{ROOM}>"
"""


async def _places(factory) -> dict[str, tuple[int | None, str | None]]:
    async with factory() as session:
        rows = await session.execute(
            select(ClubSession.title, ClubSession.channel_id, ClubSession.signup_url)
        )
        return {title: (channel_id, signup) for title, channel_id, signup in rows.tuples()}


async def test_where_is_a_channel_or_a_link_and_round_trips(session_factory) -> None:
    await import_text(session_factory, FILE, suffix=".yaml", guild_id=GUILD)
    assert await _places(session_factory) == {
        "In the reading room": (ROOM, None),
        "On a call": (None, "https://lu.ma/paperclub"),
    }
    async with session_factory() as session:
        assert await session.scalar(select(Series.channel_id)) == ROOM
    text = await export_text(session_factory, GUILD, suffix=".yaml")
    doc = yaml.safe_load(text)
    room = next(s for s in doc["sessions"] if s["title"] == "In the reading room")
    assert room["where"] == str(ROOM)
    assert doc["series"][0]["where"] == str(ROOM)
    _, report = await import_text(session_factory, text, suffix=".yaml", guild_id=GUILD)
    assert (report.sessions.changed, report.series.changed) == (0, 0)


@pytest.mark.parametrize(
    ("where", "said"),
    [
        ("general", "give a voice or stage channel's id"),
        ("javascript:alert(1)", "give a voice or stage channel's id"),
        ("12345", "give a voice or stage channel's id"),
    ],
)
async def test_a_bad_where_is_refused_with_its_line(session_factory, where: str, said: str) -> None:
    text = f"sessions:\n  - title: Somewhere\n    starts_at: 2026-11-05 08:00\n    where: {where}\n"
    with pytest.raises(ProgrammeInvalid) as raised:
        await import_text(session_factory, text, suffix=".yaml", guild_id=GUILD)
    (problem,) = raised.value.problems
    assert (problem.line, problem.where.endswith(".where"), said in problem.message) == (4, True, True)
    assert await _places(session_factory) == {}


async def test_a_link_given_twice_is_refused(session_factory) -> None:
    text = (
        "sessions:\n  - title: Twice\n    starts_at: 2026-11-05 08:00\n"
        "    where: https://a.example\n    signup_url: https://b.example\n"
    )
    with pytest.raises(ProgrammeInvalid) as raised:
        await import_text(session_factory, text, suffix=".yaml", guild_id=GUILD)
    assert "give the link once" in str(raised.value.problems)
