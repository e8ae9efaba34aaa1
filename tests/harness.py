"""End-to-end fixtures: the local Discord stand-in and our bot on the test's store (SQLite and PostgreSQL).

    async def test_something(discord_env):
        result = await discord_env.invoke("setup show", member=discord_env.organizer)
        response = await result.response()

Override `bot_settings_overrides` in a test module to change bot settings (e.g. ARXIV_API_URL).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.sandbox.botenv import BotEnv


@pytest.fixture
def bot_settings_overrides() -> dict[str, Any]:
    return {}


@pytest.fixture
async def discord_env(store_info: Any, bot_settings_overrides: dict[str, Any]) -> AsyncIterator[BotEnv]:
    env = BotEnv(
        database_url=store_info.url,
        engine_factory=store_info.engine if store_info.search_path else None,
        settings_overrides=bot_settings_overrides,
    )
    await env.start()
    try:
        yield env
    finally:
        await env.close()
