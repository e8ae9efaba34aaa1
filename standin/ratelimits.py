"""Opt-in per-route and global rate limits, as Discord applies them and discord.py consumes them.

Route limits (only ``POST /channels/{channel_id}/messages``, when ``StandIn.channel_message_limit`` is set)
count per bucket and major parameter with Discord's ``X-RateLimit-*`` headers; ``Reset-After`` is rounded up
so a client waking on it is never early. The global limit (``StandIn.global_limit``) counts every request but
the interaction routes, per token or IP, checked first (discord-api-docs ``docs/topics/rate-limits.md``,
"Global Rate Limit"). Not emulated: shared/sub-limits and the invalid-request (Cloudflare) limit.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from standin.state import Json

Limit = tuple[int, float]  # (requests, per seconds)
GLOBAL_LIMIT: Limit = (50, 1.0)  # Discord's documented global limit per bot
CHANNEL_MESSAGES = ("POST", "/channels/{channel_id}/messages")
INTERACTION_ROUTES = ("/interactions/{interaction_id}/{token}/callback", "/webhooks/{app_id}/{token}")
MAJOR_PARAMETERS = ("channel_id", "guild_id", "webhook_id")


def bucket_hash(method: str, template: str) -> str:
    """One opaque hash per route template, whatever the ids in the path (as Discord does)."""
    return hashlib.sha1(f"{method} {template}".encode()).hexdigest()[:16]


def ceil_ms(seconds: float) -> float:
    """Seconds rounded up to whole milliseconds, never below zero."""
    return math.ceil(max(seconds, 0.0) * 1000) / 1000


@dataclass
class Window:
    """One rate-limit window: its limit, period, reset time and requests used."""

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
    is_global: bool = False

    def headers(self) -> dict[str, str]:
        """The ``X-RateLimit-*`` headers Discord sends for this window."""
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
        if self.is_global:
            headers = {
                "Retry-After": str(max(1, math.ceil(retry_after))),
                "X-RateLimit-Global": "true",
                "X-RateLimit-Scope": "global",
                "Via": "1.1 google",
            }
            return {
                "message": "You are being rate limited.",
                "retry_after": retry_after,
                "global": True,
            }, headers
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
        return self._take((method, template, major), limit, bucket_hash(method, template))

    def take_global(self, template: str, identity: str, limit: Limit) -> Verdict | None:
        """Count one request against its sender's global limit; the refusal, or None to go on. ``identity``
        is the bot token (its Authorization header) or, without one, the client's address."""
        if template.startswith(INTERACTION_ROUTES):
            return None
        key = ("*", "global", hashlib.sha1(identity.encode()).hexdigest())  # the token is not kept as is
        verdict = self._take(key, limit, "global")
        if verdict.allowed:
            return None
        return Verdict(False, verdict.limit, 0, verdict.reset_after, verdict.bucket, is_global=True)

    def _take(self, key: tuple[str, str, str], limit: Limit, bucket: str) -> Verdict:
        count, per = limit
        if count < 1 or per <= 0:
            raise ValueError(f"a rate limit needs at least 1 request per positive period, not {limit!r}")
        now = self.clock()
        window = self.windows.get(key)
        if window is None or now >= window.resets_at or (window.limit, window.per) != (count, per):
            self._prune(now)
            window = self.windows[key] = Window(count, per, now + per)
        if window.used >= count:
            return Verdict(False, count, 0, window.resets_at - now, bucket)
        window.used += 1
        return Verdict(True, count, count - window.used, window.resets_at - now, bucket)

    def reset(self) -> None:
        """Forget every window."""
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
    """The route's major parameter (``channel_id=…`` and the like), or "" when it has none."""
    return next((f"{k}={match_info[k]}" for k in MAJOR_PARAMETERS if k in match_info), "")
