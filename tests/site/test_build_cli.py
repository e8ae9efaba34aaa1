"""`paperclub site build --guild ID OUT_DIR`: the same pages as static files, from an imported programme
alone; refused while the site is off."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import icalendar
import pytest

from tests.site.conftest import GUILD
from tests.site.helpers import assert_nothing_runs, text_of

ROOT = Path(__file__).resolve().parents[2]
CLUB = ROOT / "examples" / "club.yaml"


def paperclub(*args: str, database_url: str) -> subprocess.CompletedProcess[str]:
    """The real command line, in its own process (it sets up logging for the whole process)."""
    env = {**os.environ, "DATABASE_URL": database_url}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.sqlite_only
def test_the_programme_file_alone_gives_the_site(store_info, tmp_path: Path) -> None:
    """`paperclub import FILE --guild G`, then `paperclub site build --guild G OUT`: no bot ever runs."""
    out = tmp_path / "site"
    off = tmp_path / "off.yaml"
    off.write_text(CLUB.read_text(encoding="utf-8").replace("  enabled: true\n", "  enabled: false\n", 1))
    imported = paperclub("import", str(off), "--guild", str(GUILD), database_url=store_info.url)
    assert imported.returncode == 0, imported.stderr
    refused = paperclub("site", "build", "--guild", str(GUILD), str(out), database_url=store_info.url)
    assert refused.returncode == 1
    assert "has not turned its website on" in refused.stderr
    assert not out.exists()

    imported = paperclub("import", str(CLUB), "--guild", str(GUILD), database_url=store_info.url)
    assert imported.returncode == 0, imported.stderr
    assert "website changed" in imported.stdout
    built = paperclub(
        "site",
        "build",
        "--guild",
        str(GUILD),
        str(out),
        "--base-url",
        "https://club.example.org/paper-club/",
        database_url=store_info.url,
    )
    assert built.returncode == 0, built.stderr
    assert "15 session pages, 2 reading lists" in built.stdout
    home = (out / "index.html").read_text(encoding="utf-8")
    assert_nothing_runs(home)
    text = text_of(home.split("<body>")[1])
    assert text.startswith("Reading so far Calendar Paper club A paper a week on RL environments")
    assert "It is open. You do not need to work on this full time" in text  # the intro
    assert "Each session gets a page here linking the paper’s page in the wiki." in text  # How it runs
    assert "16 October — Sandbox infrastructure for environments at scale." in text
    assert 'href="https://discord.gg/rl-paper-club"' in home  # Suggesting a paper: the Discord
    assert 'href="./sessions/1/"' in home
    assert "Search" not in text_of(home.split("</nav>")[0])  # no search without a server
    assert "webcal://club.example.org/paper-club/calendar.ics" in home
    assert '<meta property="og:url" content="https://club.example.org/paper-club/">' in home
    assert (out / "sessions" / "1" / "index.html").exists()
    assert (out / "past" / "index.html").exists()
    for name in ("style.css", "site.js", "404.html", "feed.atom"):
        assert (out / name).exists(), name
    calendar = icalendar.Calendar.from_ical((out / "calendar.ics").read_bytes())
    assert len(list(calendar.walk("VEVENT"))) >= 2
    assert not list(out.rglob(".paperclub-*"))  # no temporary files left
