"""A suggestion's values checked once (:func:`validate_draft`), stored (:func:`submit_suggestion`), and the
writes on a standing one: votes, presenters, review, withdrawal, where its post is, the session made from it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal, TypeVar

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.errors import BadInput, Conflict, NotAllowed, NotFound
from bot.papers import MAX_TITLE_LENGTH, PaperRef, normalize_title, parse_paper_ref
from bot.services.papers.metadata import apply_metadata
from bot.services.papers.store import get_or_create_paper
from bot.services.suggestions.duplicates import PaperStanding, TitleIndex, find_duplicate
from bot.services.suggestions.queries import Place, SuggestionCard, card_for, count_votes, suggestion_row
from bot.sources.arxiv import ArxivMetadata
from bot.text import visible
from bot.timeutil import discord_timestamp
from db.base import insert_ignore
from db.models.suggestions import ACTIVE_STATUSES, Suggestion, SuggestionVolunteer, SuggestionVote

T = TypeVar("T")
RATE_WINDOW = timedelta(days=1)
MAX_REASON_LENGTH = 1000
MAX_NOTE_LENGTH = 500

Decision = Literal["shortlist", "accept", "decline"]
DECISION_STATUS: dict[str, str] = {"shortlist": "shortlisted", "accept": "accepted", "decline": "declined"}


@dataclass(frozen=True)
class Typed:
    """What a member gave /suggest or its form, not yet checked."""

    paper: str | PaperRef
    title: str | None = None
    why: str | None = None
    topic: str | None = None
    volunteer: bool = False
    source: Place | None = None


@dataclass(frozen=True)
class SuggestionDraft:
    """A checked suggestion, not yet stored."""

    ref: PaperRef
    title: str | None  # the member's own title (wins over arXiv's)
    reason: str | None
    topic: str | None
    volunteer: bool = False  # "I'd present this" ticked in the form
    source: Place | None = None  # the message "Suggest this paper" was used on


def clean_text(value: str | None, field: str, limit: int) -> str | None:
    """None stays None; otherwise stripped, and refused when blank or over ``limit`` characters."""
    if value is None:
        return None
    text = visible(value).strip()
    if not text:
        raise BadInput(f"{field} is empty; write something or leave it out.")
    if len(text) > limit:
        raise BadInput(f"{field} is {len(text):,} characters; the limit is {limit:,}.")
    return text


def match_topic(topic: str | None, topics: tuple[str, ...]) -> str | None:
    """The guild's spelling of ``topic`` (case-insensitive), or BadInput naming the choices."""
    if topic is None:
        return None
    wanted = topic.strip().casefold()
    if not wanted:
        raise BadInput("Topic is empty; pick one from the list or leave it out.")
    for known in topics:
        if known.casefold() == wanted:
            return known
    raise BadInput(f"“{topic.strip()[:50]}” is not a topic here. Pick one of: {', '.join(topics)}.")


def validate_draft(typed: Typed, topics: tuple[str, ...]) -> SuggestionDraft:
    """Check every value of a suggestion once: the paper, the title, why, and the topic among ``topics``."""
    ref = typed.paper if isinstance(typed.paper, PaperRef) else parse_paper_ref(typed.paper)
    clean_title = clean_text(typed.title, "Title", MAX_TITLE_LENGTH)
    if clean_title is not None:
        clean_title = " ".join(clean_title.split())
        if not normalize_title(clean_title):
            raise BadInput("That title has no letters or digits.")
    return SuggestionDraft(
        ref=ref,
        title=clean_title or ref.title,
        reason=clean_text(typed.why, "Why", MAX_REASON_LENGTH),
        topic=match_topic(typed.topic, topics),
        volunteer=typed.volunteer,
        source=typed.source,
    )


async def in_transaction(
    session_factory: async_sessionmaker[AsyncSession], work: Callable[[AsyncSession], Awaitable[T]]
) -> T:
    """Run ``work`` in one transaction, retried once when a concurrent writer won a unique key."""
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
class Suggested:
    """What /suggest did: the new suggestion and its post, or the duplicate found instead."""

    card: SuggestionCard | None = None
    duplicate: DuplicateNotice | None = None
    unenriched: bool = False  # the paper is new to the sources
    channel_id: int | None = None  # the suggestions channel
    not_posted: str | None = None  # Discord's refusal: saved, not posted
    arxiv_down: bool = False  # saved without arXiv's details (asked again in the background)
    zone: str = "UTC"  # the club's time zone (the dates the answer gives)


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
) -> Suggested:
    """Store a new suggestion, or (a duplicate) add the member's vote to the one that stands."""
    match_title = draft.title or (metadata.title if metadata else None)
    standing = await find_duplicate(session, guild_id, draft.ref, match_title, now, index)
    if standing is not None:
        notice = await _note_duplicate(session, standing, user_id, now, volunteer=draft.volunteer)
        return Suggested(duplicate=notice)
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
    return Suggested(card=await card_for(session, row), unenriched=paper.enriched_at is None)


async def _add_once(
    session: AsyncSession, model: Any, suggestion_id: int, user_id: int, now: datetime
) -> bool:
    """Add the member's row unless it is there; True when added."""
    if await session.get(model, (suggestion_id, user_id)) is not None:
        return False
    row = {"suggestion_id": suggestion_id, "user_id": user_id, "created_at": now}
    await session.execute(insert_ignore(session, model, row))
    return True


