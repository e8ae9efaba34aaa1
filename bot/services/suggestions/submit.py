"""Storing a new suggestion (:func:`submit_suggestion`), or, for a paper already on the club's table, the
member's vote on the one that stands; each in one transaction, retried once on a concurrent insert."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypeVar

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.errors import Conflict
from bot.services.papers.metadata import apply_metadata
from bot.services.papers.store import get_or_create_paper
from bot.services.suggestions.actions import SuggestionDraft
from bot.services.suggestions.duplicates import PaperStanding, TitleIndex, find_duplicate
from bot.services.suggestions.queries import SuggestionCard, card_for, count_votes
from bot.sources.arxiv import ArxivMetadata
from bot.timeutil import discord_timestamp
from db.models.suggestions import ACTIVE_STATUSES, Suggestion, SuggestionVolunteer, SuggestionVote
from db.upsert import insert_ignore

RATE_WINDOW = timedelta(days=1)

T = TypeVar("T")


async def in_transaction(
    session_factory: async_sessionmaker[AsyncSession], work: Callable[[AsyncSession], Awaitable[T]]
) -> T:
    """Run ``work`` in one transaction; retried once when a concurrent writer won a unique key
    (two members suggesting the same new paper at the same moment: the retry sees the duplicate)."""
    for attempt in (1, 2):
        try:
            async with session_factory() as session, session.begin():
                return await work(session)
        except IntegrityError:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class DuplicateNotice:
    """Why no new suggestion was made, and what happened instead."""

    standing: PaperStanding
    own: bool  # the member had suggested it themselves
    vote_added: bool
    votes: int
    volunteered: bool = False  # the member's "I'd present this" was added to the standing suggestion


@dataclass(frozen=True)
class SubmitResult:
    """A new suggestion's card (``unenriched``: its paper is new to the sources), or the duplicate notice."""

    card: SuggestionCard | None = None
    duplicate: DuplicateNotice | None = None
    unenriched: bool = False


async def _ensure_under_daily_cap(
    session: AsyncSession, guild_id: int, user_id: int, now: datetime, per_day: int
) -> None:
    since = now - RATE_WINDOW
    recent = (
        await session.execute(
            select(Suggestion.created_at)
            .where(
                Suggestion.guild_id == guild_id,
                Suggestion.submitter_id == user_id,
                Suggestion.created_at > since,
            )
            .order_by(Suggestion.created_at)
        )
    ).scalars()
    times = list(recent)
    if len(times) >= per_day:
        again = times[len(times) - per_day] + RATE_WINDOW
        raise Conflict(
            f"You have made {len(times)} suggestions in the last 24 hours; the limit is {per_day} a day. "
            f"You can suggest again {discord_timestamp(again, 'R')}."
        )


async def submit_suggestion(
    session: AsyncSession,
    *,
    guild_id: int,
    user_id: int,
    draft: SuggestionDraft,
    metadata: ArxivMetadata | None,
    now: datetime,
    per_day: int,
    index: TitleIndex,
) -> SubmitResult:
    """Store a new suggestion, or (a duplicate) add the member's vote to the one that stands."""
    match_title = draft.title or (metadata.title if metadata else None)
    standing = await find_duplicate(session, guild_id, draft.ref, match_title, now, index)
    if standing is not None:
        notice = await _note_duplicate(session, standing, user_id, now, volunteer=draft.volunteer)
        return SubmitResult(duplicate=notice)
    await _ensure_under_daily_cap(session, guild_id, user_id, now, per_day)
    paper = await get_or_create_paper(session, guild_id, draft.ref, title=draft.title or match_title, now=now)
    if metadata is not None and paper.metadata_fetched_at is None:
        apply_metadata(paper, metadata, now)
    index.note_title(guild_id, paper.id, paper.normalized_title)
    row = Suggestion(
        guild_id=guild_id,
        paper_id=paper.id,
        submitter_id=user_id,
        reason=draft.reason,
        topic=draft.topic,
        status="open",
        source_channel_id=draft.source.channel_id if draft.source else None,
        source_message_id=draft.source.message_id if draft.source else None,
        created_at=now,
        updated_at=now,
    )
    session.add(row)
    await session.flush()
    if draft.volunteer:
        session.add(SuggestionVolunteer(suggestion_id=row.id, user_id=user_id, created_at=now))
        await session.flush()
    return SubmitResult(card=await card_for(session, row), unenriched=paper.enriched_at is None)


async def _note_duplicate(
    session: AsyncSession, standing: PaperStanding, user_id: int, now: datetime, *, volunteer: bool
) -> DuplicateNotice:
    if standing.suggestion_id is None or standing.read_at is not None:
        return DuplicateNotice(standing, own=False, vote_added=False, votes=0)
    volunteered = False
    if volunteer and standing.suggestion_status in ACTIVE_STATUSES:
        offered = await session.get(SuggestionVolunteer, (standing.suggestion_id, user_id))
        if offered is None:
            row = {"suggestion_id": standing.suggestion_id, "user_id": user_id, "created_at": now}
            await session.execute(insert_ignore(session, SuggestionVolunteer, row))
            volunteered = True
    own = standing.submitter_id == user_id
    added = False
    if not own:
        existing = await session.get(SuggestionVote, (standing.suggestion_id, user_id))
        if existing is None:
            row = {"suggestion_id": standing.suggestion_id, "user_id": user_id, "created_at": now}
            await session.execute(insert_ignore(session, SuggestionVote, row))
            added = True
    return DuplicateNotice(
        standing,
        own=own,
        vote_added=added,
        votes=await count_votes(session, standing.suggestion_id),
        volunteered=volunteered,
    )
