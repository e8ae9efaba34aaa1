"""Other libraries' noise stays out of the log: voice warnings, alembic and aiosqlite chatter."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Iterator

import discord.client
import pytest

from bot.logs import AT_MOST_INFO, QUIET_UNLESS_DEBUG, VOICE_WARNINGS, setup_logging


@pytest.fixture(autouse=True)
def _restore_levels() -> Iterator[None]:
    names = ["", *AT_MOST_INFO, *QUIET_UNLESS_DEBUG]
    saved = {name: logging.getLogger(name).level for name in names}
    yield
    for name, level in saved.items():
        logging.getLogger(name).setLevel(level)


def test_the_voice_warnings_are_the_ones_discord_py_logs() -> None:
    """If discord.py rewords them, the filter would silently stop working: this test fails instead."""
    source = inspect.getsource(discord.client.Client.__init__)
    for message in VOICE_WARNINGS:
        assert f"_log.warning('{message}')" in source


def test_exactly_the_voice_warnings_are_dropped(caplog: pytest.LogCaptureFixture) -> None:
    setup_logging("INFO")
    log = logging.getLogger("discord.client")
    for message in VOICE_WARNINGS:
        log.warning(message)
    log.warning("Shard ID None has stopped responding to the gateway.")
    logging.getLogger("elsewhere").warning("PyNaCl is not installed, voice will NOT be supported")
    assert [(r.name, r.getMessage()) for r in caplog.records] == [
        ("discord.client", "Shard ID None has stopped responding to the gateway."),
        ("elsewhere", "PyNaCl is not installed, voice will NOT be supported"),
    ]


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        ("DEBUG", {"alembic": "DEBUG", "apscheduler": "INFO", "aiosqlite": "INFO", "discord.http": "INFO"}),
        (
            "INFO",
            {"alembic": "WARNING", "apscheduler": "WARNING", "aiosqlite": "INFO", "discord.http": "INFO"},
        ),
        (
            "ERROR",
            {"alembic": "ERROR", "apscheduler": "ERROR", "aiosqlite": "ERROR", "discord.http": "ERROR"},
        ),
    ],
)
def test_chatty_libraries_levels(level: str, expected: dict[str, str]) -> None:
    setup_logging("INFO" if level == "DEBUG" else "DEBUG")  # an earlier call's levels don't linger
    setup_logging(level)
    assert {
        name: logging.getLevelName(logging.getLogger(name).getEffectiveLevel()) for name in expected
    } == expected
    assert logging.getLevelName(logging.getLogger("paperclub").getEffectiveLevel()) == level
