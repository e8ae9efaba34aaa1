"""Time and pace for the outside sources: timers, :class:`Pacer`, :class:`StoreTurns`, a 429's wait."""

from __future__ import annotations

import asyncio
import email.utils
import re
import time
import uuid
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import claims
from bot.clock import Clock

MAX_RETRY_AFTER = 24 * 3600.0  # a longer Retry-After is read as a day
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_RATELIMIT_RESET = re.compile(r";\s*t=(\d+(?:\.\d+)?)")
TURN_POLL = timedelta(seconds=0.5)  # how often a taker looks again while another process holds the turn


class Timer(Protocol):
    """Where a client's time comes from: a monotonic clock, a sleep on it, and the wall clock (aware UTC)."""

    def monotonic(self) -> float:
        """Seconds on a monotonic clock."""

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds``."""

    def wall(self) -> datetime:
        """Now, aware UTC."""


class SystemTimer:
    """The real clocks."""

    def monotonic(self) -> float:
        """time.monotonic()."""
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        """asyncio.sleep."""
        await asyncio.sleep(seconds)

    def wall(self) -> datetime:
        """datetime.now(UTC)."""
        return datetime.now(UTC)


class ClockTimer:
    """A FakeClock's time plus what the sources' own waits added: a wait returns at once (tests, the demo)."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.waited = 0.0  # seconds the waits added

    def monotonic(self) -> float:
        """Seconds since the epoch on the clock, plus the waits."""
        return (self.clock.now() - EPOCH).total_seconds() + self.waited

    async def sleep(self, seconds: float) -> None:
        """Move on by ``seconds`` at once."""
        self.waited += max(0.0, seconds)
        await asyncio.sleep(0)

    def wall(self) -> datetime:
        """The clock's now, plus the waits."""
        return self.clock.now() + timedelta(seconds=self.waited)


def timer_for(clock: Clock) -> Timer:
    """The sources' time for the bot's clock: the system's, or a :class:`ClockTimer` for a FakeClock."""
    return ClockTimer(clock) if clock.announces_moves else SystemTimer()


class StoreTurns:
    """A source's turn shared by every process on one store (arXiv's limit is per client address)."""

    def __init__(self, session_factory: async_sessionmaker[AsyncSession]) -> None:
        self.session_factory = session_factory
        self.owner = uuid.uuid4().hex

    async def take(self, source: str, now: datetime, hold: float) -> datetime | None:
        """Take the turn for ``hold`` seconds at most: None when taken, else when to look again."""
        key = f"sources.{source}.turn"
        async with self.session_factory() as session, session.begin():
            if await claims.claim(session, key, self.owner, now, timedelta(seconds=hold)):
                return None
            free_at = await claims.held_until(session, key) or now
        return min(free_at, now + TURN_POLL)  # a request in flight frees it sooner than its hold says

    async def give_back(self, source: str, now: datetime, free_at: datetime) -> None:
        """End this process's request: the turn stays held, by no request, until ``free_at``."""
        key = f"sources.{source}.turn"
        async with self.session_factory() as session, session.begin():
            await claims.release(session, key, self.owner)
            await claims.claim(session, key, self.owner, now, max(free_at - now, timedelta(0)))


@dataclass(frozen=True)
class RateLimit:
    """At most ``requests`` requests in any ``per`` seconds."""

    requests: int
    per: float

    def __post_init__(self) -> None:
        if self.requests < 1 or self.per <= 0:
            raise ValueError("a rate limit needs at least one request per a positive time")

    def __str__(self) -> str:
        return f"{self.requests} per {self.per:g} s"


class Pacer:
    """Keeps one source within its rate limit and its last ``Retry-After``."""

    def __init__(self, limit: RateLimit, timer: Timer) -> None:
        self.limit = limit
        self._timer = timer
        self._finished: deque[float] = deque(maxlen=limit.requests)
        self._blocked_until = 0.0

    @property
    def blocked_for(self) -> float:
        """Seconds until the source's last Retry-After runs out (0 when it may be asked)."""
        return max(0.0, self._blocked_until - self._timer.monotonic())

    def delay(self) -> float:
        """Seconds before the next request may go (the rate limit and any Retry-After)."""
        now = self._timer.monotonic()
        wait = self._blocked_until - now
        if len(self._finished) >= self.limit.requests:
            wait = max(wait, self._finished[0] + self.limit.per - now)
        return max(0.0, wait)

    def block(self, seconds: float) -> None:
        """The source asked for no request in the next ``seconds``."""
        self._blocked_until = max(self._blocked_until, self._timer.monotonic() + seconds)

    def finished(self) -> None:
        """A request has just ended (answered or not): it counts against the limit from now."""
        self._finished.append(self._timer.monotonic())


def retry_after_seconds(headers: Mapping[str, str], now: datetime) -> float | None:
    """Seconds to wait from ``Retry-After`` (RFC 9110 §10.2.3) or a ``RateLimit`` header's ``t=``."""
    value = (headers.get("Retry-After") or "").strip()
    seconds: float | None = None
    if value:
        try:
            seconds = float(value)
        except ValueError:
            try:
                when = email.utils.parsedate_to_datetime(value)
            except (TypeError, ValueError, IndexError):
                when = None
            if when is not None:
                if when.tzinfo is None:
                    when = when.replace(tzinfo=UTC)
                seconds = (when - now).total_seconds()
    if seconds is None and (ratelimit := headers.get("RateLimit")):
        match = _RATELIMIT_RESET.search(ratelimit)
        seconds = float(match[1]) if match else None
    if seconds is None or seconds != seconds:  # NaN
        return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)
