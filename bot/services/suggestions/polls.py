"""Club polls over suggestions: which suggestions go in, which answer is which, and the result once ended."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.errors import Conflict
from bot.services.suggestions.queries import SuggestionSummary, poll_candidates
from db.models import Paper
from db.models.suggestions import Suggestion, SuggestionPoll, SuggestionPollOption

MIN_POLL_OPTIONS = 2
POLL_SETTLE = timedelta(minutes=1)  # Discord finalises a poll's counts shortly after its end
POLLS_JOB = "suggestions.polls"
POLLS_EVERY = timedelta(minutes=15)  # a job woken at each poll's end; this only if no process was
RETRY_AFTER = timedelta(minutes=1)  # a poll Discord could not read just now


async def choose_poll_options(session: AsyncSession, guild_id: int, count: int) -> list[SuggestionSummary]:
    """The ``count`` (2–10, as the command allows) suggestions a poll offers; Conflict under two."""
    options = await poll_candidates(session, guild_id, count)
    if len(options) < MIN_POLL_OPTIONS:
        raise Conflict("A poll needs at least two open or shortlisted suggestions; there are not enough yet.")
    return options


async def record_poll(
    session: AsyncSession,
    *,
    guild_id: int,
    channel_id: int,
    message_id: int,
    created_by: int,
    ends_at: datetime,
    suggestion_ids: list[int],
    now: datetime,
) -> int:
    """Store a poll that was just posted; answer ``i`` (1-based) is ``suggestion_ids[i-1]``."""
    poll = SuggestionPoll(
        guild_id=guild_id,
        channel_id=channel_id,
        message_id=message_id,
        created_by=created_by,
        ends_at=ends_at,
        status="running",
        created_at=now,
        options=[
            SuggestionPollOption(position=i, suggestion_id=sid)
            for i, sid in enumerate(suggestion_ids, start=1)
        ],
    )
    session.add(poll)
    await session.flush()
    return poll.id


@dataclass(frozen=True)
class RunningPoll:
    """A poll still waiting for its result."""

    id: int
    channel_id: int
    message_id: int | None


async def due_polls(session: AsyncSession, now: datetime) -> list[RunningPoll]:
    """Running polls that ended by ``now``, soonest first."""
    rows = (
        await session.execute(
            select(SuggestionPoll)
            .where(SuggestionPoll.status == "running", SuggestionPoll.ends_at <= now)
            .order_by(SuggestionPoll.ends_at)
        )
    ).scalars()
    return [RunningPoll(p.id, p.channel_id, p.message_id) for p in rows]


async def next_poll_check(session: AsyncSession, now: datetime) -> datetime | None:
    """A settle minute after the soonest running poll's end (at least a minute on); None with none running."""
    soonest = await session.scalar(
        select(func.min(SuggestionPoll.ends_at)).where(SuggestionPoll.status == "running")
    )
    return None if soonest is None else max(soonest + POLL_SETTLE, now + RETRY_AFTER)


@dataclass(frozen=True)
class PollOptionResult:
    """One answer of an ended poll."""

    suggestion_id: int
    title: str
    votes: int


@dataclass(frozen=True)
class PollResult:
    """An ended poll: its answers, most votes first, and who won."""

    poll_id: int
    channel_id: int
    message_id: int | None
    total_votes: int
    options: list[PollOptionResult]  # most votes first
    winners: list[PollOptionResult]  # several on a tie; empty when nobody voted

    @property
    def winner(self) -> PollOptionResult | None:
        """The one winner, or None on a tie or with no votes."""
        return self.winners[0] if len(self.winners) == 1 else None


async def finish_poll(
    session: AsyncSession, poll_id: int, counts: dict[int, int] | None, now: datetime
) -> PollResult | None:
    """Record the counts per answer id (None: the poll message is gone). None if already recorded."""
    poll = await session.get(SuggestionPoll, poll_id, with_for_update=True)
    if poll is None or poll.status != "running":
        return None
    title_rows = await session.execute(
        select(Suggestion.id, Paper.title)
        .join(Paper, Paper.id == Suggestion.paper_id)
        .where(Suggestion.id.in_([o.suggestion_id for o in poll.options]))
    )
    titles: dict[int, str] = {sid: title for sid, title in title_rows.tuples()}
    results: list[PollOptionResult] = []
    for option in poll.options:
        option.votes = None if counts is None else counts.get(option.position, 0)
        results.append(
            PollOptionResult(option.suggestion_id, titles.get(option.suggestion_id, "?"), option.votes or 0)
        )
    results.sort(key=lambda r: -r.votes)
    top = results[0].votes if results else 0
    winners = [r for r in results if r.votes == top] if top > 0 else []
    poll.status = "ended"
    poll.ended_at = now
    poll.total_votes = None if counts is None else sum(r.votes for r in results)
    poll.winner_suggestion_id = winners[0].suggestion_id if len(winners) == 1 else None
    return PollResult(poll.id, poll.channel_id, poll.message_id, poll.total_votes or 0, results, winners)
