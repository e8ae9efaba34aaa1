"""Reading suggestions: the full card, pages of the list, autocomplete and poll candidates."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import ColumnElement, Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.errors import NotFound
from bot.ids import parse_id
from bot.papers import normalize_title
from bot.services.config.guild import get_config
from bot.services.papers.card import PaperRecord, paper_record
from bot.services.papers.store import PaperInfo, paper_info
from db.base import from_row
from db.models import Paper
from db.models.suggestions import ACTIVE_STATUSES, Suggestion, SuggestionVolunteer, SuggestionVote

STATUSES = ("open", "shortlisted", "accepted", "declined", "withdrawn")
StatusFilter = Literal["active", "open", "shortlisted", "accepted", "declined", "withdrawn", "all"]
SortOrder = Literal["votes", "newest"]


def message_url(guild_id: int, channel_id: int | None, message_id: int | None) -> str | None:
    """A message's link (None until both ids are known)."""
    if channel_id is None or message_id is None:
        return None
    return f"https://discord.com/channels/{guild_id}/{channel_id}/{message_id}"


@dataclass(frozen=True)
class Place:
    """A Discord message: its channel (a forum post's thread) and its id."""

    channel_id: int
    message_id: int


@dataclass(frozen=True)
class SuggestionCard:
    """Everything shown on a suggestion's post and by /suggest show."""

    id: int
    guild_id: int
    status: str
    paper: PaperInfo
    abstract: str | None
    published: str | None
    submitter_id: int | None  # None: a member who deleted their data (stored as FORMER_MEMBER)
    reason: str | None
    topic: str | None
    review_note: str | None
    reviewed_by: int | None
    created_at: datetime
    channel_id: int | None
    message_id: int | None
    session_id: int | None
    voter_ids: tuple[int, ...]
    volunteer_ids: tuple[int, ...]
    record: PaperRecord | None = None  # what the outside sources said (bot/services/papers/card.py)
    source_channel_id: int | None = None  # the message "Suggest this paper" was used on
    source_message_id: int | None = None
    zone: str = "UTC"  # the club's time zone: the dates it shows are the club's

    @property
    def source_url(self) -> str | None:
        """The link to the message the suggestion was made from, if it was made from one."""
        return message_url(self.guild_id, self.source_channel_id, self.source_message_id)

    @property
    def post_url(self) -> str | None:
        """The link to the suggestion's post, once it is posted."""
        return message_url(self.guild_id, self.channel_id, self.message_id)

    @property
    def votes(self) -> int:
        """How many members voted for it."""
        return len(self.voter_ids)

    @property
    def is_active(self) -> bool:
        """Whether the suggestion is still open, shortlisted or accepted (takes votes and presenters)."""
        return self.status in ACTIVE_STATUSES


@dataclass(frozen=True)
class SuggestionSummary:
    """One line of the list (and one answer of a poll)."""

    id: int
    title: str
    url: str | None
    status: str
    topic: str | None
    submitter_id: int | None  # None: a member who deleted their data
    created_at: datetime
    votes: int
    volunteers: int


async def suggestion_row(session: AsyncSession, guild_id: int, suggestion_id: int) -> Suggestion:
    """The suggestion if it belongs to this guild, else NotFound (ids from other guilds look absent)."""
    row = await session.get(Suggestion, suggestion_id)
    if row is None or row.guild_id != guild_id:
        raise NotFound(f"There is no suggestion #{suggestion_id} in this server.")
    return row


async def card_for(session: AsyncSession, row: Suggestion) -> SuggestionCard:
    """The full card of a suggestion row: votes, volunteers, the paper and its record."""
    voters, volunteers = [
        await session.scalars(
            select(model.user_id)
            .where(model.suggestion_id == row.id)
            .order_by(model.created_at, model.user_id)
        )
        for model in (SuggestionVote, SuggestionVolunteer)
    ]
    paper = await session.get(Paper, row.paper_id)
    assert paper is not None
    found: dict[str, Any] = {
        "paper": paper_info(paper),
        "abstract": paper.abstract,
        "published": paper.published,
        "submitter_id": row.submitter_id or None,
        "voter_ids": tuple(voters),
        "volunteer_ids": tuple(volunteers),
        "record": paper_record(paper),
        "zone": (await get_config(session, row.guild_id)).timezone,
    }
    return from_row(SuggestionCard, row, **found)


async def get_card(session: AsyncSession, guild_id: int, suggestion_id: int) -> SuggestionCard:
    """The card of the guild's suggestion (NotFound otherwise)."""
    return await card_for(session, await suggestion_row(session, guild_id, suggestion_id))


