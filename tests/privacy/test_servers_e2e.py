"""The bot removed from a server and added back, through the stand-in with the real discord.py client, on a
controllable clock: within the grace period everything is kept; past it nothing of the server is (every
table of the store read by its own schema), and another server's data is untouched."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

from bot.demo.botenv import BotEnv
from bot.services.privacy import servers
from tests.privacy.helpers import club, guild_rows, other_server, privacy, settle

GRACE = 30


@pytest.fixture
def bot_settings_overrides(arxiv: Any) -> dict[str, Any]:
    return {"arxiv_api_url": arxiv.url, "guild_data_grace_days": GRACE, "web_port": 0}


async def _noted(env: BotEnv, change: Any) -> None:
    """Do ``change`` (the bot removed or added) and wait until the bot has recorded it."""
    cog: Any = env.bot.get_cog("PrivacyCog")
    noted = cog.noted(env.guild.id)
    noted.clear()
    await change
    await asyncio.wait_for(noted.wait(), 15)


async def _started(env: BotEnv) -> None:
    cog: Any = env.bot.get_cog("PrivacyCog")
    await asyncio.wait_for(cog.reconciled.wait(), 15)


async def _departed(env: BotEnv) -> set[int]:
    async with env.bot.session_factory() as session:
        return set(await servers.departed(session))


async def test_removed_and_added_back_within_the_grace_period_keeps_everything_then_past_it_nothing(
    discord_env: BotEnv,
) -> None:
    env = discord_env
    await club(env, website=True)
    other = await other_server(env, env.members[0])
    kept = await guild_rows(env, env.guild.id)
    elsewhere = await guild_rows(env, other)
    assert {"sessions", "suggestions", "papers", "reading_search", "site_settings"} <= set(kept)
    await _noted(env, env.standin.remove_bot(env.guild))
    assert await _departed(env) == {env.guild.id}
    await env.clock.advance(timedelta(days=GRACE - 1))
    await settle(env)
    assert await guild_rows(env, env.guild.id) == {**kept, "guild_departures": 1}
    await _noted(env, env.standin.add_bot(env.guild))
    assert await _departed(env) == set()
    await env.clock.advance(timedelta(days=2))  # past the first removal's grace: nothing goes
    await settle(env)
    assert await guild_rows(env, env.guild.id) == kept
    shown = await privacy(env, env.members[0])  # the bot answers there again, with all she left
    assert "- **Suggestions** · 1 — " in shown.text
    await _noted(env, env.standin.remove_bot(env.guild))
    await env.clock.advance(timedelta(days=GRACE, hours=1))
    await settle(env)
    assert await guild_rows(env, env.guild.id) == {}
    assert await _departed(env) == set()
    assert await guild_rows(env, other) == elsewhere


async def test_a_server_that_removed_the_bot_while_it_was_offline_is_marked_at_start_up(
    discord_env: BotEnv,
) -> None:
    env = discord_env
    await club(env, website=False)
    await env.stop_bot()
    await env.standin.remove_bot(env.guild)  # nobody connected hears it
    await env.start_bot()
    await _started(env)
    async with env.bot.session_factory() as session:
        left = await servers.departed(session)
    assert set(left) == {env.guild.id}
    assert left[env.guild.id] == env.clock.now()
    await env.stop_bot()
    await env.standin.add_bot(env.guild)
    await env.start_bot()
    await _started(env)
    assert await _departed(env) == set()
