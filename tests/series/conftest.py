"""Fixtures for the /series tests."""

from __future__ import annotations

import pytest

from bot.demo.botenv import BotEnv


@pytest.fixture
def env(discord_env: BotEnv) -> BotEnv:
    """The stand-in env (its date rules follow the bot's FakeClock; see BotEnv)."""
    return discord_env
