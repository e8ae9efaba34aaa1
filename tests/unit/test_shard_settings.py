"""SHARD_COUNT / SHARD_IDS and the pool settings: read from the environment, each mistake one line."""

from __future__ import annotations

import pytest

from bot.client import PaperclubBot, ShardedPaperclubBot, build_bot
from bot.settings import SettingsError, load_settings, parse_shard_ids


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    for name in ("SHARD_COUNT", "SHARD_IDS", "DATABASE_POOL_SIZE", "DATABASE_MAX_OVERFLOW"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env


@pytest.mark.parametrize(
    ("text", "ids"),
    [("0-3", (0, 1, 2, 3)), ("4,5,6,7", (4, 5, 6, 7)), ("0-1, 6", (0, 1, 6)), ("7", (7,)), ("3-3", (3,))],
)
def test_shard_id_forms(text: str, ids: tuple[int, ...]) -> None:
    assert parse_shard_ids(text) == ids


def test_unset_is_one_unsharded_connection() -> None:
    settings = load_settings()
    assert settings.shard_count is None
    assert settings.shard_ids is None
    assert not settings.sharded


def test_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHARD_COUNT", "8")
    monkeypatch.setenv("SHARD_IDS", "4-7")
    settings = load_settings()
    assert settings.shard_count == 8
    assert settings.shard_ids == (4, 5, 6, 7)
    monkeypatch.setenv("SHARD_COUNT", "Auto")
    monkeypatch.delenv("SHARD_IDS")
    assert load_settings().shard_count == "auto"


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"SHARD_COUNT": "0"}, "SHARD_COUNT is invalid (must be at least 1)"),
        ({"SHARD_COUNT": "four"}, "SHARD_COUNT is invalid (must be a whole number or auto)"),
        ({"SHARD_IDS": "0-1"}, "SHARD_IDS is invalid (needs SHARD_COUNT set"),
        ({"SHARD_COUNT": "auto", "SHARD_IDS": "0"}, "SHARD_IDS is invalid (needs SHARD_COUNT set"),
        (
            {"SHARD_COUNT": "4", "SHARD_IDS": "2-4"},
            "SHARD_IDS is invalid (shard 4 is not below SHARD_COUNT (4)",
        ),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "0-2,2"}, "SHARD_IDS is invalid (shard 2 is listed twice)"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "3-1"}, "SHARD_IDS is invalid (the range '3-1' runs backwards)"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "one"}, "SHARD_IDS is invalid ('one' is not a shard id"),
        ({"DATABASE_POOL_SIZE": "0"}, "DATABASE_POOL_SIZE is invalid"),
        ({"DATABASE_MAX_OVERFLOW": "-1"}, "DATABASE_MAX_OVERFLOW is invalid"),
    ],
)
def test_each_mistake_is_one_line(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], expected: str
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as caught:
        load_settings()
    message = str(caught.value)
    assert message.startswith(expected), message
    assert "\n" not in message


async def test_the_bot_is_sharded_only_when_asked(tmp_path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'x.db'}"
    plain = build_bot(load_settings(database_url=url))
    sharded = build_bot(load_settings(database_url=url, shard_count=4, shard_ids="2,3"))
    auto = build_bot(load_settings(database_url=url, shard_count="auto"))
    try:
        assert type(plain) is PaperclubBot
        assert isinstance(sharded, ShardedPaperclubBot)
        assert isinstance(sharded, PaperclubBot)  # one type for the rest of the code
        assert (sharded.shard_count, sharded.shard_ids) == (4, [2, 3])
        assert auto.shard_count is None  # asked of Discord at start (GET /gateway/bot)
        assert [s.shard_id for s in sharded.shard_states()] == [2, 3]
        assert not any(s.connected for s in sharded.shard_states())
    finally:
        for bot in (plain, sharded, auto):
            await bot.engine.dispose()
