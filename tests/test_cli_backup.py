"""`paperclub db backup FILE`: a consistent copy of the SQLite store (SQLite's backup API), written whole or
not at all; PostgreSQL is pointed to pg_dump."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from bot.cli import main
from db.engine import create_engine
from db.migrate import upgrade_database


@pytest.fixture
def club_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "club.db"
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LOG_LEVEL", raising=False)
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{path}")

    async def create() -> None:
        engine = create_engine(f"sqlite+aiosqlite:///{path}")
        await upgrade_database(engine)
        await engine.dispose()

    asyncio.run(create())
    with sqlite3.connect(path) as conn:
        conn.execute(
            "INSERT INTO app_state (key, value, updated_at) VALUES ('k', 'kept', '2026-12-01 09:00:00')"
        )
    return path


def test_backup_copies_the_store(club_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "backups" / "club-2026-12-01.db"
    target.parent.mkdir()
    assert main(["db", "backup", str(target)]) == 0
    assert capsys.readouterr().out.startswith("backed up ")
    copy = sqlite3.connect(target)
    try:
        assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert copy.execute("SELECT value FROM app_state WHERE key = 'k'").fetchone() == ("kept",)
    finally:
        copy.close()
    assert [p.name for p in target.parent.iterdir()] == [target.name]  # no partial file left


def test_an_unwritable_target_is_one_line_and_leaves_nothing(
    club_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["db", "backup", str(tmp_path / "no-such-dir" / "x.db")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("paperclub: cannot back up to ")
    assert err.count("\n") == 1


def test_postgresql_is_pointed_to_pg_dump(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", "postgresql://club:secret@db.example.org/club")
    assert main(["db", "backup", str(tmp_path / "x.db")]) == 2
    err = capsys.readouterr().err
    assert "pg_dump" in err
    assert "secret" not in err
