"""A session's papers' roles in the programme file: ``papers`` (the main ones) and ``against`` (read against
them), checked, stored as session_papers roles, and round-tripped by export/import (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
import yaml
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from bot.services.programme.document import ProgrammeInvalid
from bot.services.programme.files import export_text, import_text
from db.models import ClubSession
from tests.reading.conftest import GUILD, without_website

TMAX = "Building data recipes for terminal agents"


async def roles(factory, title: str = TMAX, guild_id: int = GUILD) -> list[tuple[str, str]]:
    async with factory() as session:
        row = await session.scalar(
            select(ClubSession)
            .where(ClubSession.guild_id == guild_id, ClubSession.title == title)
            .options(selectinload(ClubSession.papers))
        )
        assert row is not None
        return [(link.paper.title, link.role) for link in row.papers]


def one_session(papers: str) -> str:
    return f"sessions:\n  - title: Roles\n    starts_at: 2026-11-05 08:00\n{papers}"


async def test_the_club_file_reads_tmax_against_terminal_world_and_t1(club) -> None:
    assert await roles(club) == [("TMax", "main"), ("Terminal-World", "against"), ("T1", "against")]
    assert await roles(club, "User models and user simulators") == [
        ("Persimmon", "main"),
        ("Turing-RL", "main"),
    ]


async def test_export_and_import_round_trip_the_roles(club) -> None:
    text = await export_text(club, GUILD, suffix=".yaml")
    doc = yaml.safe_load(text)
    tmax = next(s for s in doc["sessions"] if s["title"] == TMAX)
    assert tmax["papers"] == ["TMax"]
    assert tmax["against"] == ["Terminal-World", "T1"]
    other = next(s for s in doc["sessions"] if s["title"] == "User models and user simulators")
    assert "against" not in other
    _, report = await import_text(club, text, suffix=".yaml", guild_id=GUILD)
    assert report.sessions.changed == 0
    await import_text(club, without_website(text), suffix=".yaml", guild_id=GUILD + 1)
    assert await roles(club, guild_id=GUILD + 1) == await roles(club)
    as_json = await export_text(club, GUILD + 1, suffix=".json")
    _, report = await import_text(club, as_json, suffix=".json", guild_id=GUILD)
    assert report.sessions.changed == 0


async def test_a_file_without_against_makes_every_paper_main_again(session_factory) -> None:
    with_roles = one_session("    papers: [A]\n    against: [B, C]\n")
    await import_text(session_factory, with_roles, suffix=".yaml", guild_id=GUILD)
    assert await roles(session_factory, "Roles") == [("A", "main"), ("B", "against"), ("C", "against")]
    _, report = await import_text(session_factory, with_roles, suffix=".yaml", guild_id=GUILD)
    assert report.sessions.changed == 0
    old_style = one_session("    papers: [A, B, C]\n")
    _, report = await import_text(session_factory, old_style, suffix=".yaml", guild_id=GUILD)
    assert report.sessions.changed == 1
    assert await roles(session_factory, "Roles") == [("A", "main"), ("B", "main"), ("C", "main")]
    swapped = one_session("    papers: [C]\n    against: [A]\n")
    await import_text(session_factory, swapped, suffix=".yaml", guild_id=GUILD)
    assert await roles(session_factory, "Roles") == [("C", "main"), ("A", "against")]


@pytest.mark.parametrize(
    ("papers", "message"),
    [
        ("    against: [B]\n", "needs the session's `papers`"),
        ("    papers: [A]\n    against: [A]\n", "is in `papers` too"),
        ("    papers: [A]\n    against: [B, B]\n", "is listed twice"),
        ("    papers: []\n    against: [B]\n", "reads against no paper"),
        ("    papers: [A]\n    against: B\n", "against"),
    ],
)
async def test_bad_against_lists_are_refused_before_anything_is_written(
    session_factory, papers: str, message: str
) -> None:
    with pytest.raises(ProgrammeInvalid) as caught:
        await import_text(session_factory, one_session(papers), suffix=".yaml", guild_id=GUILD)
    shown = [str(p) for p in caught.value.problems]
    assert any(message in text for text in shown), shown
    async with session_factory() as session:
        assert await session.scalar(select(ClubSession.id)) is None
