"""bot.clock: the system and the fake clock implement one Clock protocol, so no code probes which it has."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.clock import Clock, FakeClock, SystemClock

ROOT = Path(__file__).resolve().parents[2]
START = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)


def test_the_system_clock_is_aware_utc_and_never_calls_its_listeners() -> None:
    clock: Clock = SystemClock()
    heard: list[datetime] = []
    clock.on_change(heard.append)
    before = datetime.now(UTC)
    now = clock.now()
    assert now.tzinfo is UTC
    assert before <= now <= datetime.now(UTC)
    assert not clock.announces_moves
    clock.remove_listener(heard.append)  # a no-op, also for a listener it never kept
    assert heard == []


async def test_a_fake_clock_announces_each_move_and_awaits_its_listeners() -> None:
    fake = FakeClock(START)
    clock: Clock = fake
    assert clock.announces_moves
    heard: list[datetime] = []

    async def slow_listener(now: datetime) -> None:
        heard.append(now)

    clock.on_change(slow_listener)
    clock.on_change(heard.append)
    await fake.advance(timedelta(hours=1))
    assert heard == [START + timedelta(hours=1)] * 2
    clock.remove_listener(slow_listener)
    await fake.set(START + timedelta(days=1))
    assert heard[2:] == [START + timedelta(days=1)]
    assert clock.now() == START + timedelta(days=1)


def test_a_fake_clock_needs_an_aware_start() -> None:
    with pytest.raises(ValueError, match="aware"):
        FakeClock(datetime(2026, 11, 30, 17, 0))  # naive: refused


def test_production_code_never_probes_which_clock_it_has() -> None:
    """Code asks the protocol (``clock.announces_moves``), not ``hasattr(clock, ...)``."""
    probe = re.compile(r"(hasattr|getattr)\([^)]*clock")
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for folder in ("bot", "cogs")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if probe.search(line)
    ]
    assert found == []
