"""One of the guild's papers for /paper show and its site page: autocomplete, lookup, card and history."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from itertools import groupby
from typing import Final

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.errors import BadInput, NotFound
from bot.papers import MAX_URL_LENGTH, normalize_title, parse_paper_ref
from bot.services.papers.card import PaperRecord, arxiv_urls, paper_record
from bot.services.papers.store import PaperInfo, aliased_paper, find_paper, paper_info
from bot.text import cut, one_line
from db.models import ClubSession, Paper, SessionPaper
from db.models.reading import ReadingList, ReadingListItem
from db.models.sessions import AGAINST, PaperAlias
from db.models.suggestions import Suggestion, SuggestionVolunteer

MAX_CHOICES: Final = 25
CHOICE_NAME: Final = 100  # Discord: an autocomplete choice's name is 1-100 characters
MAX_PAPER_TEXT: Final = MAX_URL_LENGTH  # the option's max_length: a link or a title (read, not kept)
MAX_PAPER_ID: Final = 2**63 - 1


CANCELLED = "cancelled"  # a session's status (bot.services.sessions.info, which sits above papers)
HIDDEN_SUGGESTIONS = ("withdrawn",)  # a withdrawn suggestion is the member's to take back


@dataclass(frozen=True)
class SessionRead:
    """A session the paper is on; its other papers read ``against`` it (roles given) or ``together``."""

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
    reads: list[SessionRead] = []
    for sid, group in groupby(rows, key=lambda row: row[0]):
        rows_of = list(group)
        _, title, starts_at, presenter, status, date_only, zone = rows_of[0][:7]
        role_of = {pid: role for *_, pid, role, _ in rows_of}
        papers = [(pid, ptitle) for *_, pid, _, ptitle in rows_of]
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


@dataclass(frozen=True)
class PaperCard:
    """One paper as its card shows it: the stored paper, the sources' fields, the club's history."""

    paper: PaperInfo
    record: PaperRecord
    history: PaperHistory

    @property
    def links(self) -> list[tuple[str, str | None]]:
        """(label, address) of the paper's links in the card's order; "Link" is its own when arXiv has none."""
        record, paper = self.record, self.paper
        abs_url, pdf_url = arxiv_urls(paper.arxiv_id)
        return [
            ("arXiv", abs_url),
            ("Link", paper.url if not abs_url else None),
            ("PDF", record.pdf_url or pdf_url),  # the open-access PDF a source gave, else arXiv's
            ("Code", record.code_url),
            ("Project", record.project_url),
            ("Hugging Face", record.hf_url),
            ("OpenReview", record.openreview_url),
            ("Wiki", paper.wiki_url),
        ]


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def choice_name(title: str, arxiv_id: str | None) -> str:
    """An autocomplete choice's name: the title (on one line) and its arXiv id, within 100 characters."""
    suffix = f" · arXiv:{arxiv_id}" if arxiv_id else ""
    if len(suffix) > CHOICE_NAME // 2:
        suffix = ""
    return one_line(title, CHOICE_NAME - len(suffix)) + suffix or "…"


async def paper_choices(session: AsyncSession, guild_id: int, current: str) -> list[tuple[str, str]]:
    """Up to 25 choices valued the paper's id: alias names holding what is typed, then titles/arXiv ids."""
    typed = current.strip()[:200]
    words = normalize_title(typed)
    named: list[tuple[str, str]] = []
    if words:
        aliases = await session.execute(
            select(PaperAlias.name, Paper.id, Paper.title)
            .join(Paper, Paper.id == PaperAlias.paper_id)  # "none of these" names no paper: not offered
            .where(
                PaperAlias.guild_id == guild_id,
                PaperAlias.normalized_name.like(_like(words), escape="\\"),
            )
            .order_by(PaperAlias.normalized_name)
            .limit(MAX_CHOICES)
        )
        named = [(alias_choice_name(name, title), str(paper_id)) for name, paper_id, title in aliases]
    statement = select(Paper.id, Paper.title, Paper.arxiv_id).where(Paper.guild_id == guild_id)
    if typed:
        clauses = [Paper.arxiv_id.like(_like(typed), escape="\\")]
        if words:
            clauses.append(Paper.normalized_title.like(_like(words), escape="\\"))
        statement = statement.where(or_(*clauses))
    rows = (await session.execute(statement.order_by(Paper.id.desc()).limit(MAX_CHOICES))).all()
    papers = [(choice_name(title, arxiv_id), str(paper_id)) for paper_id, title, arxiv_id in rows]
    return (named + papers)[:MAX_CHOICES]


def alias_choice_name(name: str, title: str) -> str:
    """An alias's choice name: "TMax → the title", within 100 characters."""
    head = one_line(name, CHOICE_NAME // 2)
    return f"{head} → {one_line(title, CHOICE_NAME - len(head) - 3)}"


async def paper_by_id(session: AsyncSession, guild_id: int, paper_id: int) -> Paper | None:
    """The guild's paper with this id (None: no such paper in this guild)."""
    if not 0 < paper_id <= MAX_PAPER_ID:
        return None
    row = await session.get(Paper, paper_id)
    return row if row is not None and row.guild_id == guild_id else None


async def find_paper_for(session: AsyncSession, guild_id: int, text: str) -> Paper:
    """The guild's paper a member means (id, arXiv id, DOI, link, exact title or alias), else NotFound."""
    typed = text.strip()
    numeric = typed.isascii() and typed.isdigit() and len(typed) <= 19
    if numeric and (row := await paper_by_id(session, guild_id, int(typed))) is not None:
        return row
    try:
        ref = parse_paper_ref(typed)
    except BadInput:
        ref = None
    # its key, or "TMax": the paper an organizer chose for the name (/organize paper resolve)
    if ref is not None and (
        row := await find_paper(session, guild_id, ref) or await aliased_paper(session, guild_id, ref)
    ):
        return row
    words = normalize_title(typed)[:400]
    if words:
        row = await session.scalar(
            select(Paper)
            .where(Paper.guild_id == guild_id, Paper.normalized_title == words)
            .order_by(Paper.id)
            .limit(1)
        )
        if row is not None:
            return row
    raise NotFound(
        f"No paper “{cut(one_line(typed, 100), 100)}” on this server yet. Pick one from the list as you "
        "type, or give its arXiv id or link; a paper is known here once it is suggested, read or listed."
    )


async def card_of(session: AsyncSession, guild_id: int, row: Paper) -> PaperCard:
    """The card's values for a stored paper."""
    return PaperCard(paper_info(row), paper_record(row), await paper_history(session, guild_id, row.id))
