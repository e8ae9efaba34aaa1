"""``paperclub export``/``import`` round-trip the guild's aliases (SQLite and PostgreSQL): a name resolved to
an arXiv paper, to a link, and "none of these", with who chose each and when; bad alias entries are
reported with their line."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest
import yaml
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.papers import parse_paper_ref
from bot.services.papers.resolve import Choice
from bot.services.papers.store import choose, find_alias, list_aliases, unresolved_papers
from bot.services.programme.document import ProgrammeInvalid
from bot.services.programme.files import export_text, import_text
from tests.reading.conftest import CLUB_YAML, GUILD, without_website

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
TMAX = "TMax: Scaling Terminal Agents with Reinforcement Learning"
DSEC_URL = "https://openreview.net/forum?id=dsec123"


def tmax_choice() -> Choice:
    return Choice(
        TMAX, ("Hamish Ivison",), 2025, "ICLR", "2511.00001", None, "s2tmax", None, ("semantic_scholar",), 1.0
    )


async def resolved_club(factory: async_sessionmaker[AsyncSession]) -> None:
    await import_text(factory, CLUB_YAML.read_text(encoding="utf-8"), suffix=".yaml", guild_id=GUILD)
    async with factory() as session, session.begin():
        await choose(session, GUILD, "TMax", tmax_choice(), chosen_by=42, now=NOW)
        await choose(session, GUILD, "Persimmon", None, chosen_by=42, now=NOW)
        dsec = replace(
            tmax_choice(), title="DSec: Sandboxes", arxiv_id=None, s2_id=None, authors=(), year=None
        )
        await choose(session, GUILD, "DSec", dsec, chosen_by=None, now=NOW, ref=parse_paper_ref(DSEC_URL))


async def test_aliases_round_trip_through_export_and_import(session_factory) -> None:
    await resolved_club(session_factory)
    exported = await export_text(session_factory, GUILD, suffix=".yaml")
    aliases = yaml.safe_load(exported)["aliases"]
    assert aliases == [
        {"name": "DSec", "paper": DSEC_URL, "title": "DSec: Sandboxes", "chosen_at": NOW.isoformat()},
        {"name": "Persimmon", "none": True, "chosen_by": 42, "chosen_at": NOW.isoformat()},
        {"name": "TMax", "paper": "2511.00001", "title": TMAX, "chosen_by": 42, "chosen_at": NOW.isoformat()},
    ]
    _, same = await import_text(session_factory, exported, suffix=".yaml", guild_id=GUILD)
    assert (same.aliases.new, same.aliases.changed) == (0, 0)

    elsewhere = without_website(exported)  # the site's address is the first server's
    _, fresh = await import_text(session_factory, elsewhere, suffix=".yaml", guild_id=77)
    assert fresh.aliases.new == 3
    assert (await export_text(session_factory, 77, suffix=".yaml")).replace(
        "guild_id: 77", f"guild_id: {GUILD}"
    ) == elsewhere
    async with session_factory() as session:
        tmax = await find_alias(session, 77, "tmax")
        assert tmax is not None
        assert (tmax.paper_title, tmax.chosen_by, tmax.chosen_at) == (TMAX, 42, NOW)
        persimmon = await find_alias(session, 77, "Persimmon")
        assert persimmon is not None
        assert persimmon.rejected
        left = set(await unresolved_papers(session, 77))
        assert not {"TMax", "Persimmon", "DSec"} & left
        assert len(await list_aliases(session, 77)) == 3

    # the original file again: its title-only names follow the aliases, nothing new is made
    _, again = await import_text(
        session_factory, without_website(CLUB_YAML.read_text(encoding="utf-8")), suffix=".yaml", guild_id=77
    )
    assert again.papers.new == 0
    assert (again.aliases.new, again.aliases.changed) == (0, 0)


async def test_a_hand_written_alias_resolves_the_files_own_title_only_paper(session_factory) -> None:
    text = """
guild_id: 5
aliases:
  - {name: TMax, paper: "2511.00001", title: "TMax: Scaling Terminal Agents"}
sessions:
  - {title: Terminal agents, starts_at: "2026-11-26 09:30", papers: [TMax]}
"""
    _, report = await import_text(session_factory, text, suffix=".yaml", guild_id=None)
    assert report.aliases.new == 1
    assert report.papers.new == 0  # the session's TMax is the alias's paper
    exported = yaml.safe_load(await export_text(session_factory, 5, suffix=".yaml"))
    assert exported["sessions"][0]["papers"] == [
        {"paper": "2511.00001", "title": "TMax: Scaling Terminal Agents"}
    ]


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ("{name: TMax, paper: '2511.00001', none: true}", "either the paper it means or none: true"),
        ("{name: TMax}", "give the paper it means"),
        ("{name: '!!!', none: true}", "is only punctuation"),
        ("{name: TMax, none: true, chosen_at: yesterday}", "is not a time like"),
        ("{name: TMax, none: true, colour: red}", "unknown field “colour”"),
    ],
)
async def test_bad_aliases_are_reported_with_their_line(session_factory, entry: str, problem: str) -> None:
    text = f"guild_id: 5\naliases:\n  - {entry}\n"
    with pytest.raises(ProgrammeInvalid) as caught:
        await import_text(session_factory, text, suffix=".yaml", guild_id=None)
    assert any(problem in str(p) and p.line == 3 for p in caught.value.problems), caught.value.problems


async def test_the_same_name_twice_is_a_problem(session_factory) -> None:
    text = "guild_id: 5\naliases:\n  - {name: TMax, none: true}\n  - {name: ' tmax ', none: true}\n"
    with pytest.raises(ProgrammeInvalid) as caught:
        await import_text(session_factory, text, suffix=".yaml", guild_id=None)
    assert "the same name as aliases[1]" in str(caught.value.problems[0])
