"""`paperclub site build --guild ID OUT_DIR`: the same pages as static files; refused while the site is off."""

from __future__ import annotations

import asyncio
from pathlib import Path

import icalendar
import pytest

from bot.cli import main
from tests.site.conftest import GUILD, enable_site, import_club
from tests.site.helpers import assert_nothing_runs, text_of


@pytest.mark.sqlite_only
def test_site_build_writes_the_pages(store_info, tmp_path: Path, monkeypatch, capsys) -> None:
    from db.engine import create_engine, create_session_factory
    from db.migrate import upgrade_database

    async def prepare(enable: bool) -> None:
        engine = create_engine(store_info.url)
        await upgrade_database(engine)
        factory = create_session_factory(engine)
        if not enable:
            await import_club(factory)
        else:
            await enable_site(factory)
        await engine.dispose()

    monkeypatch.setenv("DATABASE_URL", store_info.url)
    out = tmp_path / "site"
    asyncio.run(prepare(enable=False))
    assert main(["site", "build", "--guild", str(GUILD), str(out)]) == 1
    assert "has not turned its website on" in capsys.readouterr().err
    assert not out.exists()

    asyncio.run(prepare(enable=True))
    assert (
        main(["site", "build", "--guild", str(GUILD), str(out), "--base-url", "https://club.example.org/"])
        == 0
    )
    said = capsys.readouterr().out
    assert "15 session pages, 2 reading lists" in said
    home = (out / "index.html").read_text(encoding="utf-8")
    assert_nothing_runs(home)
    assert "16 October — Sandbox infrastructure for environments at scale." in text_of(home)
    assert 'href="./sessions/1/"' in home
    assert "Search" not in text_of(home.split("</nav>")[0])  # no search without a server
    assert "webcal://club.example.org/calendar.ics" in home
    assert (out / "sessions" / "1" / "index.html").exists()
    assert (out / "past" / "index.html").exists()
    for name in ("style.css", "site.js", "404.html", "feed.atom"):
        assert (out / name).exists(), name
    calendar = icalendar.Calendar.from_ical((out / "calendar.ics").read_bytes())
    assert len(list(calendar.walk("VEVENT"))) >= 2
    assert not list(out.rglob(".paperclub-*"))  # no temporary files left
