from __future__ import annotations

import subprocess
import sys

import pytest

from bot.settings import SettingsError, load_settings


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
    ],
)
def test_help(argv: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "bot", *argv], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert "usage: paperclub" in proc.stdout


def test_cli_unreachable_database_is_one_line(tmp_path) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "DATABASE_URL": "postgresql+asyncpg://u:pw@127.0.0.1:1/x",
    }
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
    assert proc.stderr.strip().splitlines()[-1].startswith("paperclub: cannot connect")
