"""Helpers for the source-client tests: a virtual clock shared by a client and its stand-in, and the check
that a value from a source came out clean."""

from __future__ import annotations

import asyncio
import unicodedata
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.sources.semantic_scholar import ScholarPaper, SemanticScholarClient

START = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


class VirtualTimer:
    """A bot.sources.http.Timer whose sleeps move it at once: pacing is checked without waiting."""

    def __init__(self, start: datetime = START) -> None:
        self.now = 1000.0
        self._origin = self.now
        self._start = start
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += max(0.0, seconds)
        await asyncio.sleep(0)

    def wall(self) -> datetime:
        return self._start + timedelta(seconds=self.now - self._origin)

    def advance(self, seconds: float) -> None:
        self.now += seconds

    @property
    def elapsed(self) -> float:
        return self.now - self._origin


async def one(client: SemanticScholarClient, ref: str, **options: Any) -> ScholarPaper | None:
    """One paper from Semantic Scholar's batch endpoint."""
    (paper,) = await client.papers([ref], **options)
    return paper


def gaps(times: list[float]) -> list[float]:
    """The time between consecutive arrivals."""
    return [b - a for a, b in zip(times, times[1:], strict=False)]


def assert_clean(value: str | None, cap: int) -> None:
    """A value a client returns: at most ``cap`` long, one line, no control or invisible characters."""
    assert value is not None
    assert len(value) <= cap, len(value)
    assert value == value.strip()
    assert "  " not in value
    bad = [c for c in value if unicodedata.category(c) in ("Cc", "Cf")]
    assert not bad, bad
