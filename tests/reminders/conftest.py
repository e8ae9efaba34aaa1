"""Fixtures for the reminders end-to-end tests."""

from __future__ import annotations

import datetime as real_dt
import types
from collections.abc import Iterator
from typing import Any

import pytest

from bot.sandbox import rest_events
from bot.sandbox.botenv import BotEnv


@pytest.fixture
def env(discord_env: BotEnv, monkeypatch: pytest.MonkeyPatch) -> Iterator[BotEnv]:
    """The stand-in env, its "is this scheduled event in the past?" check following the bot's FakeClock
    (sessions made in these tests create events at FakeClock dates)."""
    clock = discord_env.clock

    class ClockedDatetime(real_dt.datetime):
        @classmethod
        def now(cls, tz: Any = None) -> Any:
            now = clock.now()
            return now.astimezone(tz) if tz is not None else now.replace(tzinfo=None)

    shim = types.SimpleNamespace(
        **{name: getattr(real_dt, name) for name in dir(real_dt) if not name.startswith("__")}
    )
    shim.datetime = ClockedDatetime
    monkeypatch.setattr(rest_events, "dt", shim)
    yield discord_env