async def _note_duplicate(
    session: AsyncSession, standing: PaperStanding, user_id: int, now: datetime, *, volunteer: bool
) -> DuplicateNotice:
    if standing.suggestion_id is None or standing.read_at is not None:
        return DuplicateNotice(standing, own=False, vote_added=False, votes=0)
    suggestion_id = standing.suggestion_id  # open, shortlisted or accepted
    volunteered = volunteer and await _add_once(session, SuggestionVolunteer, suggestion_id, user_id, now)
    own = standing.submitter_id == user_id
    added = not own and await _add_once(session, SuggestionVote, suggestion_id, user_id, now)
    return DuplicateNotice(
        standing,
        own=own,
        vote_added=added,
        votes=await count_votes(session, suggestion_id),
        volunteered=volunteered,
    )


async def toggle_volunteer(
    session: AsyncSession, guild_id: int, suggestion_id: int, user_id: int, now: datetime
) -> bool:
    """'I'd present this': pressing again takes the offer back (True: the offer is made)."""
    row = await suggestion_row(session, guild_id, suggestion_id)
    if row.status not in ACTIVE_STATUSES:
        raise Conflict(f"This suggestion is {row.status}; it no longer takes presenters.")
    removed = await session.execute(
        delete(SuggestionVolunteer).where(
            SuggestionVolunteer.suggestion_id == row.id, SuggestionVolunteer.user_id == user_id
        )
    )
    added = not removed.rowcount  # type: ignore[attr-defined]
    if added:
        row_values = {"suggestion_id": row.id, "user_id": user_id, "created_at": now}
        await session.execute(insert_ignore(session, SuggestionVolunteer, row_values))
    return added


async def review_suggestion(
    session: AsyncSession,
    *,
    guild_id: int,
    suggestion_id: int,
    decision: Decision,
    note: str | None,
    reviewer_id: int,
    now: datetime,
) -> SuggestionCard:
    """Shortlist, accept or decline; a decision can be changed later (the note goes with it)."""
    if decision not in DECISION_STATUS:
        raise BadInput("The decision must be shortlist, accept or decline.")
    clean_note = clean_text(note, "Note", MAX_NOTE_LENGTH)
    row = await suggestion_row(session, guild_id, suggestion_id)
    if row.status == "withdrawn":
        raise Conflict("This suggestion was withdrawn by its submitter; there is nothing to review.")
    new_status = DECISION_STATUS[decision]
    if new_status in ACTIVE_STATUSES and row.status not in ACTIVE_STATUSES:
        other = (
            await session.execute(
                select(Suggestion.id).where(
                    Suggestion.guild_id == guild_id,
                    Suggestion.paper_id == row.paper_id,
                    Suggestion.status.in_(ACTIVE_STATUSES),
                    Suggestion.id != row.id,
                )
            )
        ).scalar_one_or_none()
        if other is not None:
            raise Conflict("This paper was suggested again since: review the newer suggestion instead.")
    row.status = new_status
    row.review_note = clean_note
    row.reviewed_by = reviewer_id
    row.reviewed_at = now
    row.updated_at = now
    await session.flush()
    return await card_for(session, row)


async def withdraw_suggestion(
    session: AsyncSession,
    *,
    guild_id: int,
    suggestion_id: int,
    user_id: int,
    is_organizer: bool,
    now: datetime,
) -> SuggestionCard:
    """The submitter (or an organizer) takes a suggestion back; votes are kept for the record."""
    row = await suggestion_row(session, guild_id, suggestion_id)
    if row.submitter_id != user_id and not is_organizer:
        raise NotAllowed("Only the member who suggested it (or an organizer) can withdraw this suggestion.")
    if row.status == "withdrawn":
        raise Conflict("This suggestion is already withdrawn.")
    row.status = "withdrawn"
    row.updated_at = now
    await session.flush()
    return await card_for(session, row)


async def set_post_location(
    session: AsyncSession, guild_id: int, suggestion_id: int, channel_id: int, message_id: int
) -> None:
    """Remember where the suggestion's post is (a thread id for forum posts)."""
    row = await suggestion_row(session, guild_id, suggestion_id)
    row.channel_id = channel_id
    row.message_id = message_id


async def link_session(
    session: AsyncSession,
    guild_id: int,
    suggestion_id: int,
    session_id: int,
    *,
    now: datetime,
) -> None:
    """Record the session made from an accepted suggestion, once (Conflict when no longer accepted or made)."""
    result = await session.execute(
        update(Suggestion)
        .where(
            Suggestion.id == suggestion_id,
            Suggestion.guild_id == guild_id,
            Suggestion.status == "accepted",
            Suggestion.session_id.is_(None),
        )
        .values(session_id=session_id, updated_at=now)
        .execution_options(synchronize_session="fetch")
    )
    if getattr(result, "rowcount", 0) == 1:
        return
    current = (
        await session.execute(
            select(Suggestion.status, Suggestion.session_id).where(
                Suggestion.id == suggestion_id, Suggestion.guild_id == guild_id
            )
        )
    ).one_or_none()
    if current is None:
        raise NotFound(f"There is no suggestion #{suggestion_id} in this server.")
    status, existing = current
    if existing is not None:
        raise Conflict("A session was already made from this suggestion.")
    raise Conflict(f"This suggestion is {status}; accept it first to make a session from it.")
