"""What every outside-service stand-in shares: an aiohttp server on 127.0.0.1, a log of the requests it saw
(with their time), the service's published rate limit, and trouble switched on per test.

Trouble, checked before the service's handler: the service's own refusals (``refuse``), ``rate_limit_next``,
the modelled rate limit (``enforce_rate_limit``; refusals kept in ``refused_too_fast``), ``fail_next`` and
``mode`` ("down", "slow", "garbage", "wrong_types"). Time comes from ``clock``, so a test can check pacing
on a virtual clock; :func:`hostile_text` is text a source might send to ping, render markdown or flood.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from aiohttp import web

Mode = Literal["ok", "down", "slow", "garbage", "wrong_types"]
Clock = Callable[[], float]

MENTIONS = "@everyone @here <@&123456789012345678> <@123456789012345678>"
MARKDOWN = "**bold** __under__ ~~gone~~ ||spoiler|| `code` # Heading [click me](https://evil.example/)"
CONTROL = "\x00\x07\x1b[31m\u202eevil\u202c\u200b"


def hostile_text(length: int = 10_000, lead: str = "") -> str:
    """``lead``, then mentions, markdown and control characters, padded with words to ``length``."""
    head = f"{lead} {MENTIONS} {MARKDOWN} {CONTROL} ".lstrip()
    return (head + "pad " * length)[:length]


def scramble(value: Any, keep: frozenset[str] = frozenset()) -> Any:
    """The same JSON with every value of another type. Under a key in ``keep`` a string or number stays
    as it is, and a list stays a list (of scrambled items), so a client still finds what it keys on."""
    if isinstance(value, dict):
        return {k: _kept(v, keep) if k in keep else scramble(v, keep) for k, v in value.items()}
    if isinstance(value, list):
        return {"items": [scramble(v, keep) for v in value]}
    if isinstance(value, bool):
        return "true"
    if isinstance(value, int | float):
        return "a great many"
    if isinstance(value, str):
        return [len(value)]
    return {"null": None}


def _kept(value: Any, keep: frozenset[str]) -> Any:
    if isinstance(value, list):
        return [scramble(v, keep) for v in value]
    if isinstance(value, dict):
        return scramble(value, keep)
    return value


@dataclass
class Seen:
    """One request the stand-in received."""

    method: str
    path: str
    query: dict[str, str]
    at: float  # the stand-in's clock when it arrived
    headers: dict[str, str] = field(default_factory=dict)  # user-agent, and whether a key came
    body: Any = None  # the JSON body, for POSTs
    status: int = 0  # what it was answered


class SlidingWindow:
    """At most ``requests`` admitted in any ``per`` seconds."""

    def __init__(self, requests: int, per: float) -> None:
        self.requests = requests
        self.per = per
        self._admitted: deque[float] = deque()

    def admit(self, now: float) -> float | None:
        """None when the request is within the limit (it is counted); else seconds until it would be."""
        while self._admitted and self._admitted[0] <= now - self.per:
            self._admitted.popleft()
        if len(self._admitted) < self.requests:
            self._admitted.append(now)
            return None
        return self._admitted[0] + self.per - now


class FixedWindow:
    """At most ``requests`` in each window of ``per`` seconds counted from ``start``."""

    def __init__(self, requests: int, per: float, start: float = 0.0) -> None:
        self.requests = requests
        self.per = per
        self.start = start
        self._window = -1
        self.used = 0

    def admit(self, now: float) -> float | None:
        """None when the request fits in the current window (it is counted); else seconds until the next."""
        window = int((now - self.start) // self.per)
        if window != self._window:
            self._window, self.used = window, 0
        if self.used < self.requests:
            self.used += 1
            return None
        return self.reset_in(now)

    def reset_in(self, now: float) -> float:
        """Seconds until the current window ends."""
        return self.per - ((now - self.start) % self.per)


class ServiceStandin:
    """Base of the outside-service stand-ins: subclasses add routes and model their limit."""

    name = "service"
    keep_types: frozenset[str] = frozenset()

    def __init__(self, *, clock: Clock | None = None) -> None:
        self.clock: Clock = clock or time.monotonic
        self.mode: Mode = "ok"
        self.delay = 10.0
        self.down_status = 503
        self.enforce_rate_limit = True
        self.requests: list[Seen] = []
        self.refused_too_fast: list[Seen] = []
        self._rate_limit_next = 0
        self._told_retry_after: float | None = 1
        self._fail_next = 0
        self._fail_status = 503
        self._released = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.url = ""

    # -- switches -------------------------------------------------------------------------------------------
    def rate_limit_next(self, count: int, retry_after: float | None = 1) -> None:
        """Answer the next ``count`` requests with 429 (with ``Retry-After: retry_after`` unless None)."""
        self._rate_limit_next = count
        self._told_retry_after = retry_after

    def fail_next(self, count: int, status: int = 503) -> None:
        """Answer the next ``count`` requests with ``status``."""
        self._fail_next = count
        self._fail_status = status

    def count(self, path_prefix: str = "") -> int:
        """Requests seen whose path starts with ``path_prefix``."""
        return sum(1 for seen in self.requests if seen.path.startswith(path_prefix))

    # -- for subclasses ------------------------------------------------------------------------------------
    def add_routes(self, router: web.UrlDispatcher) -> None:
        """Register the service's routes."""
        raise NotImplementedError

    def refuse(self, request: web.Request) -> web.Response | None:
        """The service's answer to a request it refuses outright (a wrong key, say); None: go on."""
        return None

    def over_limit(self, request: web.Request, now: float) -> float | None:
        """Seconds until ``request`` would be within the service's published limit; None when it is
        (and it is counted against the limit)."""
        return None

    def busy(self, request: web.Request) -> bool:
        """True when the service refuses for its own load, whatever the client's pace (a shared pool)."""
        return False

    def too_fast(self, request: web.Request, wait: float | None, told: bool = False) -> web.Response:
        """The service's 429 (``wait``: seconds to advertise; None: say nothing; ``told``: a test asked
        for it with ``rate_limit_next``, so a service that advertises no wait of its own says this one)."""
        headers = {"Retry-After": str(max(1, round(wait + 0.499)))} if wait is not None else {}
        return web.json_response({"message": "Too Many Requests"}, status=429, headers=headers)

    def garbage(self) -> web.Response:
        """What a broken proxy in front of the service answers."""
        return web.Response(
            text="<html><body><h1>502 Bad Gateway</h1></body></html>", content_type="application/json"
        )

    # -- lifecycle -----------------------------------------------------------------------------------------
    async def start(self, port: int = 0) -> str:
        """Serve on 127.0.0.1 (any free port unless given); returns and keeps the root URL."""
        app = web.Application(middlewares=[self._middleware], client_max_size=4 * 1024 * 1024)
        self.add_routes(app.router)
        self._released = asyncio.Event()
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        self.url = f"http://127.0.0.1:{self._runner.addresses[0][1]}"
        return self.url

    async def stop(self) -> None:
        """Release slow answers and stop serving."""
        self._released.set()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> ServiceStandin:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @web.middleware
    async def _middleware(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        now = self.clock()
        body = None
        if request.can_read_body:
            try:
                body = await request.json()
            except ValueError:
                body = None
        seen = Seen(
            request.method,
            request.path,
            dict(request.query),
            now,
            {
                "user-agent": request.headers.get("User-Agent", ""),
                "x-api-key": "present" if "x-api-key" in request.headers else "",
            },
            body,
        )
        self.requests.append(seen)
        response = await self._answer(request, handler, seen, now)
        seen.status = response.status
        return response

    async def _answer(
        self,
        request: web.Request,
        handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
        seen: Seen,
        now: float,
    ) -> web.StreamResponse:
        if (refusal := self.refuse(request)) is not None:
            return refusal
        if self._rate_limit_next > 0:
            self._rate_limit_next -= 1
            return self.too_fast(request, self._told_retry_after, told=True)
        if self.enforce_rate_limit and (wait := self.over_limit(request, now)) is not None:
            self.refused_too_fast.append(seen)
            return self.too_fast(request, wait)
        if self.busy(request):
            return self.too_fast(request, None)
        if self._fail_next > 0:
            self._fail_next -= 1
            return web.Response(status=self._fail_status, text="Service Unavailable")
        if self.mode == "down":
            return web.Response(status=self.down_status, text="Service Unavailable")
        if self.mode == "slow":
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._released.wait(), self.delay)
        if self.mode == "garbage":
            return self.garbage()
        response = await handler(request)
        if self.mode == "wrong_types" and isinstance(response, web.Response) and response.text:
            try:
                answer = json.loads(response.text)
            except ValueError:
                return response
            return web.json_response(scramble(answer, self.keep_types), status=response.status)
        return response
