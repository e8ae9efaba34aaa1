"""The bot freezes its start-up heap once, at the first READY, so no full collection of it pauses an
interaction later (bot/client.py ``freeze_startup_heap``)."""

from __future__ import annotations

import gc

import pytest

from tests.cards import card_title


async def test_the_first_ready_freezes_the_start_up_heap_once(
    discord_env, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = discord_env
    gc.unfreeze()  # what the harness froze before the test; the bot's own freeze is what is checked
    calls: list[int] = []
    monkeypatch.setattr(gc, "freeze", lambda: calls.append(1))
    bot = await env.restart_bot()  # a fresh bot on the same store: its first READY
    assert calls == [1]
    assert bot._heap_frozen
    bot.freeze_startup_heap()  # later READYs (a new session after a reconnect) do not freeze again
    assert calls == [1]
    reply = await (await env.invoke("setup show", member=env.admin)).response()
    assert card_title(reply) == "Paper club settings"  # and the bot still answers
