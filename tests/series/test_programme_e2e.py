"""Series in `paperclub import` / `export` (SQLite and PostgreSQL): a round trip is exact (skipped weeks with
their reasons, a moved week, a claimed week, the series settings), importing it again changes nothing, a
file with any bad series row writes nothing and names every problem with its line, and an imported series
gets the rest of its horizon from the bot without a second session for a week the file had."""

from __future__ import annotations

import pytest
import yaml
from sqlalchemy import func, select

from bot.services.programme.document import ProgrammeInvalid
from bot.services.programme.files import export_text, import_text
from db.models import ClubSession
from db.models.series import Series, SeriesWeek
from tests.series.helpers import add_thursdays, configure, from_bot, press, run, settle

FRESH = 77

FILE = """\
guild_id: 5
settings:
  timezone: America/Los_Angeles
  series_nudge_days: 3
series:
  - name: Thursday paper club
    day: thursday
    time: "09:30"
    every: 1
    first: 2026-12-03
    skipped:
      - {date: 2026-12-24, reason: Christmas Eve}
sessions:
  - title: Building data recipes for terminal agents
    starts_at: 2026-12-03 08:00
    series: Thursday paper club
    week: 2026-12-03
    presenter: Hamish Ivison
    papers: [TMax, Terminal-World, T1]
  - title: Thursday paper club
    starts_at: 2026-12-10 09:30
    series: Thursday paper club
    week: 2026-12-10
"""


async def counts(factory) -> tuple[int, int, int]:
    async with factory() as db:
        return (
            int(await db.scalar(select(func.count()).select_from(Series)) or 0),
            int(await db.scalar(select(func.count()).select_from(SeriesWeek)) or 0),
            int(await db.scalar(select(func.count()).select_from(ClubSession)) or 0),
        )


async def test_a_round_trip_is_exact(env) -> None:
    await configure(env)
    await add_thursdays(env, signup_url="https://lu.ma/pc", description="One paper, one hour.")
    await run(env, "organize series skip", {"series": "1", "date": "2026-12-24", "reason": "Christmas Eve"})
    await run(env, "organize series move", {"series": "1", "date": "2026-12-17", "when": "8:00am"})
    await run(env, "organize series open", {"series": "1"})
    await press(env, from_bot(env, env.messages_in(env.announcements))[-1], "series:present:2", env.member)
    await run(env, "setup series_horizon", {"weeks": 6}, member=env.admin)
    factory = env.bot.session_factory

    exported = await export_text(factory, env.guild.id, suffix=".yaml")
    doc = yaml.safe_load(exported)
    assert doc["settings"]["series_horizon_weeks"] == 6
    (series,) = doc["series"]
    assert series == {
        "name": "Thursday paper club",
        "day": "thursday",
        "time": "09:30",
        "timezone": "America/Los_Angeles",
        "every": 1,
        "first": "2026-12-03",
        "signup_url": "https://lu.ma/pc",
        "description": "One paper, one hour.",
        "skipped": [{"date": "2026-12-24", "reason": "Christmas Eve"}],
    }
    weeks = {s["week"]: s for s in doc["sessions"] if "series" in s}
    assert len(weeks) == 8
    assert weeks["2026-12-17"]["starts_at"] == "2026-12-17 08:00"
    assert weeks["2026-12-24"]["status"] == "cancelled"
    assert weeks["2026-12-10"]["presenter_id"] == env.member.id

    # into the same server: nothing changes; into an empty one: the same file comes back out
    _, report = await import_text(factory, exported, suffix=".yaml", guild_id=env.guild.id)
    assert not report.changed_anything
    assert report.series.same == 1
    _, report = await import_text(factory, exported, suffix=".yaml", guild_id=FRESH)
    assert (report.series.new, report.sessions.new) == (1, 8)
    again = await export_text(factory, FRESH, suffix=".yaml")
    assert again.replace(f"guild_id: {FRESH}", f"guild_id: {env.guild.id}") == exported
    as_json = await export_text(factory, env.guild.id, suffix=".json")
    _, report = await import_text(factory, as_json, suffix=".json", guild_id=FRESH + 1)
    assert report.series.new == 1
    assert (await export_text(factory, FRESH + 1, suffix=".yaml")).replace(
        f"guild_id: {FRESH + 1}", f"guild_id: {env.guild.id}"
    ) == exported


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            ("day: thursday", "day: Funday"),
            "line 7: series[1] (“Thursday paper club”).day: “Funday” is not a day",
        ),
        (
            ("{date: 2026-12-24,", "{date: 2026-12-25,"),
            "line 12: series[1] (“Thursday paper club”).skipped[1]: This series meets on Thursdays; 25 December is a Friday.",
        ),
        (
            ("every: 1", "every: 3"),
            "line 9: series[1] (“Thursday paper club”).every: A series meets every week",
        ),
        (
            ("    week: 2026-12-10", "    week: 2026-12-11"),
            "line 20: sessions[2].week: This series meets on Thursdays; 11 December is a Friday.",
        ),
        (
            (
                "    series: Thursday paper club\n    week: 2026-12-10",
                "    series: Friday club\n    week: 2026-12-10",
            ),
            "line 20: sessions[2].series: “Friday club” is not one of the file's series",
        ),
        (("    week: 2026-12-10", "    week: 2026-12-03"), "the same week as sessions[1]"),
        (('time: "09:30"', 'time: "2:30am"\n    day_x: 1'), "unknown field “day_x”"),
    ],
)
async def test_a_bad_series_row_writes_nothing(
    session_factory, change: tuple[str, str], problem: str
) -> None:
    text = FILE.replace(*change)
    assert text != FILE
    with pytest.raises(ProgrammeInvalid) as caught:
        await import_text(session_factory, text, suffix=".yaml", guild_id=None)
    shown = [str(p) for p in caught.value.problems]
    assert any(problem in line for line in shown), shown
    assert await counts(session_factory) == (0, 0, 0)


async def test_an_imported_series_gets_the_rest_of_its_horizon_once(env) -> None:
    await configure(env)
    factory = env.bot.session_factory
    _, report = await import_text(factory, FILE, suffix=".yaml", guild_id=env.guild.id)
    assert (report.series.new, report.sessions.new) == (1, 2)
    assert await counts(factory) == (1, 3, 2)  # two weeks with their sessions, one skipped
    await env.restart_bot()  # the start-up run fills the horizon
    await env.bot.get_cog("SeriesCog").background.ready(env.guild.id).wait()
    await settle(env)
    assert await counts(factory) == (1, 8, 7)  # 3 Dec … 21 Jan; 24 December skipped, no session
    shown = await run(env, "series show", {"series": "Thursday paper club"}, member=env.member)
    description = shown.text
    assert (
        "**Thursday 3 December, 8:00 AM PT / 4:00 PM GMT / 9:30 PM IST** (moved from 9:30 AM) “Building data recipes for terminal agents” — 🎤 Hamish Ivison · 📄 TMax, Terminal-World, T1"
        in description
    )
    assert "~~Thursday 24 December~~ — **skipped**: Christmas Eve" in description
    _, again = await import_text(factory, FILE, suffix=".yaml", guild_id=env.guild.id)
    assert not again.changed_anything
    assert await counts(factory) == (1, 8, 7)
