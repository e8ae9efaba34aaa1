"""`paperclub import` / `export`: which server, and one line saying what failed (through the CLI's main())."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from tests.reading.conftest import without_website

ROOT = Path(__file__).resolve().parents[1]
CLUB_YAML = ROOT / "examples" / "club.yaml"
SMALL = "guild_id: {guild}\nsessions:\n  - title: A session\n    starts_at: 2026-11-05 08:00\n"


@pytest.fixture(autouse=True)
def _store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in ("DISCORD_TOKEN", "DEV_GUILD_ID", "DISCORD_API_BASE", "LOG_LEVEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}")
    monkeypatch.chdir(tmp_path)  # no stray .env
    return tmp_path / "cli.db"


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _one_line(err: str) -> str:
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    return err.strip()


def test_import_without_guild_into_an_empty_store_is_refused(capsys, tmp_path: Path) -> None:
    code, out, err = _cli(capsys, "import", str(CLUB_YAML))
    assert code == 2
    assert out == ""
    assert _one_line(err) == (
        "paperclub: say which server with --guild ID (club.yaml has no guild_id and the SQLite database "
        f"{tmp_path / 'cli.db'} has no server yet); nothing was imported."
    )
    code, out, err = _cli(capsys, "export", "out.yaml", "--guild", "1")  # and server 1 got nothing
    assert code == 2
    assert "has nothing for server 1 (it has no server yet)" in _one_line(err)


def test_import_without_guild_uses_the_one_server_the_store_knows_and_says_so(capsys) -> None:
    assert _cli(capsys, "import", str(CLUB_YAML), "--guild", "1234")[0] == 0
    code, out, err = _cli(capsys, "import", str(CLUB_YAML))
    assert code == 0, err
    assert out.splitlines() == [
        "importing into server 1234, the only one in the store (--guild ID to choose)",
        f"imported {CLUB_YAML}: guild 1234: nothing to change; the store already matches the file.",
    ]


def test_import_without_guild_with_several_servers_is_refused(capsys, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.yaml"  # the site's address is the first server's
    elsewhere.write_text(without_website(CLUB_YAML.read_text(encoding="utf-8")), encoding="utf-8")
    for guild, path in (("1234", CLUB_YAML), ("5678", elsewhere)):
        assert _cli(capsys, "import", str(path), "--guild", guild)[0] == 0
    code, _, err = _cli(capsys, "import", str(CLUB_YAML))
    assert code == 2
    assert "has 2: 1234, 5678); nothing was imported." in _one_line(err)


def test_the_files_own_guild_id_is_used(capsys, tmp_path: Path) -> None:
    exported = tmp_path / "export.yaml"
    exported.write_text(SMALL.format(guild=4321))
    code, out, _ = _cli(capsys, "import", str(exported))
    assert code == 0
    assert out.startswith(f"imported {exported}: guild 4321: sessions 1 new")


def test_export_of_a_server_the_store_does_not_have_is_refused(capsys, tmp_path: Path) -> None:
    assert _cli(capsys, "import", str(CLUB_YAML), "--guild", "1234")[0] == 0
    code, out, err = _cli(capsys, "export", "out.yaml", "--guild", "999")
    assert code == 2
    assert _one_line(err) == (
        f"paperclub: the SQLite database {tmp_path / 'cli.db'} has nothing for server 999 (it has 1234); "
        "nothing was written."
    )
    assert not (tmp_path / "out.yaml").exists()


def test_export_without_guild_uses_the_one_server(capsys, tmp_path: Path) -> None:
    assert _cli(capsys, "import", str(CLUB_YAML), "--guild", "1234")[0] == 0
    code, out, _ = _cli(capsys, "export", "out.yaml")
    assert code == 0
    assert out.splitlines() == [
        "exporting server 1234, the only one in the store (--guild ID to choose)",
        "exported guild 1234 to out.yaml",
    ]
    assert "guild_id: 1234" in (tmp_path / "out.yaml").read_text()


@pytest.mark.parametrize("value", ["-5", "0", "abc", "²", "1.5", str(2**63)])
@pytest.mark.parametrize("command", ["import", "export"])
def test_a_bad_guild_is_one_line_and_exit_2(capsys, command: str, value: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main([command, str(CLUB_YAML) if command == "import" else "out.yaml", "--guild", value])
    assert exited.value.code == 2
    err = _one_line(capsys.readouterr().err)
    assert err.startswith(f"paperclub {command}: error: argument --guild: not a server id: ")
    assert err.endswith(f"(a positive whole number) (see paperclub {command} --help)")


def test_a_missing_import_file_says_so(capsys) -> None:
    code, _, err = _cli(capsys, "import", "nothere.yaml", "--guild", "1234")
    assert code == 1
    assert (
        _one_line(err)
        == "paperclub: cannot read nothere.yaml (No such file or directory); nothing was imported."
    )


@pytest.mark.parametrize("where", ["missing-folder/out.yaml", "a-folder.yaml"])
def test_an_unwritable_export_path_says_so(capsys, tmp_path: Path, where: str) -> None:
    (tmp_path / "a-folder.yaml").mkdir()
    assert _cli(capsys, "import", str(CLUB_YAML), "--guild", "1234")[0] == 0
    code, _, err = _cli(capsys, "export", where, "--guild", "1234")
    assert code == 1
    reason = "No such file or directory" if where.startswith("missing") else "Is a directory"
    assert _one_line(err) == (
        f"paperclub: cannot write {where} ({reason}): choose a file in a folder you can write to."
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-folder.yaml", "cli.db"]  # no half-written file


def test_an_unusable_database_is_named(capsys, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'no-such-folder' / 'x.db'}")
    code, _, err = _cli(capsys, "import", str(CLUB_YAML), "--guild", "1234")
    assert code == 1
    assert _one_line(err) == (
        f"paperclub: cannot use the SQLite database {tmp_path / 'no-such-folder' / 'x.db'} (unable to open "
        "database file): check DATABASE_URL and that the database is reachable and writable."
    )
