"""`paperclub import` / `export`: the club's programme, validation with line numbers, idempotence, round trips."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from bot.cli.club import export_file, import_file
from bot.services.programme.document import ProgrammeInvalid
from bot.services.programme.files import LineLoader, export_text, import_text, parse_document
from bot.settings import load_settings
from db.models import ClubSession, Paper
from db.models.reading import ReadingList, ReadingListItem
from tests.reading.conftest import CLUB_YAML, GUILD, snapshot, without_website


async def _count(factory, model) -> int:
    async with factory() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


async def test_club_programme_imports_as_on_the_page(club) -> None:
    async with club() as session:
        rows = (
            await session.scalars(
                select(ClubSession).options(selectinload(ClubSession.papers)).order_by(ClubSession.starts_at)
            )
        ).all()
        lists = (await session.scalars(select(ReadingList).order_by(ReadingList.name))).all()
        papers = await session.scalar(select(func.count()).select_from(Paper))
    assert len(rows) == 15
    assert all(r.guild_id == GUILD for r in rows)
    assert rows[0].title == "OS-Genesis: reverse task synthesis"
    # the page dates past sessions only: kept at midday in the club's zone, shown as the date alone
    assert rows[0].starts_at == datetime(2026, 2, 11, 20, 0, tzinfo=UTC)  # noon PST
    assert rows[0].date_only
    march_17 = next(r for r in rows if r.title == "Priorities in LLM-generated environments")
    assert march_17.starts_at == datetime(2026, 3, 17, 19, 0, tzinfo=UTC)  # noon PDT
    assert sum(r.date_only for r in rows) == 13
    assert [link.paper.title for link in march_17.papers] == ["AgentScaler", "AutoEnv", "OMNI"]
    tmax = next(r for r in rows if r.title == "Building data recipes for terminal agents")
    assert tmax.starts_at == datetime(2026, 11, 5, 16, 0, tzinfo=UTC)  # 8:00 AM PST
    assert tmax.presenter_name == "Hamish Ivison"
    assert not tmax.date_only
    assert tmax.signup_url == "https://lu.ma/paper-club-terminal-agents"
    assert [link.paper.title for link in tmax.papers] == ["TMax", "Terminal-World", "T1"]
    assert [lst.name for lst in lists] == ["ITSMBench", "WorldSmith"]
    assert papers == 33  # Tau2-Bench, AutoEnv, Agent World Model... are stored once each


async def test_importing_twice_changes_nothing(club) -> None:
    before = await snapshot(club)
    guild, report = await import_text(club, CLUB_YAML.read_text(), suffix=".yaml", guild_id=GUILD)
    assert guild == GUILD
    assert not report.changed_anything
    assert report.sessions.same == 15
    assert report.lists.same == 2
    assert await snapshot(club) == before


async def test_export_import_round_trip(club) -> None:
    exported = await export_text(club, GUILD, suffix=".yaml")
    before = await snapshot(club)
    _, again = await import_text(club, exported, suffix=".yaml", guild_id=GUILD)
    assert not again.changed_anything
    assert await snapshot(club) == before

    elsewhere = without_website(exported)  # the site's address is this server's
    _, other = await import_text(club, elsewhere, suffix=".yaml", guild_id=77)  # into a fresh guild
    assert other.sessions.new == 15
    assert other.lists.new == 2
    re_exported = await export_text(club, 77, suffix=".yaml")
    assert re_exported.replace("guild_id: 77", "guild_id: 1") == elsewhere

    as_json = await export_text(club, GUILD, suffix=".json")
    assert json.loads(as_json) == {k: v for k, v in yaml.safe_load(exported).items()}
    data = json.loads(as_json)
    data.pop("website")
    _, from_json = await import_text(club, json.dumps(data), suffix=".json", guild_id=78)
    assert from_json.sessions.new == 15
    assert json.loads(await export_text(club, 78, suffix=".json")) == {**data, "guild_id": 78}


async def test_editing_the_file_updates_only_what_changed(club) -> None:
    text = CLUB_YAML.read_text().replace(
        "papers: [DSec]",
        "papers: [DSec, https://arxiv.org/abs/2401.12340]\n    recording_url: https://example.org/rec",
    )
    _, report = await import_text(club, text, suffix=".yaml", guild_id=GUILD)
    assert (report.sessions.changed, report.sessions.same, report.papers.new) == (1, 14, 1)
    async with club() as session:
        paper = await session.scalar(select(Paper).where(Paper.key == "arxiv:2401.12340"))
        row = await session.scalar(select(ClubSession).where(ClubSession.title.like("Sandbox%")))
    assert paper is not None
    assert paper.arxiv_id == "2401.12340"
    assert row is not None
    assert row.recording_url == "https://example.org/rec"


BAD_FILE = """\
guild_id: 1
settings:
  timezone: Mars/Olympus
sessions:
  - title: Fine session
    starts_at: 2026-03-17 09:30
    papers: [AutoEnv]
  - title: Bad time
    starts_at: next blue moon
  - title: Skipped hour
    starts_at: 2026-03-08 02:30
    timezone: America/Los_Angeles
  - title: Evil link
    starts_at: 2026-03-18 09:30
    recording_url: javascript:alert(1)
    papers:
      - AutoEnv
      - "javascript:alert(2)"
  - title: Fine session
    starts_at: 2026-03-17 09:30
  - starts_at: 2026-03-19 09:30
    colour: blue
  - title: Long one
    starts_at: 2026-03-20 09:30
    duration_minutes: 9999
    status: postponed
