"""The polite, paced HTTP every outside source shares, and the results several sources give."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypedDict

import aiohttp
from multidict import CIMultiDict

from bot import __version__
from bot.sources.pace import (
    MAX_RETRY_AFTER,
    Pacer,
    RateLimit,
    StoreTurns,
    SystemTimer,
    Timer,
    retry_after_seconds,
)

log = logging.getLogger("paperclub.sources")

USER_AGENT = f"paperclub-bot/{__version__} (Discord paper club; paper metadata lookups)"
MAX_BODY_BYTES = 10 * 1024 * 1024  # Semantic Scholar's documented most per answer; nothing we ask is bigger
MIN_RATE_LIMIT_WAIT = 1.0  # a 429 saying "now" still waits this long: no burst of refused requests
RATE_LIMITED_TRIES = 5  # a call meeting this many 429s in a row leaves the source for now
BACKOFF = 1.0  # seconds between tries after a failure


def user_agent(mailto: str | None = None) -> str:
    """The User-Agent naming the bot (with the operator's contact address, when there is one)."""
    return f"{USER_AGENT[:-1]}; mailto:{mailto})" if mailto else USER_AGENT


class SourceUnavailable(Exception):
    """A source could not be asked (down, slow, rate-limited, garbage); ``retry_at``: when it said to come back."""

    def __init__(self, source: str, reason: str, retry_at: datetime | None = None) -> None:
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason
        self.retry_at = retry_at


@dataclass(frozen=True)
class Reply:
    """One answer: its status, headers and text."""

    status: int
    headers: Mapping[str, str]
    text: str


@dataclass(frozen=True)
class Candidate:
    """One answer to a title search; ``source_id`` is the source's own id."""

    source: str
    source_id: str
    title: str
    authors: tuple[str, ...]
    year: int | None = None
    venue: str | None = None
    arxiv_id: str | None = None
    doi: str | None = None
    url: str | None = None


@dataclass(frozen=True)
class DoiRecord:
    """What a DOI registration agency (Crossref or DataCite, ``source``) holds for one DOI."""

    source: str
    doi: str
    title: str | None
    authors: tuple[str, ...]
    year: int | None
    venue: str | None  # the journal or proceedings (Crossref's container-title), or the publisher (arXiv)
    url: str | None  # where the DOI resolves to, or the doi.org link


RetryHint = Callable[[Reply, datetime], float | None]  # a source's own "wait this long" after a 429
Throttled = Callable[[Reply], bool]  # a source's own "too fast" without a 429


class _Retryable(Exception):
    pass


class SourceClient:
    """Base of the source clients: one source's HTTP, paced, one request at a time, with retries."""

    source = "source"

    def __init__(
        self,
        base_url: str,
        limit: RateLimit,
        *,
        mailto: str | None = None,
        timer: Timer | None = None,
        timeout: float = 10.0,
        retries: int = 1,
        max_wait: float = 10.0,
        default_retry_after: float | None = None,
        headers: Mapping[str, str] | None = None,
        retry_hint: RetryHint | None = None,
        throttled: Throttled | None = None,
        turns: StoreTurns | None = None,
    ) -> None:
        self.mailto = mailto
        self.base_url = base_url.rstrip("/")
        self.timer = timer or SystemTimer()
        self.pacer = Pacer(limit, self.timer)
        self.timeout = timeout
        self.retries = max(0, retries)
        self.max_wait = max_wait
        self.default_retry_after = default_retry_after if default_retry_after is not None else limit.per
        self._headers = {"User-Agent": user_agent(mailto), "Accept": "application/json", **(headers or {})}
        self._retry_hint = retry_hint
        self._throttled = throttled
        self.turns = turns
        self._session: aiohttp.ClientSession | None = None
        self._lock = asyncio.Lock()

    @property
    def blocked_for(self) -> float:
        """Seconds until the source's last Retry-After runs out (0 when it may be asked)."""
        return self.pacer.blocked_for

    async def close(self) -> None:
        """Close the connection pool (a later request opens a new one)."""
        if self._session is not None:
            await self._session.close()
            self._session = None

    def unavailable(self, reason: str) -> SourceUnavailable:
        """A SourceUnavailable for this source, carrying the end of any Retry-After."""
        blocked = self.pacer.blocked_for
        retry_at = self.timer.wall() + timedelta(seconds=blocked) if blocked else None
        return SourceUnavailable(self.source, reason, retry_at)

    def answer(self, reply: Reply, what: str, unknown: tuple[int, ...] = (404,)) -> Any:
        """A 200's JSON; None for a status in ``unknown``; SourceUnavailable for any other status or not JSON."""
        if reply.status in unknown:
            return None
        if reply.status != 200:
            raise self.unavailable(f"answered HTTP {reply.status} to {what}")
        try:
            return json.loads(reply.text)
        except ValueError:
            raise self.unavailable(f"answered HTTP {reply.status} with something that is not JSON") from None

    async def get(
        self,
        path: str,
        params: Mapping[str, str] | None = None,
        *,
        max_wait: float | None = None,
        body: Any = None,
        base: str | None = None,
    ) -> Reply:
        """GET (or POST a JSON ``body``) ``base`` or ``base_url`` + ``path`` within ``max_wait``; 429, 5xx retried."""
        limit = self.max_wait if max_wait is None else max_wait
        started = self.timer.monotonic()
        try:
            async with asyncio.timeout(limit):
                await self._lock.acquire()
        except TimeoutError:
            raise self.unavailable(f"busy with other requests for more than {limit:g} s") from None
        try:
            url = (base or self.base_url).rstrip("/") + path
            return await self._request(url, path, params, body, limit - (self.timer.monotonic() - started))
        finally:
            self._lock.release()

    async def _request(
        self, url: str, path: str, params: Mapping[str, str] | None, body: Any, max_wait: float
    ) -> Reply:
        deadline = self.timer.monotonic() + max_wait
        failures, throttled, reason = 0, 0, "no attempt"
        while True:
            await self._wait_turn(deadline)
            failed = False
            try:
                reply = await self._send(url, params, body)
            except _Retryable as exc:
                reason, failed = str(exc), True
            else:
                if reply.status == 429 or (self._throttled is not None and self._throttled(reply)):
                    wait = self._retry_after(reply)
                    self.pacer.block(wait)
                    reason = f"rate-limited (HTTP {reply.status}), asked to wait {wait:g} s"
                elif reply.status >= 500:
                    reason, failed = f"HTTP {reply.status}", True
                else:
                    return reply
            finally:
                self.pacer.finished()
                await self._give_back()
            if not failed:  # rate-limited: the next turn waits it out, or says when the source is free
                log.info("%s %s: %s", self.source, path, reason)
                throttled += 1
                if throttled >= RATE_LIMITED_TRIES:
                    raise self.unavailable(f"{reason}, {throttled} times in a row")
                continue
            failures += 1
            log.info(
                "%s %s failed (attempt %d/%d): %s", self.source, path, failures, self.retries + 1, reason
            )
            if failures > self.retries:
                raise self.unavailable(reason)
            self._fits(BACKOFF, deadline, reason)
            await self.timer.sleep(BACKOFF)

    async def _wait_turn(self, deadline: float) -> None:
        """Wait for the pacer, then (a source shared across processes) take the store's turn."""
        while True:
            wait = self.pacer.delay()
            if wait <= 0 and self.turns is not None:
                hold = self.timeout + self.pacer.limit.per  # a process that dies mid-request frees it then
                free_at = await self.turns.take(self.source, self.timer.wall(), hold)
                if free_at is None:
                    return
                wait = max((free_at - self.timer.wall()).total_seconds(), 0.05)
            elif wait <= 0:
                return
            self._fits(wait, deadline)
            await self.timer.sleep(wait)

    def _fits(self, wait: float, deadline: float, reason: str | None = None) -> None:
        """Raise SourceUnavailable, saying when the source may be asked, unless ``wait`` ends by ``deadline``."""
        if self.timer.monotonic() + wait <= deadline:
            return
        if reason is not None:
            raise self.unavailable(reason)
        if self.pacer.blocked_for >= wait:
            raise self.unavailable(f"asked us to wait {wait:.0f} s")
        raise SourceUnavailable(
            self.source,
            f"its rate limit ({self.pacer.limit}) allows the next request in {wait:.0f} s",
            self.timer.wall() + timedelta(seconds=wait),
        )

    async def _give_back(self) -> None:
        """Hand the store's turn back: free again after the pace, or after a Retry-After, for every process."""
        if self.turns is None:
            return
        spacing = self.pacer.limit.per / self.pacer.limit.requests
        wait = max(spacing, self.pacer.blocked_for)
        now = self.timer.wall()
        await self.turns.give_back(self.source, now, now + timedelta(seconds=wait))

    def _retry_after(self, reply: Reply) -> float:
        now = self.timer.wall()
        seconds = retry_after_seconds(reply.headers, now)
        if seconds is None and self._retry_hint is not None:
            seconds = self._retry_hint(reply, now)
        if seconds is None:
            seconds = self.default_retry_after
        return min(max(seconds, MIN_RATE_LIMIT_WAIT), MAX_RETRY_AFTER)

    async def _send(self, url: str, params: Mapping[str, str] | None, body: Any) -> Reply:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(headers=self._headers)
        try:
            async with self._session.request(
                "GET" if body is None else "POST",
                url,
                params=params,
                json=body,
                timeout=aiohttp.ClientTimeout(total=self.timeout),
            ) as response:
                raw = await response.content.read(MAX_BODY_BYTES + 1)
                if len(raw) > MAX_BODY_BYTES:
                    raise self.unavailable(f"answered more than {MAX_BODY_BYTES // 2**20} MiB")
                try:
                    text = raw.decode(response.charset or "utf-8", errors="replace")
                except LookupError:  # a charset Python does not know
                    text = raw.decode("utf-8", errors="replace")
                return Reply(response.status, CIMultiDict(response.headers), text)
        except TimeoutError as exc:
            raise _Retryable(f"no answer within {self.timeout:g} s") from exc
        except aiohttp.ClientError as exc:
            raise _Retryable(f"{type(exc).__name__}: {str(exc)[:200]}") from exc


class ClientOptions(TypedDict, total=False):
    """What every source client takes besides its base URL (see :class:`SourceClient`)."""

    mailto: str | None  # the operator's contact address, named in the User-Agent
    timer: Timer | None
    timeout: float
    retries: int
    max_wait: float
