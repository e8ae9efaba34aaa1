"""Bodies the site's handlers keep, each answered again with no store read but the site's own.

A body is kept with the guild's content generation it was built at (``site_generations``, moved on by
the database's triggers in the same transaction as any write to what the site shows, whichever process
wrote: migration 0015) and the instant until which time alone leaves it unchanged (``valid_until``: a
session starting or ending, a session leaving the calendar's window, the year turning in the guild's
zone …, worked out from the page's own values by the functions below). A request reads the site and its
generation (one statement); while both the generation and the clock say the kept body is current, it is
the answer. Otherwise the page is built from the store, as without a cache.

The generation is read before anything a body is built from (the same snapshot on SQLite; on PostgreSQL,
READ COMMITTED, an earlier statement): a write committing in between makes the body newer than its
generation says, never older, and the next request, seeing the new generation, builds it again.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final
from zoneinfo import ZoneInfo


def etag_of(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:40] + '"'


@dataclass(frozen=True)
class KeptBody:
    generation: int
    valid_until: datetime | None  # None: time alone never changes the body
    key: Any  # what else the body was built from that is not in the store (the public address)
    body: bytes
    etag: str
    kept_at: float  # time.monotonic()


class Kept:
    """The last body built per guild and page. ``seconds`` bounds how long one is kept (0: nothing kept,
    every body built): a safety bound only, since the generation and ``valid_until`` already say when a
    body is stale. At most :data:`MAX_KEPT` bodies, the least recently used dropped first."""

    MAX_KEPT: Final = 2_000

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._kept: OrderedDict[tuple[int, str], KeptBody] = OrderedDict()

    def forget(self, guild_id: int) -> None:
        for key in [k for k in self._kept if k[0] == guild_id]:
            del self._kept[key]

    def get(self, guild_id: int, name: str, generation: int, now: datetime, key: Any) -> KeptBody | None:
        """The kept body if it was built at ``generation`` from ``key`` and is still current at ``now``."""
        if self.seconds <= 0:
            return None
        hit = self._kept.get((guild_id, name))
        if (
            hit is None
            or hit.generation != generation
            or hit.key != key
            or (hit.valid_until is not None and now >= hit.valid_until)
            or time.monotonic() - hit.kept_at >= self.seconds
        ):
            return None
        self._kept.move_to_end((guild_id, name))
        return hit

    def keep(
        self,
        guild_id: int,
        name: str,
        generation: int,
        valid_until: datetime | None,
        key: Any,
        body: bytes,
    ) -> KeptBody:
        kept = KeptBody(generation, valid_until, key, body, etag_of(body), time.monotonic())
        if self.seconds > 0:
            self._kept[(guild_id, name)] = kept
            self._kept.move_to_end((guild_id, name))
            while len(self._kept) > self.MAX_KEPT:
                self._kept.popitem(last=False)
        return kept


# ---------------------------------------------------------------- when time alone changes a page


def soonest(now: datetime, times: Iterable[datetime | None]) -> datetime | None:
    """The earliest of ``times`` after ``now`` (None if none is)."""
    return min((t for t in times if t is not None and t > now), default=None)


def year_turns(now: datetime, tz: ZoneInfo) -> datetime:
    """The next new year in ``tz`` (dates gain or lose their year then: "16 October 2026")."""
    return datetime(now.astimezone(tz).year + 1, 1, 1, tzinfo=tz).astimezone(UTC)


def next_quarter_hour(now: datetime) -> datetime:
    """Every zone's midnight falls on a UTC quarter hour (offsets are multiples of 15 minutes)."""
    floor = now.astimezone(UTC).replace(second=0, microsecond=0)
    return floor + timedelta(minutes=15 - floor.minute % 15)
