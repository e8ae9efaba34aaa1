"""Opt-in per-route rate limits, as Discord applies them and discord.py consumes them.

Discord limits each route per *bucket*: one bucket hash per route (``X-RateLimit-Bucket``, the same for
every channel), counted separately per major parameter (the channel for ``/channels/{channel_id}/...``).
A bucket allows ``limit`` requests in a window that opens with the first request and lasts ``per``
seconds; every answer carries ``X-RateLimit-Limit``, ``-Remaining``, ``-Reset`` (epoch seconds),
``-Reset-After`` (seconds) and ``-Bucket``, and a request over the limit gets a 429 with ``Retry-After``,
``X-RateLimit-Scope: user`` and the body ``{"message", "retry_after", "global": false}``.

discord.py's ``Ratelimit`` (``discord/http.py``) reads those headers: when ``Remaining`` reaches 0 it
sleeps ``Reset-After`` before the next request on that bucket + major parameter, so a well-behaved client
sees (almost) no 429s. ``Reset-After`` is rounded *up* to the millisecond so that a client waking exactly
on it is never early.

Only ``POST /channels/{channel_id}/messages`` is limited, and only when ``StandIn.channel_message_limit``
is set (``(5, 5.0)``: 5 per 5 s). Not emulated: the global 50 requests/s limit, shared/sub-limits and the
invalid-request (Cloudflare) limit.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from standin.state import Json

Limit = tuple[int, float]  # (requests, per seconds)
CHANNEL_MESSAGES = ("POST", "/channels/{channel_id}/messages")
MAJOR_PARAMETERS = ("channel_id", "guild_id", "webhook_id")


def bucket_hash(method: str, template: str) -> str:
    """One opaque hash per route template, whatever the ids in the path (as Discord does)."""
    return hashlib.sha1(f"{method} {template}".encode()).hexdigest()[:16]


def ceil_ms(seconds: float) -> float:
    return math.ceil(max(seconds, 0.0) * 1000) / 1000


@dataclass
class Window:
    limit: int
    per: float
    resets_at: float  # on the stand-in's monotonic clock
    used: int = 0


@dataclass(frozen=True)
class Verdict:
    """The bucket's state after one request: let through (``allowed``) or answered with a 429."""

    allowed: bool
    limit: int
    remaining: int
    reset_after: float
    bucket: str

    def headers(self) -> dict[str, str]:
        reset_after = ceil_ms(self.reset_after)
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": self.bucket,
        }

    def too_many(self) -> tuple[Json, dict[str, str]]:
        """The 429's body and headers (``Via`` makes discord.py treat it as Discord's, not Cloudflare's)."""
        retry_after = ceil_ms(self.reset_after)
        headers = self.headers()
        headers.update(
            {
                "Retry-After": str(max(1, math.ceil(retry_after))),
                "X-RateLimit-Scope": "user",
                "Via": "1.1 google",
            }
        )
        body: Json = {"message": "You are being rate limited.", "retry_after": retry_after, "global": False}
        return body, headers


class RateLimiter:
    """Fixed windows per (route, major parameter), on ``clock`` (the stand-in's monotonic clock)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.windows: dict[tuple[str, str, str], Window] = {}

    def take(self, method: str, template: str, major: str, limit: Limit) -> Verdict:
        """Count one request against its bucket and say whether it may go through."""
        count, per = limit
        if count < 1 or per <= 0:
            raise ValueError(f"a rate limit needs at least 1 request per positive period, not {limit!r}")
        now = self.clock()
        key = (method, template, major)
        window = self.windows.get(key)
        if window is None or now >= window.resets_at or (window.limit, window.per) != (count, per):
            self._prune(now)
            window = self.windows[key] = Window(count, per, now + per)
        bucket = bucket_hash(method, template)
        if window.used >= count:
            return Verdict(False, count, 0, window.resets_at - now, bucket)
        window.used += 1
        return Verdict(True, count, count - window.used, window.resets_at - now, bucket)

    def reset(self) -> None:
        self.windows.clear()

    def _prune(self, now: float) -> None:
        if len(self.windows) > 4096:
            for key in [k for k, w in self.windows.items() if now >= w.resets_at]:
                del self.windows[key]


def route_limit(method: str, template: str, *, channel_message_limit: Limit | None) -> Limit | None:
    """The emulated limit for a route, or None when the route is not limited (the default)."""
    if (method, template) == CHANNEL_MESSAGES:
        return channel_message_limit
    return None


def major_parameter(match_info: Mapping[str, str]) -> str:
    return next((f"{k}={match_info[k]}" for k in MAJOR_PARAMETERS if k in match_info), "")
