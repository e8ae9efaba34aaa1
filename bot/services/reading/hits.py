"""What a search hit is (a session, a paper or a list) and where it belongs, loaded for a page of index rows."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import ClubSession, Paper, SessionPaper
from db.models.reading import ReadingList, ReadingListItem

MARK_OPEN, MARK_CLOSE = "\x02", "\x03"  # around matched words in snippets (renderers make them bold)

HitKind = Literal["session", "paper", "list"]


@dataclass(frozen=True)
class SessionBrief:
    """The session a search hit links to."""

    id: int
    title: str
    starts_at: datetime
    timezone: str


@dataclass(frozen=True)
class SearchHit:
    """One ranked result. ``snippet`` marks matched words with MARK_OPEN/MARK_CLOSE."""

    kind: HitKind
    ref_id: int
    title: str
    snippet: str
    url: str | None = None
    starts_at: datetime | None = None
    timezone: str | None = None
    presenter: str | None = None
    read_in: tuple[SessionBrief, ...] = ()
    on_lists: tuple[str, ...] = ()
    list_size: int | None = None


@dataclass(frozen=True)
class IndexRow:
    """One index row of a page (its snippet already marked), before hydrate() loads what it is."""

    kind: HitKind
    ref_id: int
    snippet: str


async def hydrate(session: AsyncSession, rows: list[IndexRow]) -> list[SearchHit]:
    """Turn index rows into hits with where each belongs (sessions that read a paper, its lists)."""
    ids: dict[str, list[int]] = defaultdict(list)
    for row in rows:
        ids[row.kind].append(row.ref_id)
    sessions: dict[int, ClubSession] = {}
    if ids["session"]:
        found = await session.scalars(select(ClubSession).where(ClubSession.id.in_(ids["session"])))
        sessions = {s.id: s for s in found}
    papers: dict[int, Paper] = {}
    read_in: dict[int, list[SessionBrief]] = defaultdict(list)
    on_lists: dict[int, list[str]] = defaultdict(list)
    if ids["paper"]:
        papers = {p.id: p for p in await session.scalars(select(Paper).where(Paper.id.in_(ids["paper"])))}
        for paper_id, sid, title, starts_at, zone in await session.execute(
            select(
                SessionPaper.paper_id,
                ClubSession.id,
                ClubSession.title,
                ClubSession.starts_at,
                ClubSession.timezone,
            )
            .join(ClubSession, ClubSession.id == SessionPaper.session_id)
            .where(SessionPaper.paper_id.in_(ids["paper"]), ClubSession.status != "cancelled")
            .order_by(ClubSession.starts_at.desc())
        ):
            read_in[paper_id].append(SessionBrief(sid, title, starts_at, zone))
        for paper_id, name in await session.execute(
            select(ReadingListItem.paper_id, ReadingList.name)
            .join(ReadingList, ReadingList.id == ReadingListItem.list_id)
            .where(ReadingListItem.paper_id.in_(ids["paper"]))
            .order_by(ReadingList.name)
        ):
            on_lists[paper_id].append(name)
    lists: dict[int, tuple[str, int]] = {}
    if ids["list"]:
        for list_id, name, size in await session.execute(
            select(ReadingList.id, ReadingList.name, func.count(ReadingListItem.paper_id))
            .outerjoin(ReadingListItem, ReadingListItem.list_id == ReadingList.id)
            .where(ReadingList.id.in_(ids["list"]))
            .group_by(ReadingList.id, ReadingList.name)
        ):
            lists[list_id] = (name, int(size))

    hits: list[SearchHit] = []
    for row in rows:
        if row.kind == "session" and (s := sessions.get(row.ref_id)):
            hits.append(
                SearchHit(
                    "session",
                    s.id,
                    s.title,
                    row.snippet,
                    starts_at=s.starts_at,
                    timezone=s.timezone,
                    presenter=s.presenter_name,
                )
            )
        elif row.kind == "paper" and (p := papers.get(row.ref_id)):
            hits.append(
                SearchHit(
                    "paper",
                    p.id,
                    p.title,
                    row.snippet,
                    url=p.url,
                    read_in=tuple(read_in[p.id]),
                    on_lists=tuple(on_lists[p.id]),
                )
            )
        elif row.kind == "list" and row.ref_id in lists:
            name, size = lists[row.ref_id]
            hits.append(SearchHit("list", row.ref_id, name, row.snippet, list_size=size))
    return hits
