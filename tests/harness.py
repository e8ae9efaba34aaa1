"""End-to-end fixtures: the local Discord stand-in and our bot on the test's store (SQLite and PostgreSQL).

    async def test_something(discord_env):
        result = await discord_env.invoke("setup show", member=discord_env.organizer)
        response = await result.response()

Override `bot_settings_overrides` in a test module to change bot settings; `arxiv` is a local arXiv
stand-in the bot is pointed at (extend it to seed papers). A request that breaks Discord's OpenAPI
description fails the test at teardown, naming the operation and the JSON pointer, even when the bot's
error handling swallowed the 400 (`env.standin.take_violations()` for a test that sends one on purpose).
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.demo.botenv import BotEnv
from standin.arxiv import ArxivStandin
from standin.openapi import SpecViolationError


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


@pytest.fixture
async def discord_env(store_info: Any, bot_settings_overrides: dict[str, Any]) -> AsyncIterator[BotEnv]:
    env = BotEnv(database_url=store_info.url, settings_overrides=bot_settings_overrides)
    await env.start()
    try:
        yield env
    finally:
        failure = ""
        try:
            await env.close()
        except SpecViolationError as exc:  # a request broke Discord's OpenAPI description: fail the test
            failure = str(exc)
        if not failure:
            failure = await _left_behind()
        if failure:
            pytest.fail(failure, pytrace=False)


LEFTOVER_WAIT_SECONDS = 10.0


async def _left_behind() -> str:
    """Tasks the bot left running after it closed are cancelled here, where a task that will not stop is
    named with its stack (else the event loop's close waits for it until the test times out)."""
    current = asyncio.current_task()
    left = [task for task in asyncio.all_tasks() if task is not current and not task.done()]
    for task in left:
        task.cancel()
    if not left:
        return ""
    _, stuck = await asyncio.wait(left, timeout=LEFTOVER_WAIT_SECONDS)
    if not stuck:
        return ""
    report = io.StringIO()
    for task in stuck:
        task.print_stack(file=report)
    return f"{len(stuck)} task(s) would not stop after the bot closed:\n{report.getvalue()}"
