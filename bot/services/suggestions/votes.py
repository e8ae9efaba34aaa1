"""Upvotes: toggled one member at a time, written many at a time (:class:`VoteWriter`)."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import delete, func, select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.errors import Conflict, NotFound, PaperclubError
from db.base import insert_ignore
from db.models.suggestions import ACTIVE_STATUSES, Suggestion, SuggestionVote

log = logging.getLogger("paperclub.suggestions")

MAX_BATCH = 250  # presses written in one transaction at most (the rest go in the next)


@dataclass(frozen=True)
class ToggleResult:
    """A press's outcome: added or taken back, and the count after it."""

    added: bool
    count: int


@dataclass(frozen=True)
class Press:
    """A member pressing Upvote on a suggestion (of the guild the press came from), at a time."""

    guild_id: int
    suggestion_id: int
    user_id: int
    at: datetime


async def toggle_votes(
    session: AsyncSession, presses: Sequence[Press]
) -> list[ToggleResult | PaperclubError]:
    """Apply these presses in order, in the caller's transaction: each press's outcome, or its refusal."""
    wanted = sorted({p.suggestion_id for p in presses})
    rows = {
        row.id: row
        for row in (
            await session.execute(
                select(Suggestion.id, Suggestion.guild_id, Suggestion.status)
                .where(Suggestion.id.in_(wanted))
                .order_by(Suggestion.id)
                .with_for_update(key_share=True)  # FOR NO KEY UPDATE: batches on one suggestion take turns
            )
        ).all()
    }
    refusals: dict[int, PaperclubError] = {}
    open_presses: list[Press] = []
    for press in presses:
        row = rows.get(press.suggestion_id)
        if row is None or row.guild_id != press.guild_id:  # ids of other guilds look absent
            refusals[id(press)] = NotFound(f"There is no suggestion #{press.suggestion_id} in this server.")
        elif row.status not in ACTIVE_STATUSES:
            refusals[id(press)] = Conflict(f"This suggestion is {row.status}; voting on it is closed.")
        else:
            open_presses.append(press)
    added = await _apply(session, open_presses)
    counts = await _counts(session, sorted({p.suggestion_id for p in open_presses}))
    return [
        refusals[id(p)] if id(p) in refusals else ToggleResult(added[id(p)], counts[p.suggestion_id])
        for p in presses
    ]


async def _apply(session: AsyncSession, presses: list[Press]) -> dict[int, bool]:
    """Toggle each press's vote in order, writing only the net change; whether each press added its vote."""
    if not presses:
        return {}
    pairs = sorted({(p.suggestion_id, p.user_id) for p in presses})
    present = set(
        (
            await session.execute(
                select(SuggestionVote.suggestion_id, SuggestionVote.user_id).where(
                    tuple_(SuggestionVote.suggestion_id, SuggestionVote.user_id).in_(pairs)
                )
            )
        )
        .tuples()
        .all()
    )
    was = set(present)
    first_at: dict[tuple[int, int], datetime] = {}
    added: dict[int, bool] = {}
    for press in presses:
        pair = (press.suggestion_id, press.user_id)
        if pair in present:
            present.discard(pair)
            added[id(press)] = False
        else:
            present.add(pair)
            first_at.setdefault(pair, press.at)
            added[id(press)] = True
    gone: defaultdict[int, list[int]] = defaultdict(list)
    for suggestion_id, user_id in sorted(was - present):
        gone[suggestion_id].append(user_id)
    for suggestion_id, user_ids in gone.items():
        await session.execute(
            delete(SuggestionVote).where(
                SuggestionVote.suggestion_id == suggestion_id, SuggestionVote.user_id.in_(user_ids)
            )
        )
    new = sorted(present - was)
    if new:
        rows = [{"suggestion_id": s, "user_id": u, "created_at": first_at[(s, u)]} for s, u in new]
        await session.execute(insert_ignore(session, SuggestionVote, rows))
    return added


async def _counts(session: AsyncSession, suggestion_ids: list[int]) -> dict[int, int]:
    if not suggestion_ids:
        return {}
    counted = await session.execute(
        select(SuggestionVote.suggestion_id, func.count())
        .where(SuggestionVote.suggestion_id.in_(suggestion_ids))
        .group_by(SuggestionVote.suggestion_id)
    )
    counts = {sid: 0 for sid in suggestion_ids}
    counts.update({int(sid): int(n) for sid, n in counted.all()})
    return counts


@dataclass(eq=False)
class _Queued:
    press: Press
    outcome: asyncio.Future[ToggleResult]


@dataclass
class VoteWriter:
    """One per process: presses queue here and are written in batches, each answered after its commit."""

    session_factory: async_sessionmaker[AsyncSession]
    batches: int = 0  # transactions written (for benches and tests)
    _queue: list[_Queued] = field(default_factory=list)
    _turn: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def toggle(self, press: Press) -> ToggleResult:
        """Toggle one member's vote; returns once it is committed (raises the member's refusal)."""
        queued = _Queued(press, asyncio.get_running_loop().create_future())
        self._queue.append(queued)
        while not queued.outcome.done():
            async with self._turn:  # first come, first served: whoever's turn it is writes for all
                if not queued.outcome.done():
                    batch, self._queue = self._queue[:MAX_BATCH], self._queue[MAX_BATCH:]
                    await self._write(batch)
        return queued.outcome.result()

    async def _write(self, batch: list[_Queued]) -> None:
        try:
            async with self.session_factory() as session, session.begin():
                outcomes = await toggle_votes(session, [q.press for q in batch])
        except asyncio.CancelledError:  # (shutting down) the batch may or may not have committed
            self._fail(batch, RuntimeError("the vote was interrupted; press again to check it"))
            raise
        except Exception as error:  # nothing was written: every press of the batch gets the error
            log.exception("suggestions: writing %d votes failed", len(batch))
            self._fail(batch, error)
            return
        self.batches += 1
        for queued, outcome in zip(batch, outcomes, strict=True):
            if isinstance(outcome, PaperclubError):
                queued.outcome.set_exception(outcome)
            else:
                queued.outcome.set_result(outcome)

    @staticmethod
    def _fail(batch: list[_Queued], error: BaseException) -> None:
        for queued in batch:
            if not queued.outcome.done():
                queued.outcome.set_exception(error)