async def card_by_id(session: AsyncSession, suggestion_id: int) -> SuggestionCard | None:
    """For re-rendering a post the bot made itself (the id comes from the store, not from a member)."""
    row = await session.get(Suggestion, suggestion_id)
    return None if row is None else await card_for(session, row)


async def suggestions_of_papers(session: AsyncSession, paper_ids: Sequence[int]) -> list[int]:
    """Ids of these papers' active suggestions (their posts show the papers)."""
    found = await session.execute(
        select(Suggestion.id).where(
            Suggestion.paper_id.in_(paper_ids), Suggestion.status.in_(ACTIVE_STATUSES)
        )
    )
    return list(found.scalars())


async def count_votes(session: AsyncSession, suggestion_id: int) -> int:
    """How many members voted for the suggestion."""
    return (
        await session.execute(
            select(func.count())
            .select_from(SuggestionVote)
            .where(SuggestionVote.suggestion_id == suggestion_id)
        )
    ).scalar_one()


def _summary_query(guild_id: int) -> Select[tuple[Suggestion, Paper, int, int]]:
    votes, volunteers = [
        select(func.count())
        .select_from(model)
        .where(model.suggestion_id == Suggestion.id)
        .correlate(Suggestion)
        .scalar_subquery()
        .label(label)
        for model, label in ((SuggestionVote, "votes"), (SuggestionVolunteer, "volunteers"))
    ]
    return (
        select(Suggestion, Paper, votes, volunteers)
        .join(Paper, Paper.id == Suggestion.paper_id)
        .where(Suggestion.guild_id == guild_id)
    )


def _summary(row: tuple[Suggestion, Paper, int, int]) -> SuggestionSummary:
    suggestion, paper, votes, volunteers = row
    return SuggestionSummary(
        id=suggestion.id,
        title=paper.title,
        url=paper.url,
        status=suggestion.status,
        topic=suggestion.topic,
        submitter_id=suggestion.submitter_id or None,
        created_at=suggestion.created_at,
        votes=votes,
        volunteers=volunteers,
    )


async def list_suggestions(
    session: AsyncSession,
    guild_id: int,
    *,
    status: StatusFilter = "active",
    topic: str | None = None,
    sort: SortOrder = "votes",
    offset: int = 0,
    limit: int = 10,
) -> tuple[list[SuggestionSummary], int]:
    """One page of the guild's suggestions and the total that match."""
    statuses = {"active": ACTIVE_STATUSES, "all": STATUSES}.get(status, (status,))
    conditions: list[ColumnElement[bool]] = [Suggestion.status.in_(statuses)]
    if topic is not None:
        conditions.append(func.lower(Suggestion.topic) == topic.casefold())
    total = (
        await session.execute(
            select(func.count()).select_from(Suggestion).where(Suggestion.guild_id == guild_id, *conditions)
        )
    ).scalar_one()
    query = _summary_query(guild_id).where(*conditions)
    if sort == "votes":
        query = query.order_by(
            query.selected_columns.votes.desc(), Suggestion.created_at.desc(), Suggestion.id.desc()
        )
    else:
        query = query.order_by(Suggestion.created_at.desc(), Suggestion.id.desc())
    rows = (await session.execute(query.offset(offset).limit(limit))).tuples().all()
    return [_summary(row) for row in rows], total


async def search_suggestions(
    session: AsyncSession, guild_id: int, text: str, *, active_only: bool = False, limit: int = 25
) -> list[SuggestionSummary]:
    """For autocomplete: by id ('12', '#12') or by words of the title, most voted first."""
    query = _summary_query(guild_id)
    if active_only:
        query = query.where(Suggestion.status.in_(ACTIVE_STATUSES))
    typed_id = parse_id(text)
    if typed_id is not None:
        query = query.where(Suggestion.id == typed_id)
    elif normalized := normalize_title(text):
        query = query.where(Paper.normalized_title.contains(normalized, autoescape=True))
    query = query.order_by(query.selected_columns.votes.desc(), Suggestion.id.desc()).limit(limit)
    return [_summary(row) for row in (await session.execute(query)).tuples().all()]


async def poll_candidates(session: AsyncSession, guild_id: int, count: int) -> list[SuggestionSummary]:
    """The most voted shortlisted suggestions; under two of those, the most voted open or shortlisted."""
    query = _summary_query(guild_id)
    order = (query.selected_columns.votes.desc(), Suggestion.created_at, Suggestion.id)
    for statuses in (("shortlisted",), ("open", "shortlisted")):
        chosen = query.where(Suggestion.status.in_(statuses)).order_by(*order).limit(count)
        rows = (await session.execute(chosen)).tuples().all()
        if len(rows) >= 2:
            break
    return [_summary(row) for row in rows]
