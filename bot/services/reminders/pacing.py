"""Pacing requests under a rate limit the bot knows, so a burst never runs into a 429.

Discord lets a bot make 50 requests per second across the whole API (discord-api-docs
``docs/topics/rate-limits.md``, "Global Rate Limit"; interaction responses are not counted). It says so
only when a request is over it, with a 429 that stalls every request of the bot for ``retry_after``
(discord.py holds them all). A burst of reminders therefore paces itself: :class:`SlidingWindow` lets at
most ``limit`` requests start in any ``period`` seconds, whatever the server's window alignment.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable

GLOBAL_REQUESTS_PER_SECOND = 50
"""Discord's global limit per bot; 0 or None: do not pace (a bot granted a higher limit, or a server
without one). A setting to be: ``DISCORD_GLOBAL_RATE_LIMIT`` (requests per second, default 50)."""

JITTER = 0.1
"""Seconds added to each one-second window: at most ``limit`` requests start in any 1.1 s, so however
their way to Discord varies (up to 100 ms, as on a busy event loop), at most ``limit`` arrive in any one
second. The pace reaches 50 / 1.1 s = 91% of the limit."""


class SlidingWindow:
    """At most ``limit`` acquisitions in any ``period`` seconds (it remembers the last ``limit`` times)."""

    def __init__(
        self,
        limit: int,
        period: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if limit < 1 or period <= 0:
            raise ValueError(f"a pace needs at least 1 request per positive period, not {limit}/{period}")
        self.limit, self.period = limit, period
        self._clock, self._sleep = clock, sleep
        self._starts: deque[float] = deque()
        self._lock = asyncio.Lock()
        self.waited = 0.0  # seconds spent waiting, in all (for benches and logs)

    async def acquire(self) -> None:
        """Wait until one more request may start, and count it as started now."""
        async with self._lock:  # first come, first served
            while len(self._starts) >= self.limit:
                wait = self._starts[0] + self.period - self._clock()
                if wait <= 0:
                    self._starts.popleft()
                    continue
                self.waited += wait
                await self._sleep(wait)
            self._starts.append(self._clock())


def global_pace(requests_per_second: int | None) -> SlidingWindow | None:
    """The pace for a bot's global limit (``requests_per_second`` a second), or None not to pace."""
    if not requests_per_second:
        return None
    return SlidingWindow(requests_per_second, 1.0 + JITTER)
