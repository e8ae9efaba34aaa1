"""The store reads behind the home page and a session page: only the columns shown, in few statements."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Any, Final

from sqlalchemy import Integer, String, bindparam, cast, func, literal_column, null, select, union_all
from sqlalchemy.engine import Row
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.services.sessions.info import CANCELLED, SCHEDULED
from bot.services.sessions.rules import MAX_DURATION
from db.models import ClubSession, Paper, SessionPaper
from db.models.reading import ReadingList, ReadingListItem
from db.models.series import WEEK_SKIPPED, Series, SeriesWeek
from db.models.suggestions import Suggestion, SuggestionVote

_S = ClubSession.__table__.c
_SP = SessionPaper.__table__.c
_P = Paper.__table__.c
_W = SeriesWeek.__table__.c
_SR = Series.__table__.c

#: What a page shows of a session (SessionView's sources).
SESSION_COLUMNS: Final = tuple(
    _S[name]
    for name in [
        "id",
        "guild_id",
        "title",
        "description",
        "starts_at",
        "duration_minutes",
        "presenter_name",
        "signup_url",
        "recording_url",
        "notes_url",
        "wiki_url",
        "status",
        "cancel_reason",
        "thread_id",
        "date_only",
        "channel_id",
        "channel_name",
    ]
)
#: What a page shows of a paper (PaperView's sources).
PAPER_COLUMNS: Final = (_P.id, _P.title, _P.url, _P.arxiv_id, _P.wiki_url)

RUNNING, NEXT, PAST = 0, 1, 2


@dataclass(frozen=True)
class SessionRow:
    """A session's columns (a result row) and its papers' columns, in their order."""

    row: Any
    papers: tuple[Row[Any], ...]


def _with_papers(sessions: Any, *extra: Any) -> Any:
    """``sessions`` (SESSION_COLUMNS) joined to its papers (a row each) and series; ``extra`` on every row."""
    return select(
        sessions,
        _SP.position.label("paper_position"),
        _SP.role.label("paper_role"),
        *(column.label(f"paper_{column.name}") for column in PAPER_COLUMNS),
        _W.series_id.label("series_id"),
        _SR.description.label("series_description"),
        *extra,
    ).select_from(
        sessions.outerjoin(SessionPaper.__table__, _SP.session_id == sessions.c.id)
        .outerjoin(Paper.__table__, _P.id == _SP.paper_id)
        .outerjoin(SeriesWeek.__table__, _W.session_id == sessions.c.id)
        .outerjoin(Series.__table__, _SR.id == _W.series_id)
    )


def _started(*where: Any) -> Any:
    """How many of the guild's sessions started (and match ``where``), counted from an index alone."""
    return (
        select(func.count())
        .select_from(ClubSession.__table__)
        .where(_S.guild_id == bindparam("guild"), *where, _S.starts_at <= bindparam("now"))
        .scalar_subquery()
    )


#: Sessions that took place: the started less the cancelled.
_PAST_COUNT: Final = select((_started() - _started(_S.status == CANCELLED)).label("past"))


@lru_cache
def _home_sessions(next_count: int, recent_count: int) -> Any:
    now: Any = bindparam("now")
    scheduled = _S.status == SCHEDULED
    parts = (  # (part, where, order, limit)
        (RUNNING, (scheduled, _S.starts_at > bindparam("window"), _S.starts_at <= now), (), None),
        (NEXT, (scheduled, _S.starts_at > now), (_S.starts_at, _S.id), next_count),
        (
            PAST,
            (_S.starts_at <= now, _S.status != CANCELLED),
            (_S.starts_at.desc(), _S.id.desc()),
            recent_count,
        ),
    )
    shown = union_all(
        *(
            select(
                # the part's number is a constant of the statement, not a parameter
                select(literal_column(str(part), Integer).label("part"), *SESSION_COLUMNS)
                .where(_S.guild_id == bindparam("guild"), *where)
                .order_by(*order)
                .limit(limit)
                .subquery()
            )
            for part, where, order, limit in parts
        )
    ).subquery("shown")
    # The count rides along on every row (an uncorrelated subquery, evaluated once).
    return _with_papers(shown, _PAST_COUNT.scalar_subquery().label("past_total"))


def _group(rows: Sequence[Row[Any]], key: Any) -> dict[Any, SessionRow]:
    """Rows of (session columns, paper columns) → one SessionRow per ``key(row)``, papers in order."""
    grouped: dict[Any, tuple[Row[Any], list[Row[Any]]]] = {}
    for row in rows:
        entry = grouped.setdefault(key(row), (row, []))
        if row.paper_position is not None:
            entry[1].append(row)
    return {
        k: SessionRow(first, tuple(sorted(papers, key=lambda r: r.paper_position)))
        for k, (first, papers) in grouped.items()
    }


