"""A suggestion's values checked once (:func:`validate_draft`), and the writes on a standing one: votes,
presenters, review, withdrawal, where its post is, the session made from it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.errors import BadInput, Conflict, NotAllowed, NotFound, PaperclubError
from bot.papers import MAX_TITLE_LENGTH, PaperRef, normalize_title, parse_paper_ref
from bot.services.suggestions.queries import SuggestionCard, card_for, suggestion_row
from bot.services.suggestions.votes import Press, ToggleResult, toggle_votes
from bot.text import visible
from db.models.suggestions import ACTIVE_STATUSES, Suggestion, SuggestionVolunteer
from db.upsert import insert_ignore

MAX_REASON_LENGTH = 1000
MAX_NOTE_LENGTH = 500

Decision = Literal["shortlist", "accept", "decline"]
DECISION_STATUS: dict[str, str] = {"shortlist": "shortlisted", "accept": "accepted", "decline": "declined"}


# ---------------------------------------------------------------- validation


@dataclass(frozen=True)
class SuggestionDraft:
    """A checked suggestion, not yet stored."""

    ref: PaperRef
    title: str | None  # the member's own title (wins over arXiv's)
    reason: str | None
    topic: str | None
    volunteer: bool = False  # "I'd present this" ticked in the form
    source: SourceMessage | None = None  # the message "Suggest this paper" was used on


@dataclass(frozen=True)
class SourceMessage:
    """The Discord message a suggestion was made from (ids only; the link is built from them)."""

    channel_id: int
    message_id: int


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


def validate_draft(
    paper: str | PaperRef,
    *,
    title: str | None,
    reason: str | None,
    topic: str | None,
    topics: tuple[str, ...],
    volunteer: bool = False,
    source: SourceMessage | None = None,
) -> SuggestionDraft:
    """Check every value of a suggestion once: the paper, the title, why, and the topic among ``topics``."""
    ref = paper if isinstance(paper, PaperRef) else parse_paper_ref(paper)
    clean_title = clean_text(title, "Title", MAX_TITLE_LENGTH)
    if clean_title is not None:
        clean_title = " ".join(clean_title.split())
        if not normalize_title(clean_title):
            raise BadInput("That title has no letters or digits.")
    return SuggestionDraft(
        ref=ref,
        title=clean_title or ref.title,
        reason=clean_text(reason, "Why", MAX_REASON_LENGTH),
        topic=match_topic(topic, topics),
        volunteer=volunteer,
        source=source,
    )


# ---------------------------------------------------------------- votes and volunteers


async def _toggle_member(
    session: AsyncSession, model: Any, suggestion_id: int, user_id: int, now: datetime
) -> bool:
    """Remove the member's row if present, else add it; True when added. Safe under concurrency:
    the delete and the insert-or-nothing never fail on a row another transaction just wrote."""
    removed = await session.execute(
        delete(model).where(model.suggestion_id == suggestion_id, model.user_id == user_id)
    )
    if removed.rowcount:  # type: ignore[attr-defined]
        return False
    row = {"suggestion_id": suggestion_id, "user_id": user_id, "created_at": now}
    await session.execute(insert_ignore(session, model, row))
    return True


async def toggle_vote(
    session: AsyncSession, guild_id: int, suggestion_id: int, user_id: int, now: datetime
) -> ToggleResult:
    """One vote per member: pressing again removes it. The count is read back from the store. (Presses
    from Discord go through a VoteWriter, which writes many at a time the same way.)"""
    (outcome,) = await toggle_votes(session, [Press(guild_id, suggestion_id, user_id, now)])
    if isinstance(outcome, PaperclubError):
        raise outcome
    return outcome


async def toggle_volunteer(
    session: AsyncSession, guild_id: int, suggestion_id: int, user_id: int, now: datetime
) -> ToggleResult:
    """'I'd present this': pressing again takes the offer back."""
    row = await suggestion_row(session, guild_id, suggestion_id)
    if row.status not in ACTIVE_STATUSES:
        raise Conflict(f"This suggestion is {row.status}; it no longer takes presenters.")
    added = await _toggle_member(session, SuggestionVolunteer, row.id, user_id, now)
    count = (
        await session.execute(
            select(func.count())
            .select_from(SuggestionVolunteer)
            .where(SuggestionVolunteer.suggestion_id == row.id)
        )
    ).scalar_one()
    return ToggleResult(added, count, row.id)


# ---------------------------------------------------------------- review and withdraw


@dataclass(frozen=True)
class ReviewResult:
    """A reviewed suggestion's card and the status it had before."""

    card: SuggestionCard
    previous_status: str

    @property
    def changed(self) -> bool:
        """Whether the review changed the status."""
        return self.previous_status != self.card.status


async def review_suggestion(
    session: AsyncSession,
    *,
    guild_id: int,
    suggestion_id: int,
    decision: Decision,
    note: str | None,
    reviewer_id: int,
    now: datetime,
) -> ReviewResult:
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
    previous = row.status
    row.status = new_status
    row.review_note = clean_note
    row.reviewed_by = reviewer_id
    row.reviewed_at = now
    row.updated_at = now
    await session.flush()
    return ReviewResult(await card_for(session, row), previous)


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
    now: datetime | None = None,
) -> None:
    """Record the session made from an accepted suggestion, once, in the caller's transaction (Conflict,
    rolling back the new session, when it is no longer accepted or has one already)."""
    values: dict[str, Any] = {"session_id": session_id}
    if now is not None:
        values["updated_at"] = now
    result = await session.execute(
        update(Suggestion)
        .where(
            Suggestion.id == suggestion_id,
            Suggestion.guild_id == guild_id,
            Suggestion.status == "accepted",
            Suggestion.session_id.is_(None),
        )
        .values(**values)
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
