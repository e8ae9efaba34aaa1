"""The club's own history with a paper: the sessions it was read in, who suggested it and offered to
present it, the reading lists it is on."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import ClubSession, Paper, SessionPaper
from db.models.reading import ReadingList, ReadingListItem
from db.models.sessions import AGAINST
from db.models.suggestions import Suggestion, SuggestionVolunteer

CANCELLED = "cancelled"  # a session's status (bot.services.sessions.info, which sits above papers)
HIDDEN_SUGGESTIONS = ("withdrawn",)  # a withdrawn suggestion is the member's to take back


@dataclass(frozen=True)
class SessionRead:
    """A session the paper is on: when, and the session's other papers. Roles only where someone gave them
    (``vs``, ``against:``, the edit form): then ``against``; else the others were read ``together`` with it."""

    id: int
    title: str
    starts_at: datetime
    presenter_name: str | None
    cancelled: bool
    main: bool  # the paper is one of the session's main papers (every paper is, when none has a role)
    against: tuple[tuple[int, str], ...]  # (paper id, title): what it was read against, as given
    together: tuple[tuple[int, str], ...] = ()  # (paper id, title): read with it, no roles given
    date_only: bool = False  # the club gave the session's date only
    timezone: str = "UTC"  # the session's zone, its date's

    def against_titles(self) -> tuple[str, ...]:
        """The titles of what it was read against."""
        return tuple(title for _, title in self.against)

    def together_titles(self) -> tuple[str, ...]:
        """The titles of what it was read with (no roles given)."""
        return tuple(title for _, title in self.together)


@dataclass(frozen=True)
class Suggested:
    """A suggestion of the paper: who made it, its status and who offered to present it."""

    id: int
    submitter_id: int | None  # None: a member who deleted their data
    status: str
    created_at: datetime
    volunteer_ids: tuple[int, ...]


@dataclass(frozen=True)
class OnList:
    """A reading list the paper is on."""

    id: int
    name: str


@dataclass(frozen=True)
class PaperHistory:
    """Everything the club did with one paper."""

    sessions: tuple[SessionRead, ...]
    suggestions: tuple[Suggested, ...]
    lists: tuple[OnList, ...]

    @property
    def empty(self) -> bool:
        """Nothing yet: never read, suggested or listed."""
        return not (self.sessions or self.suggestions or self.lists)


async def _sessions(session: AsyncSession, guild_id: int, paper_id: int) -> tuple[SessionRead, ...]:
    mine = select(SessionPaper.session_id).where(SessionPaper.paper_id == paper_id).scalar_subquery()
    rows = (
        await session.execute(
            select(
                ClubSession.id,
                ClubSession.title,
                ClubSession.starts_at,
                ClubSession.presenter_name,
                ClubSession.status,
                ClubSession.date_only,
                ClubSession.timezone,
                SessionPaper.paper_id,
                SessionPaper.role,
                Paper.title,
            )
            .join(SessionPaper, SessionPaper.session_id == ClubSession.id)
            .join(Paper, Paper.id == SessionPaper.paper_id)
            .where(ClubSession.guild_id == guild_id, ClubSession.id.in_(mine))
            .order_by(ClubSession.starts_at.desc(), ClubSession.id, SessionPaper.position, Paper.id)
        )
    ).all()
    grouped: dict[int, list[tuple[int, str]]] = {}
    roles: dict[int, dict[int, str]] = {}
    heads: dict[int, tuple[str, datetime, str | None, str, bool, str]] = {}
    for sid, title, starts_at, presenter, status, date_only, zone, pid, role, ptitle in rows:
        heads.setdefault(sid, (title, starts_at, presenter, status, date_only, zone))
        grouped.setdefault(sid, []).append((pid, ptitle))
        roles.setdefault(sid, {})[pid] = role
    reads: list[SessionRead] = []
    for sid, (title, starts_at, presenter, status, date_only, zone) in heads.items():
        papers, role_of = grouped[sid], roles[sid]
        # The roles as given ("TMax vs Terminal-World, T1"); none given: every paper is a main one.
        main = role_of[paper_id] != AGAINST
        against = tuple(p for p in papers if (role_of[p[0]] == AGAINST) == main)
        together = tuple(p for p in papers if (role_of[p[0]] != AGAINST) == main and p[0] != paper_id)
        cancelled = status == CANCELLED
        reads.append(
            SessionRead(sid, title, starts_at, presenter, cancelled, main, against, together, date_only, zone)
        )
    return tuple(reads)


async def _suggestions(session: AsyncSession, guild_id: int, paper_id: int) -> tuple[Suggested, ...]:
    rows = (
        await session.execute(
            select(
                Suggestion.id,
                Suggestion.submitter_id,
                Suggestion.status,
                Suggestion.created_at,
                SuggestionVolunteer.user_id,
            )
            .outerjoin(SuggestionVolunteer, SuggestionVolunteer.suggestion_id == Suggestion.id)
            .where(
                Suggestion.guild_id == guild_id,
                Suggestion.paper_id == paper_id,
                Suggestion.status.not_in(HIDDEN_SUGGESTIONS),
            )
            .order_by(Suggestion.created_at, Suggestion.id, SuggestionVolunteer.created_at)
        )
    ).all()
    found: dict[int, tuple[int | None, str, datetime, list[int]]] = {}
    for sid, submitter, status, created_at, volunteer in rows:
        entry = found.setdefault(sid, (submitter or None, status, created_at, []))
        if volunteer is not None:
            entry[3].append(volunteer)
    return tuple(Suggested(sid, s, st, c, tuple(v)) for sid, (s, st, c, v) in found.items())


async def _lists(session: AsyncSession, guild_id: int, paper_id: int) -> tuple[OnList, ...]:
    rows = (
        await session.execute(
            select(ReadingList.id, ReadingList.name)
            .join(ReadingListItem, ReadingListItem.list_id == ReadingList.id)
            .where(ReadingList.guild_id == guild_id, ReadingListItem.paper_id == paper_id)
            .order_by(ReadingList.name, ReadingList.id)
        )
    ).all()
    return tuple(OnList(list_id, name) for list_id, name in rows)


async def paper_history(session: AsyncSession, guild_id: int, paper_id: int) -> PaperHistory:
    """The paper's sessions (newest first), its suggestions (oldest first) and its lists (by name)."""
    return PaperHistory(
        await _sessions(session, guild_id, paper_id),
        await _suggestions(session, guild_id, paper_id),
        await _lists(session, guild_id, paper_id),
    )
