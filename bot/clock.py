"""The time source. Production uses the system clock; tests move a FakeClock by hand."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta


class Clock:
    """Aware-UTC wall clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class FakeClock(Clock):
    """A clock that only moves when told to; listeners hear each move (the scheduler re-checks)."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("FakeClock needs an aware datetime")
        self._now = start.astimezone(UTC)
        self._listeners: list[Callable[[datetime], object]] = []

    def now(self) -> datetime:
        return self._now

    def on_change(self, listener: Callable[[datetime], object]) -> None:
        self._listeners.append(listener)

    def remove_listener(self, listener: Callable[[datetime], object]) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    async def advance(self, delta: timedelta) -> None:
        await self.set(self._now + delta)

    async def set(self, when: datetime) -> None:
        self._now = when.astimezone(UTC)
        for listener in list(self._listeners):
            result = listener(self._now)
            if asyncio.iscoroutine(result):
                await result
