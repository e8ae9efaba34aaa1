"""Fixtures for the /session tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.sandbox.arxiv import ArxivStandin
from bot.sandbox.botenv import BotEnv


@pytest.fixture
def env(discord_env: BotEnv) -> BotEnv:
    """The stand-in env (its date rules follow the bot's FakeClock; see BotEnv)."""
    return discord_env


@pytest.fixture
async def arxiv() -> AsyncIterator[ArxivStandin]:
    """The local arXiv stand-in, knowing no papers until a test adds them (never the real arXiv)."""
    standin = ArxivStandin()
    await standin.start()
    try:
        yield standin
    finally:
        await standin.stop()


@pytest.fixture
def bot_settings_overrides(arxiv: ArxivStandin) -> dict[str, Any]:
    return {"arxiv_api_url": arxiv.url}
