"""The time source. Production uses the system clock; tests and the demo move a FakeClock by hand.

Both implement :class:`Clock`. The background core (bot/background.py) listens to the clock: the system
clock never calls a listener (APScheduler keeps real time), a FakeClock calls each on every move and
awaits it, so a move returns once the work it made due has run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Protocol

ClockListener = Callable[[datetime], object]
"""Called with the new time when a clock moves; an awaitable it returns is awaited."""


class Clock(Protocol):
    """Aware-UTC wall clock. Implementations subclass it, so mypy checks they implement all of it."""

    @property
    def announces_moves(self) -> bool:
        """True when every move is announced to the listeners (a FakeClock): work due at a time can run
        from the listener instead of a real-time alarm, and the mover waits for it."""
        ...

    def now(self) -> datetime:
        """The current time, aware UTC."""
        ...

    def on_change(self, listener: ClockListener) -> None:
        """Call ``listener`` whenever the clock moves (never, for real time)."""
        ...

    def remove_listener(self, listener: ClockListener) -> None:
        """Stop calling ``listener``."""
        ...


class SystemClock(Clock):
    """The real time, from the system."""

    @property
    def announces_moves(self) -> bool:
        """Never: real time moves unannounced."""
        return False

    def now(self) -> datetime:
        """The system's time, aware UTC."""
        return datetime.now(UTC)

    def on_change(self, listener: ClockListener) -> None:
        """Nothing to hear: real time moves continuously and unannounced."""

    def remove_listener(self, listener: ClockListener) -> None:
        """Nothing was kept."""


class FakeClock(Clock):
    """A clock that only moves when told to; listeners hear each move (the background core runs what is
    due)."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("FakeClock needs an aware datetime")
        self._now = start.astimezone(UTC)
        self._listeners: list[ClockListener] = []

    @property
    def announces_moves(self) -> bool:
        """Always: every move calls the listeners."""
        return True

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
