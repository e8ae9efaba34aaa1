"""The runner's claim window: which due reminders it claims next, per destination.

Due rows wait in a queue per destination (a channel, or a member's DMs). A destination is *ready* while it
has rows waiting and fewer than ``per_destination`` of its rows are claimed and not yet sent (Discord
allows 5 messages per 5 s in a channel); a batch takes the heads of ready destinations in turn, up to the
room left in the window of ``claim_window`` rows claimed and not yet sent. This is in-memory bookkeeping
only: the store stays the source of truth, and a row dropped from here is found there again.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict, deque
from dataclasses import dataclass, field
from datetime import datetime

from bot.services.reminders.queue import DueRow

Destination = tuple[str, int]


@dataclass(eq=False)
class Queued:
    """A due row this runner will try to claim and send; ``done`` resolves once that is settled."""

    row: DueRow
    late_origin: datetime
    done: asyncio.Future[None]


@dataclass
class ClaimWindow:
    """Due rows per destination, and how many of each are claimed but not yet sent."""

    claim_window: int
    per_destination: int
    waiting: dict[Destination, deque[Queued]] = field(default_factory=dict)  # due, not claimed yet
    ready: deque[Destination] = field(default_factory=deque)  # destinations whose next row may be claimed
    in_ready: set[Destination] = field(default_factory=set)
    known: dict[int, Queued] = field(default_factory=dict)  # every row queued and not yet settled
    ahead: defaultdict[Destination, int] = field(default_factory=lambda: defaultdict(int))
    claimed: int = 0  # claimed and not yet sent

    def add(self, row: DueRow, late_origin: datetime) -> Queued:
        """Queue a due row behind its destination's others."""
        queued = Queued(row, late_origin, asyncio.get_running_loop().create_future())
        self.known[row.id] = queued
        self.waiting.setdefault(row.destination, deque()).append(queued)
        self._make_ready(row.destination)
        return queued

    def settle(self, queued: Queued) -> None:
        """The row is done with here (sent and recorded, or left to the store): wake whoever waits on it."""
        self.known.pop(queued.row.id, None)
        if not queued.done.done():
            queued.done.set_result(None)

    def drop_waiting(self) -> None:
        """Forget every row not claimed yet (stopping: the next runner finds them in the store)."""
        for waiting in self.waiting.values():
            for queued in waiting:
                self.settle(queued)
        self.waiting.clear()
        self.ready.clear()
        self.in_ready.clear()

    def room(self) -> int:
        return self.claim_window - self.claimed

    def take(self, room: int) -> list[Queued]:
        """The next rows to claim: the heads of the destinations with room, at most ``room`` of them."""
        batch: list[Queued] = []
        while self.ready and room > 0:
            destination = self.ready[0]
            waiting = self.waiting[destination]
            batch.append(waiting.popleft())
            self.ahead[destination] += 1
            room -= 1
            if not waiting:
                del self.waiting[destination]
            if not waiting or self.ahead[destination] >= self.per_destination:
                self.ready.popleft()
                self.in_ready.discard(destination)
        self.claimed += len(batch)
        return batch

    def put_back(self, batch: list[Queued]) -> None:
        """Rows that could not be claimed go back to the front of their destinations' queues."""
        for queued in reversed(batch):
            self._unclaim(queued.row.destination)
            self.waiting.setdefault(queued.row.destination, deque()).appendleft(queued)
            self._make_ready(queued.row.destination)

    def release(self, queued: Queued) -> None:
        """A claimed row left the window (sent, or dropped): room for its destination's next claim."""
        self._unclaim(queued.row.destination)
        self._make_ready(queued.row.destination)

    def _unclaim(self, destination: Destination) -> None:
        self.claimed -= 1
        self.ahead[destination] -= 1
        if self.ahead[destination] <= 0:
            del self.ahead[destination]

    def _make_ready(self, destination: Destination) -> None:
        if (
            destination not in self.in_ready
            and destination in self.waiting
            and self.ahead[destination] < self.per_destination
        ):
            self.ready.append(destination)
            self.in_ready.add(destination)
