from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from bot.settings import SettingsError, api_addresses, load_settings
from db.engine import create_engine, describe_database, normalise_database_url


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    for name in (
        "DISCORD_TOKEN",
        "DATABASE_URL",
        "DEV_GUILD_ID",
        "LOG_LEVEL",
        "DISCORD_API_BASE",
        "ARXIV_API_URL",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env


def test_defaults() -> None:
    settings = load_settings()
    assert settings.database_url.startswith("sqlite+aiosqlite:///")
    assert settings.log_level == "INFO"
    assert settings.dev_guild_id is None
    assert settings.discord_api_base is None


def test_reads_env_file(tmp_path) -> None:
    (tmp_path / ".env").write_text("LOG_LEVEL=debug\nDEV_GUILD_ID=123\n")
    settings = load_settings()
    assert settings.log_level == "DEBUG"
    assert settings.dev_guild_id == 123


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("DATABASE_URL", "mysql://x/y", "DATABASE_URL is invalid (must start with sqlite+aiosqlite://"),
        ("DATABASE_URL", "sqlite:///plain.db", "DATABASE_URL is invalid"),
        ("DEV_GUILD_ID", "abc", "DEV_GUILD_ID is invalid"),
        ("DEV_GUILD_ID", "-5", "DEV_GUILD_ID is invalid"),
        ("LOG_LEVEL", "LOUD", "LOG_LEVEL is invalid"),
        ("DISCORD_API_BASE", "ftp://127.0.0.1", "DISCORD_API_BASE is invalid (must be an http(s) URL)"),
        ("ARXIV_API_URL", "not a url", "ARXIV_API_URL is invalid"),
        (
            "DISCORD_API_BASE",
            "http://discord.example.com",
            "DISCORD_API_BASE is invalid (must use https unless",
        ),
    ],
)
def test_bad_values_give_one_line(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, expected: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as info:
        load_settings()
    message = str(info.value)
    assert message.startswith(expected)
    assert "\n" not in message
    assert value not in message  # never echo what was typed (it could be a secret)


def test_missing_token_message() -> None:
    with pytest.raises(SettingsError, match="^DISCORD_TOKEN is not set"):
        load_settings().require_token()


def test_cli_bad_setting_exits_with_one_line(tmp_path) -> None:
    env = {"PATH": "/usr/bin:/bin", "DATABASE_URL": "mysql://nope", "HOME": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "db", "upgrade"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0
    assert "DATABASE_URL is invalid" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_cli_run_without_token(tmp_path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "run"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert (
        proc.stderr.strip() == "paperclub: DISCORD_TOKEN is not set: copy the bot token from the Discord "
        "developer portal (Bot → Reset Token) into .env."
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["run", "--help"],
        ["db", "upgrade", "--help"],
        ["sync-commands", "--help"],
        ["demo", "--help"],
        ["import", "--help"],
        ["export", "--help"],
        ["papers", "resolve", "--help"],
    ],
)
def test_help(argv: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "bot", *argv], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert "usage: paperclub" in proc.stdout


@pytest.mark.parametrize("scheme", ["postgresql+asyncpg", "postgresql", "postgres"])
def test_cli_unreachable_database_is_one_line_naming_it(tmp_path, scheme: str) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DATABASE_URL": f"{scheme}://u:pw@127.0.0.1:1/x"}
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "db", "upgrade"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "pw" not in proc.stderr
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(
        "paperclub: cannot connect to the PostgreSQL database x on 127.0.0.1:1 as u (ConnectionRefusedError: "
    )
    assert proc.stderr.rstrip().endswith("check DATABASE_URL and that the server is running.")


def test_cli_db_upgrade_is_quiet_and_says_what_it_applied(tmp_path) -> None:
    """Each migration it applied, one line each, and no alembic INFO lines ("Context impl SQLiteImpl.",
    "Running upgrade ...") unless LOG_LEVEL=DEBUG."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DATABASE_URL": "sqlite+aiosqlite:///cli.db"}
    run = [sys.executable, "-m", "bot", "db", "upgrade"]
    proc = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    count = len(list((Path(__file__).parents[2] / "db" / "migrations" / "versions").glob("0*.py")))
    assert lines[0] == f"applied {count} migrations:"
    assert lines[1] == "  0001 foundation: guild settings, papers, sessions"
    assert len(lines) == count + 2
    assert lines[-1] == "database is up to date"
    assert proc.stderr == ""
    again = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert again.stdout == "database is up to date: no migration to apply\n"
    down = [sys.executable, "-m", "bot", "db", "downgrade", "0034"]
    subprocess.run(down, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, check=True)
    back = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert back.stdout == (
        "applied 1 migration:\n"
        "  0034 reminders: organizers' reminders numbered per server, apart from the automatic ones\n"
        "database is up to date\n"
    )
    (tmp_path / "cli.db").unlink()
    debug = subprocess.run(
        run, cwd=tmp_path, env={**env, "LOG_LEVEL": "DEBUG"}, capture_output=True, text=True, timeout=60
    )
    assert "alembic.runtime.migration: Running upgrade" in debug.stderr
    assert "aiosqlite" not in debug.stderr


@pytest.mark.parametrize(
    ("base", "rest", "gateway"),
    [
        ("http://127.0.0.1:5555", "http://127.0.0.1:5555/api/v10", "ws://127.0.0.1:5555/gateway/"),
        ("http://127.0.0.1:5555/", "http://127.0.0.1:5555/api/v10", "ws://127.0.0.1:5555/gateway/"),
        ("http://127.0.0.1:5555/api", "http://127.0.0.1:5555/api/v10", "ws://127.0.0.1:5555/gateway/"),
        ("http://127.0.0.1:5555/api/v10", "http://127.0.0.1:5555/api/v10", "ws://127.0.0.1:5555/gateway/"),
        ("https://discord.com/api/v10", "https://discord.com/api/v10", "wss://discord.com/gateway/"),
        (
            "https://chat.example.org/api/v9/",
            "https://chat.example.org/api/v9",
            "wss://chat.example.org/gateway/",
        ),
        (
            "https://example.org/spacebar/api",
            "https://example.org/spacebar/api/v10",
            "wss://example.org/spacebar/gateway/",
        ),
        (
            "https://example.org/proxy",
            "https://example.org/proxy/api/v10",
            "wss://example.org/proxy/gateway/",
        ),
    ],
)
def test_api_base_forms(base: str, rest: str, gateway: str) -> None:
    assert api_addresses(base) == (rest, gateway)
    assert load_settings(discord_api_base=base).discord_api_base == base.rstrip("/")


@pytest.mark.parametrize(
    ("base", "reason"),
    [
        ("https://example.org/api/v10/guilds", "must be the server's root, or end in /api or /api/vN"),
        ("https://example.org/api/latest", "must be the server's root, or end in /api or /api/vN"),
        ("https://example.org/api/v10?x=1", "must have no query or fragment"),
        ("http://discord.example.com/api/v10", "must use https unless it is on this machine"),
    ],
)
def test_unusable_api_bases(monkeypatch: pytest.MonkeyPatch, base: str, reason: str) -> None:
    monkeypatch.setenv("DISCORD_API_BASE", base)
    with pytest.raises(SettingsError, match=rf"^DISCORD_API_BASE is invalid \({re.escape(reason)}"):
        load_settings()


@pytest.mark.parametrize(
    ("given", "used"),
    [
        ("postgresql://u:pw@db.example:5433/club", "postgresql+asyncpg://u:pw@db.example:5433/club"),
        ("postgres://u:pw@db.example/club", "postgresql+asyncpg://u:pw@db.example/club"),
        ("postgresql+asyncpg://u:pw@db.example/club", "postgresql+asyncpg://u:pw@db.example/club"),
        # libpq's sslmode, as hosting providers write it, is asyncpg's ssl
        (
            "postgres://u:p%40ss@db.example/club?sslmode=require",
            "postgresql+asyncpg://u:p%40ss@db.example/club?ssl=require",
        ),
        ("sqlite+aiosqlite:///club.db", "sqlite+aiosqlite:///club.db"),
    ],
)
def test_database_url_forms(given: str, used: str) -> None:
    assert load_settings(database_url=given).database_url == used
    assert normalise_database_url(used) == used


def test_postgresql_url_builds_an_asyncpg_engine() -> None:
    engine = create_engine("postgresql://u:pw@127.0.0.1:1/club")
    assert engine.dialect.driver == "asyncpg"


@pytest.mark.skipif("TEST_DATABASE_URL" not in os.environ, reason="needs TEST_DATABASE_URL")
async def test_plain_postgresql_url_connects() -> None:
    url = os.environ["TEST_DATABASE_URL"].replace("postgresql+asyncpg://", "postgresql://", 1)
    engine = create_engine(load_settings(database_url=url).database_url)
    try:
        async with engine.connect() as conn:
            assert (await conn.execute(text("select 1"))).scalar_one() == 1
    finally:
        await engine.dispose()


def test_database_is_described_without_its_password(tmp_path) -> None:
    assert (
        describe_database("postgresql+asyncpg://club:s3cret@db.example:5433/paperclub")
        == "the PostgreSQL database paperclub on db.example:5433 as club"
    )
    assert describe_database("sqlite+aiosqlite:///club.db") == f"the SQLite database {tmp_path / 'club.db'}"


def test_papers_resolve_help_states_the_auto_thresholds_resolve_uses() -> None:
    """--help loads no feature, so the CLI writes the thresholds itself; they must be resolve's."""
    from bot.cli import club as cli
    from bot.services.papers import resolve

    assert (cli.AUTO_MIN, cli.AUTO_NEXT_MAX) == (resolve.AUTO_MIN, resolve.AUTO_NEXT_MAX)