async def home_sessions(
    conn: AsyncConnection, guild_id: int, now: datetime, *, next_count: int, recent_count: int
) -> tuple[list[SessionRow], list[SessionRow], int]:
    """The next sessions (running first), the recent ones with their papers, and the past count."""
    statement = _home_sessions(next_count, recent_count)
    window = now - timedelta(minutes=MAX_DURATION)
    rows = (await conn.execute(statement, {"guild": guild_id, "now": now, "window": window})).all()
    by_part: dict[int, list[SessionRow]] = {RUNNING: [], NEXT: [], PAST: []}
    grouped = _group(rows, lambda r: (r.part, r.id))
    for (part, _), found in sorted(grouped.items(), key=lambda item: (item[1].row.starts_at, item[1].row.id)):
        by_part[part].append(found)
    running = [
        s for s in by_part[RUNNING] if s.row.starts_at + timedelta(minutes=s.row.duration_minutes) > now
    ]
    upcoming = (running + by_part[NEXT])[:next_count]
    shown = {s.row.id for s in upcoming}
    recent = [s for s in reversed(by_part[PAST]) if s.row.id not in shown]
    return upcoming, recent, int(rows[0].past_total or 0) if rows else 0


_ONE_SESSION: Final = _with_papers(
    select(*SESSION_COLUMNS)
    .where(_S.id == bindparam("session_id"), _S.guild_id == bindparam("guild"))
    .subquery("one")
)


async def one_session(conn: AsyncConnection, guild_id: int, session_id: int) -> SessionRow | None:
    """A session of the guild with its papers (one statement), or None."""
    rows = (await conn.execute(_ONE_SESSION, {"guild": guild_id, "session_id": session_id})).all()
    return next(iter(_group(rows, lambda r: r.id).values()), None)


async def past_count(conn: AsyncConnection, guild_id: int, now: datetime) -> int:
    """How many of the guild's sessions took place (not cancelled)."""
    value = await conn.scalar(_PAST_COUNT, {"guild": guild_id, "now": now})
    return int(value or 0)


_SKIPPED: Final = (
    select(_W.week_date, _W.skip_reason, _SR.name)
    .join(Series.__table__, _SR.id == _W.series_id)
    .where(_W.guild_id == bindparam("guild"), _W.status == WEEK_SKIPPED, _W.week_date >= bindparam("today"))
    .order_by(_W.week_date, _SR.name)
    .limit(bindparam("limit"))
)


async def skipped_weeks(conn: AsyncConnection, guild_id: int, today: date, limit: int) -> list[Row[Any]]:
    """The guild's skipped weeks from ``today`` on (week_date, skip_reason, name), soonest first."""
    return list((await conn.execute(_SKIPPED, {"guild": guild_id, "today": today, "limit": limit})).all())


_L = ReadingList.__table__.c
_LI = ReadingListItem.__table__.c
_SG = Suggestion.__table__.c
LIST, SHORTLISTED = 0, 1


@lru_cache
def _lists_and_shortlist(limit: int) -> Any:
    """The reading lists and the shortlist as one UNION ALL, each row with its part and rank."""

    def none(kind: Any) -> Any:
        return cast(null(), kind)

    lists = (
        select(
            literal_column(str(LIST), Integer).label("part"),
            func.row_number().over(order_by=_L.normalized_name).label("rank"),
            _L.id.label("list_id"),
            _L.name.label("name"),
            _L.description.label("text"),
            func.count(_LI.paper_id).label("n"),
            none(String).label("topic"),
            *(none(column.type).label(f"paper_{column.name}") for column in PAPER_COLUMNS),
        )
        .select_from(ReadingList.__table__.outerjoin(ReadingListItem.__table__, _LI.list_id == _L.id))
        .where(_L.guild_id == bindparam("guild"))
        .group_by(_L.id, _L.name, _L.description, _L.normalized_name)
    )
    votes = (
        select(func.count())
        .select_from(SuggestionVote.__table__)
        .where(SuggestionVote.__table__.c.suggestion_id == _SG.id)
        .correlate(Suggestion.__table__)
        .scalar_subquery()
    )
    order = (votes.desc(), _SG.created_at, _SG.id)
    shortlist = (
        select(
            literal_column(str(SHORTLISTED), Integer).label("part"),
            func.row_number().over(order_by=order).label("rank"),
            none(Integer).label("list_id"),
            none(String).label("name"),
            _SG.reason.label("text"),
            votes.label("n"),
            _SG.topic.label("topic"),
            *(column.label(f"paper_{column.name}") for column in PAPER_COLUMNS),
        )
        .select_from(Suggestion.__table__.join(Paper.__table__, _P.id == _SG.paper_id))
        .where(_SG.guild_id == bindparam("guild"), _SG.status == "shortlisted")
        .order_by(*order)
        .limit(limit)
        .subquery()
    )
    return union_all(lists, select(shortlist))


async def lists_and_shortlist(
    conn: AsyncConnection, guild_id: int, limit: int
) -> tuple[list[Row[Any]], list[Row[Any]]]:
    """The home page's reading lists (by name, with sizes) and shortlist (most votes first)."""
    rows = (await conn.execute(_lists_and_shortlist(limit), {"guild": guild_id})).all()
    rows = sorted(rows, key=lambda r: (r.part, r.rank))
    return [r for r in rows if r.part == LIST], [r for r in rows if r.part == SHORTLISTED]
