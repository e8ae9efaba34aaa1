"""`paperclub site build --guild ID OUT_DIR`: the same pages as static files; refused while the site is off."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import icalendar
import pytest

from tests.site.conftest import GUILD, enable_site, import_club
from tests.site.helpers import assert_nothing_runs, text_of

ROOT = Path(__file__).resolve().parents[2]


def paperclub(*args: str, database_url: str) -> subprocess.CompletedProcess[str]:
    """The real command line, in its own process (it sets up logging for the whole process)."""
    env = {**os.environ, "DATABASE_URL": database_url}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.sqlite_only
def test_site_build_writes_the_pages(store_info, tmp_path: Path) -> None:
    from db.engine import create_engine, create_session_factory
    from db.migrate import upgrade_database

    async def prepare(enable: bool) -> None:
        engine = create_engine(store_info.url)
        await upgrade_database(engine)
        factory = create_session_factory(engine)
        if enable:
            await enable_site(factory)
        else:
            await import_club(factory)
        await engine.dispose()

    out = tmp_path / "site"
    asyncio.run(prepare(enable=False))
    refused = paperclub("site", "build", "--guild", str(GUILD), str(out), database_url=store_info.url)
    assert refused.returncode == 1
    assert "has not turned its website on" in refused.stderr
    assert not out.exists()

    asyncio.run(prepare(enable=True))
    built = paperclub(
        "site",
        "build",
        "--guild",
        str(GUILD),
        str(out),
        "--base-url",
        "https://club.example.org/",
        database_url=store_info.url,
    )
    assert built.returncode == 0, built.stderr
    assert "15 session pages, 2 reading lists" in built.stdout
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
