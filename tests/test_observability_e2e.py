"""/metrics and /healthz on the bot's web server, read after real activity through the stand-in: commands
(answered and refused), a reminder sent, the periodic jobs, the gateway, a store error."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import aiohttp
import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError, ProgrammingError

from bot.client import build_bot
from bot.metrics import health_problems, metric, parse_metrics
from bot.settings import load_settings
from db.engine import create_engine


@pytest.fixture
def bot_settings_overrides(arxiv: Any) -> dict[str, Any]:
    return {"arxiv_api_url": arxiv.url, "web_port": 0}


async def get(env: Any, path: str) -> tuple[int, str]:
    assert env.bot.web is not None
    async with aiohttp.ClientSession() as http, http.get(f"{env.bot.web.public_url}{path}") as answer:
        return answer.status, await answer.text()


async def scrape(env: Any) -> dict[Any, float]:
    status, body = await get(env, "/metrics")
    assert status == 200
    return parse_metrics(body)


async def test_metrics_reflect_what_happened(discord_env) -> None:
    env = discord_env
    before = await scrape(env)
    assert metric(before, "paperclub_interactions_total", command="setup show", outcome="ok") == 0
    assert metric(before, "paperclub_gateway_connected", shard=0) == 1
    assert metric(before, "paperclub_job_runs_total", job="suggestions.polls", outcome="ok") == 1  # at start

    for _ in range(2):
        await (await env.invoke("setup show", member=env.admin)).response()
    refused = await (
        await env.invoke("organize reminder add", {"when": "tomorrow 9am", "message": "x"}, member=env.member)
    ).response()
    assert refused.ephemeral
    reply = await (
        await env.invoke("organize reminder add", {"when": "tomorrow 9am", "message": "Read it"})
    ).final()
    assert "will go out" in reply.content
    await env.clock.advance(timedelta(days=1))  # to 9:00 tomorrow: the reminder is due, and both jobs
    await env.bot.get_cog("RemindersCog").settle()
    with pytest.raises((ProgrammingError, OperationalError)):
        async with env.bot.engine.connect() as conn:
            await conn.execute(text("SELECT * FROM no_such_table"))

    after = await scrape(env)
    assert metric(after, "paperclub_interactions_total", command="setup show", outcome="ok") == 2
    assert metric(after, "paperclub_interactions_total", command="organize reminder add", outcome="ok") == 1
    assert (
        metric(
            after,
            "paperclub_interactions_total",
            command="organize reminder add",
            outcome="refused:NotAllowed",
        )
        == 1
    )
    assert metric(after, "paperclub_interaction_latency_seconds_count", command="setup show") == 2
    assert metric(after, "paperclub_reminders_total", outcome="due") == 1
    assert metric(after, "paperclub_reminders_total", outcome="sent") == 1
    assert metric(after, "paperclub_reminders_total", outcome="failed") == 0
    assert metric(after, "paperclub_reminder_lateness_seconds_count") == 1
    assert metric(after, "paperclub_reminders_total", outcome="late") == 0  # sent at 9:00 sharp
    assert metric(after, "paperclub_job_runs_total", job="suggestions.polls", outcome="ok") == 2
    assert metric(after, "paperclub_job_runs_total", job="papers.enrich", outcome="ok") == 2
    assert "paperclub_job_lag_seconds" in {name for name, _ in after}
    errors = {labels: v for (name, labels), v in after.items() if name == "paperclub_store_errors_total"}
    assert sum(errors.values()) == 1, errors
    latency = [v for (name, labels), v in after.items() if name == "paperclub_gateway_latency_seconds"]
    assert len(latency) <= 1  # one shard; present once a heartbeat was acknowledged


async def test_healthz_is_ready_then_names_the_broken_store(discord_env) -> None:
    env = discord_env
    assert await get(env, "/healthz") == (200, "ready\n")
    working = env.bot.engine
    env.bot.engine = create_engine("postgresql+asyncpg://paperclub:hunter2-secret@127.0.0.1:9/none")
    try:
        status, body = await get(env, "/healthz")
    finally:
        await env.bot.engine.dispose()
        env.bot.engine = working
    assert status == 503
    assert body.startswith("not ready\n- store: ")
    assert "hunter2" not in body
    assert await get(env, "/healthz") == (200, "ready\n")


async def test_an_unconnected_bot_is_not_healthy(tmp_path) -> None:
    settings = load_settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'x.db'}", shard_count=4, shard_ids="1,3"
    )
    bot = build_bot(settings)
    try:
        assert await health_problems(bot) == [
            "shard 1: gateway not connected",
            "shard 3: gateway not connected",
        ]
    finally:
        await bot.engine.dispose()
