"""The time source (system clock; tests and the demo move a FakeClock), and the Host: store and clock."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

ClockListener = Callable[[datetime], object]
"""Called with the new time when a clock moves; an awaitable it returns is awaited."""


class Clock:
    """Aware-UTC wall clock: the real time, moving unannounced (``announces_moves`` False)."""

    announces_moves = False

    def now(self) -> datetime:
        """The current time, aware UTC."""
        return datetime.now(UTC)

    def on_change(self, listener: ClockListener) -> None:
        """Call ``listener`` whenever the clock moves (never, for real time)."""

    def remove_listener(self, listener: ClockListener) -> None:
        """Stop calling ``listener``."""


class SystemClock(Clock):
    """The real time, from the system."""


class FakeClock(Clock):
    """A clock that only moves when told to; each move awaits every listener."""

    announces_moves = True

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("FakeClock needs an aware datetime")
        self._now = start.astimezone(UTC)
        self._listeners: list[ClockListener] = []

    def now(self) -> datetime:
        """The time the clock was last moved to."""
        return self._now

    def on_change(self, listener: ClockListener) -> None:
        """Call ``listener`` on every move, after the ones added before."""
        self._listeners.append(listener)

    def remove_listener(self, listener: ClockListener) -> None:
        """Stop calling ``listener`` (if it was added)."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    async def advance(self, delta: timedelta) -> None:
        """Move on by ``delta``; returns once every listener has handled the move."""
        await self.set(self._now + delta)

    async def set(self, when: datetime) -> None:
        """Move to ``when``; returns once every listener has handled the move."""
        self._now = when.astimezone(UTC)
        for listener in list(self._listeners):
            result = listener(self._now)
            if asyncio.iscoroutine(result):
                await result


class Host(Protocol):
    """The store (sessions, and the engine for read-only ones) and the clock."""

    session_factory: async_sessionmaker[AsyncSession]
    engine: AsyncEngine
    clock: Clock