lists:
  - name: WorldSmith
    papers:
      - paper: AutoEnv
        note: fine
      - {title: ""}
  - name: worldsmith
  - papers: [x]
"""


async def test_a_file_with_errors_writes_nothing_and_names_every_line(session_factory) -> None:
    with pytest.raises(ProgrammeInvalid) as caught:
        await import_text(session_factory, BAD_FILE, suffix=".yaml", guild_id=None)
    found = [(p.line, p.where.split(" ")[0], p.message) for p in caught.value.problems]
    lines = [line for line, _, _ in found]
    assert lines == sorted(lines)
    expect = {
        3: "settings.timezone",
        9: "sessions[2]",
        11: "sessions[3]",
        15: "sessions[4]",
        18: "sessions[4]",
        19: "sessions[5]",
        21: "sessions[6]",
        22: "sessions[6]",
        25: "sessions[7]",
        26: "sessions[7]",
        32: "lists[1]",
        33: "lists[2]",
        34: "lists[3].name",
    }
    for line, where in expect.items():
        assert any(at == line and w.startswith(where) for at, w, _ in found), (line, where, found)
    messages = " ".join(m for _, _, m in found)
    for text in (
        "Mars/Olympus",
        "next blue moon",
        "skip",
        "http(s)",
        "colour",
        "same title and time",
        "postponed",
    ):
        assert text in messages or text in str(caught.value.problems), text
    for model in (ClubSession, Paper, ReadingList, ReadingListItem):
        assert await _count(session_factory, model) == 0


@pytest.mark.parametrize(
    ("text", "suffix", "line"),
    [
        ("guild_id: 1\nsessions:\n  - title: [unclosed\n", ".yaml", 4),
        ('{\n  "guild_id": 1,\n  "sessions": [\n}\n', ".json", 4),
        ("- just\n- a list\n", ".yaml", 1),
    ],
)
async def test_syntax_errors_name_their_line(session_factory, text: str, suffix: str, line: int) -> None:
    with pytest.raises(ProgrammeInvalid) as caught:
        await import_text(session_factory, text, suffix=suffix, guild_id=1)
    assert caught.value.problems[0].line == line


def test_loader_keeps_ids_and_odd_titles_as_text() -> None:
    data = parse_document("a: 2401.12340\nb: On\nc: 2026-03-17\nd: null\ne: true\nf: [1, no]\n", ".yaml")
    assert (data["a"], data["b"], data["c"], data["d"], data["e"], list(data["f"])) == (
        "2401.12340",
        "On",
        "2026-03-17",
        None,
        True,
        ["1", "no"],
    )
    assert data["__line__"] == 1
    assert data["__lines__"]["c"] == 3
    assert data["f"].lines == [6, 6]
    assert issubclass(LineLoader, yaml.SafeLoader)


async def test_no_guild_anywhere_is_a_problem(session_factory) -> None:
    with pytest.raises(ProgrammeInvalid) as caught:
        await import_text(session_factory, "sessions: []\n", suffix=".yaml", guild_id=None)
    assert "--guild" in str(caught.value.problems[0])


async def test_cli_import_and_export(tmp_path: Path, capsys) -> None:
    settings = load_settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}")
    assert await import_file(settings, CLUB_YAML, guild_id=42) == 0
    assert "sessions 15 new" in capsys.readouterr().out
    assert await import_file(settings, CLUB_YAML, guild_id=42) == 0
    assert "nothing to change" in capsys.readouterr().out

    out = tmp_path / "programme.json"
    assert await export_file(settings, out, guild_id=42) == 0
    data = json.loads(out.read_text())
    assert data["guild_id"] == 42
    assert len(data["sessions"]) == 15
    assert await export_file(settings, tmp_path / "programme.txt", guild_id=42) == 1

    bad = tmp_path / "bad.yaml"
    bad.write_text(BAD_FILE)
    assert await import_file(settings, bad, guild_id=None) == 1
    err = capsys.readouterr().err
    assert "nothing was imported" in err
    assert "bad.yaml: line 9: sessions[2]" in err


async def test_import_into_the_same_store_from_two_guilds_keeps_them_apart(session_factory) -> None:
    text = CLUB_YAML.read_text(encoding="utf-8")
    await import_text(session_factory, text, suffix=".yaml", guild_id=5)
    before = await snapshot(session_factory)
    with pytest.raises(ProgrammeInvalid) as refused:  # the file's site address is server 5's now
        await import_text(session_factory, text, suffix=".yaml", guild_id=6)
    assert [str(p) for p in refused.value.problems] == [
        "line 29: website.slug: the address `paper-club` is taken by another server; pick another"
    ]
    assert await snapshot(session_factory) == before  # nothing of the file was written
    await import_text(session_factory, without_website(text), suffix=".yaml", guild_id=6)
    async with session_factory() as session:
        per_guild = dict(
            (
                await session.execute(
                    select(ClubSession.guild_id, func.count()).group_by(ClubSession.guild_id)
                )
            ).all()
        )
    assert per_guild == {5: 15, 6: 15}
