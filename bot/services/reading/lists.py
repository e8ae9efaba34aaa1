"""The club's reading history and its named reading lists (plain values in and out, no discord)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from bot.errors import BadInput, Conflict, NotFound
from bot.papers import PaperRef, normalize_title, parse_paper_ref
from bot.services.papers.store import PaperInfo, find_paper, get_or_create_paper, paper_info
from bot.text import clean_line
from db.models import ClubSession, Paper
from db.models.reading import ReadingList, ReadingListItem

MAX_LIST_NAME = 100
MAX_LIST_DESCRIPTION = 1000
MAX_NOTE = 300
MAX_LISTS_PER_GUILD = 100
MAX_ITEMS_PER_LIST = 500
_KEY_FORM = re.compile(r"(?:title|url|openreview|acl|doi|arxiv):\S.*", re.IGNORECASE)


# ---------------------------------------------------------------- history


@dataclass(frozen=True)
class HistoryEntry:
    """A session that took place, with its papers in the order read."""

    id: int
    title: str
    description: str | None
    starts_at: datetime
    timezone: str
    presenter_name: str | None
    presenter_id: int | None
    papers: tuple[PaperInfo, ...]
    recording_url: str | None = None
    notes_url: str | None = None
    wiki_url: str | None = None


@dataclass(frozen=True)
class HistoryPage:
    """One page of the club's reading history."""

    entries: list[HistoryEntry]
    total: int
    page: int
    pages: int


def _entry(row: ClubSession) -> HistoryEntry:
    return HistoryEntry(
        id=row.id,
        title=row.title,
        description=row.description,
        starts_at=row.starts_at,
        timezone=row.timezone,
        presenter_name=row.presenter_name,
        presenter_id=row.presenter_id,
        papers=tuple(paper_info(link.paper) for link in row.papers),
        recording_url=row.recording_url,
        notes_url=row.notes_url,
        wiki_url=row.wiki_url,
    )


def _past_sessions(guild_id: int, now: datetime) -> Select[tuple[ClubSession]]:
    return select(ClubSession).where(
        ClubSession.guild_id == guild_id,
        ClubSession.starts_at <= now,
        ClubSession.status != "cancelled",
    )


async def history_page(
    session: AsyncSession, guild_id: int, now: datetime, *, page: int = 0, per_page: int = 5
) -> HistoryPage:
    """Sessions that took place (started by `now`, not cancelled), newest first; `page` is clamped."""
    total = int(
        await session.scalar(select(func.count()).select_from(_past_sessions(guild_id, now).subquery())) or 0
    )
    pages = max(1, -(-total // per_page))
    page = min(max(page, 0), pages - 1)
    rows = await session.scalars(
        _past_sessions(guild_id, now)
        .options(selectinload(ClubSession.papers))
        .order_by(ClubSession.starts_at.desc(), ClubSession.id.desc())
        .limit(per_page)
        .offset(page * per_page)
    )
    return HistoryPage([_entry(row) for row in rows], total, page, pages)


async def all_history(session: AsyncSession, guild_id: int, now: datetime) -> list[HistoryEntry]:
    """Every session that took place, newest first (for exports)."""
    rows = await session.scalars(
        _past_sessions(guild_id, now)
        .options(selectinload(ClubSession.papers))
        .order_by(ClubSession.starts_at.desc(), ClubSession.id.desc())
    )
    return [_entry(row) for row in rows]


# ---------------------------------------------------------------- lists


@dataclass(frozen=True)
class ListSummary:
    """A reading list's name, description and size."""

    id: int
    name: str
    description: str | None
    size: int


@dataclass(frozen=True)
class ListItemInfo:
    """One paper on a reading list, with its note and who added it when."""

    paper: PaperInfo
    note: str | None
    added_at: datetime
    added_by: int | None


@dataclass(frozen=True)
class ListPage:
    """One page of a reading list."""

    summary: ListSummary
    items: list[ListItemInfo]
    page: int
    pages: int
    first_number: int
    """The 1-based number of the first item on this page."""


@dataclass(frozen=True)
class ListDetail:
    """A whole reading list, for exports."""

    summary: ListSummary
    items: list[ListItemInfo]


@dataclass(frozen=True)
class AddOutcome:
    """What adding a paper to a list did."""

    list_name: str
    paper: PaperInfo
    created_list: bool
    already_there: bool
    note_changed: bool
    size: int


@dataclass(frozen=True)
class RemoveOutcome:
    """What removing a paper from a list did."""

    list_name: str
    paper: PaperInfo
    list_removed: bool
    size: int


@dataclass(frozen=True)
class PaperInput:
    """What a member typed for a paper: a canonical key picked from autocomplete, or a parsed reference."""

    text: str
    ref: PaperRef | None


def read_paper_input(text: str) -> PaperInput:
    """Validate a paper as typed (arXiv id or link, DOI, any http(s) link, a title, or a stored key)."""
    cleaned = text.strip()
    if _KEY_FORM.fullmatch(cleaned) and cleaned.split(":", 1)[0].lower() in ("title", "url"):
        return PaperInput(cleaned, None)  # a stored key offered by autocomplete; looked up as is
    return PaperInput(cleaned, parse_paper_ref(cleaned))


def normalize_list_name(name: str) -> str:
    """The key list names are compared by (one line, case-folded)."""
    return clean_line(name).casefold()


def clean_list_name(name: str) -> str:
    """A list name on one line, or BadInput when it is empty or too long."""
    cleaned = clean_line(name)
    if not cleaned:
        raise BadInput("Give the list a name, e.g. WorldSmith.")
    if len(cleaned) > MAX_LIST_NAME:
        raise BadInput(f"List names are at most {MAX_LIST_NAME} characters.")
    return cleaned


def clean_note(note: str | None) -> str | None:
    """A note on one line, or BadInput when it is too long."""
    if note is None:
        return None
    cleaned = clean_line(note)
    if len(cleaned) > MAX_NOTE:
        raise BadInput(f"Notes are at most {MAX_NOTE} characters (that one is {len(cleaned)}).")
    return cleaned or None


async def find_list(session: AsyncSession, guild_id: int, name: str) -> ReadingList | None:
    """The guild's reading list called ``name``, if there is one."""
    return await session.scalar(
        select(ReadingList).where(
            ReadingList.guild_id == guild_id, ReadingList.normalized_name == normalize_list_name(name)
        )
    )


async def _require_list(session: AsyncSession, guild_id: int, name: str) -> ReadingList:
    row = await find_list(session, guild_id, name)
    if row is None:
        names = [s.name for s in await list_summaries(session, guild_id)]
        known = f" The lists are: {', '.join(names[:10])}." if names else " There are no lists yet."
        raise NotFound(f"There is no reading list called “{' '.join(name.split())[:100]}”.{known}")
    return row


async def list_summaries(session: AsyncSession, guild_id: int) -> list[ListSummary]:
    """The guild's lists with their sizes, by name."""
    rows = await session.execute(
        select(
            ReadingList.id, ReadingList.name, ReadingList.description, func.count(ReadingListItem.paper_id)
        )
        .outerjoin(ReadingListItem, ReadingListItem.list_id == ReadingList.id)
        .where(ReadingList.guild_id == guild_id)
        .group_by(ReadingList.id, ReadingList.name, ReadingList.description)
        .order_by(ReadingList.normalized_name)
    )
    return [ListSummary(i, n, d, int(size)) for i, n, d, size in rows]


def _summary(row: ReadingList, size: int) -> ListSummary:
    return ListSummary(row.id, row.name, row.description, size)


def _item(row: ReadingListItem) -> ListItemInfo:
    return ListItemInfo(paper_info(row.paper), row.note, row.added_at, row.added_by)


async def _size(session: AsyncSession, list_id: int) -> int:
    count = await session.scalar(select(func.count()).where(ReadingListItem.list_id == list_id))
    return int(count or 0)


async def list_page(
    session: AsyncSession, guild_id: int, list_id: int, *, page: int = 0, per_page: int = 10
) -> ListPage | None:
    """One page of a list's papers in the order added, or None when the list is gone."""
    row = await session.get(ReadingList, list_id)
    if row is None or row.guild_id != guild_id:
        return None
    size = await _size(session, list_id)
    pages = max(1, -(-size // per_page))
    page = min(max(page, 0), pages - 1)
    items = await session.scalars(
        select(ReadingListItem)
        .where(ReadingListItem.list_id == list_id)
        .order_by(ReadingListItem.position, ReadingListItem.added_at)
        .limit(per_page)
        .offset(page * per_page)
    )
    return ListPage(_summary(row, size), [_item(i) for i in items], page, pages, page * per_page + 1)


async def list_id_for(session: AsyncSession, guild_id: int, name: str) -> int:
    """The id of the list called `name` (NotFound, naming the lists there are, otherwise)."""
    return (await _require_list(session, guild_id, name)).id


async def list_detail(session: AsyncSession, guild_id: int, name: str) -> ListDetail:
    """A whole list (for exports)."""
    row = await _require_list(session, guild_id, name)
    items = list(
        await session.scalars(
            select(ReadingListItem)
            .where(ReadingListItem.list_id == row.id)
            .order_by(ReadingListItem.position, ReadingListItem.added_at)
        )
    )
    return ListDetail(_summary(row, len(items)), [_item(i) for i in items])


async def resolve_existing_paper(session: AsyncSession, guild_id: int, given: PaperInput) -> Paper | None:
    """The stored paper a member means: by key, by canonical reference, or by exact title."""
    if given.ref is None:
        return await session.scalar(select(Paper).where(Paper.guild_id == guild_id, Paper.key == given.text))
    row = await find_paper(session, guild_id, given.ref)
    if row is None and given.ref.kind == "title" and given.ref.title:
        row = await session.scalar(
            select(Paper)
            .where(Paper.guild_id == guild_id, Paper.normalized_title == normalize_title(given.ref.title))
            .order_by(Paper.id)
            .limit(1)
        )
    return row


async def add_to_list(
    session: AsyncSession,
    guild_id: int,
    list_name: str,
    paper: PaperInput,
    *,
    note: str | None,
    user_id: int | None,
    now: datetime | None = None,
) -> AddOutcome:
    """Put a paper on a list (creating the list when new); a repeat only updates the note.
    ``now`` stamps new rows (None: the column defaults, the wall clock)."""
    name = clean_list_name(list_name)
    note = clean_note(note)
    row = await find_list(session, guild_id, name)
    paper_row = await resolve_existing_paper(session, guild_id, paper)
    if paper_row is None and paper.ref is None:
        raise NotFound("I can't find that paper; paste its arXiv id, DOI, link or title.")
    created = row is None
    if row is None:
        count = await session.scalar(select(func.count()).where(ReadingList.guild_id == guild_id))
        if (count or 0) >= MAX_LISTS_PER_GUILD:
            raise Conflict(f"This server already has {MAX_LISTS_PER_GUILD} reading lists; remove one first.")
        row = ReadingList(
            guild_id=guild_id, name=name, normalized_name=normalize_list_name(name), created_by=user_id
        )
        if now is not None:
            row.created_at = row.updated_at = now
        session.add(row)
        await session.flush()
    size = await _size(session, row.id)
    if paper_row is None:
        assert paper.ref is not None
        paper_row = await get_or_create_paper(session, guild_id, paper.ref, now=now)
    item = await session.get(ReadingListItem, (row.id, paper_row.id))
    if item is not None:
        changed = note is not None and note != item.note
        if changed:
            item.note = note
        return AddOutcome(row.name, paper_info(paper_row), False, True, changed, size)
    if size >= MAX_ITEMS_PER_LIST:
        raise Conflict(f"“{row.name}” already holds {MAX_ITEMS_PER_LIST} papers, the most a list can.")
    last = await session.scalar(
        select(func.max(ReadingListItem.position)).where(ReadingListItem.list_id == row.id)
    )
    item = ReadingListItem(
        list_id=row.id,
        paper_id=paper_row.id,
        position=(last if last is not None else -1) + 1,
        note=note,
        added_by=user_id,
    )
    if now is not None:
        item.added_at = now
    session.add(item)
    await session.flush()
    return AddOutcome(row.name, paper_info(paper_row), created, False, note is not None, size + 1)


async def remove_from_list(
    session: AsyncSession, guild_id: int, list_name: str, paper: PaperInput
) -> RemoveOutcome:
    """Take a paper off a list; a list left empty is removed too."""
    row = await _require_list(session, guild_id, list_name)
    paper_row = await resolve_existing_paper(session, guild_id, paper)
    item = None if paper_row is None else await session.get(ReadingListItem, (row.id, paper_row.id))
    if item is None or paper_row is None:
        raise NotFound(f"That paper is not on “{row.name}”. `/reading show` lists what is.")
    await session.delete(item)
    await session.flush()
    size = await _size(session, row.id)
    if size == 0:
        await session.delete(row)
        await session.flush()
    return RemoveOutcome(row.name, paper_info(paper_row), size == 0, size)


# ---------------------------------------------------------------- autocomplete


def _like_pattern(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


async def list_name_choices(session: AsyncSession, guild_id: int, current: str, limit: int = 25) -> list[str]:
    """List names containing what is typed (names starting with it first)."""
    needle = normalize_list_name(current)[:MAX_LIST_NAME]
    rows = await session.scalars(
        select(ReadingList.name)
        .where(
            ReadingList.guild_id == guild_id,
            ReadingList.normalized_name.like(_like_pattern(needle), escape="\\"),
        )
        .order_by(ReadingList.normalized_name)
        .limit(100)
    )
    names = list(rows)
    names.sort(key=lambda n: not normalize_list_name(n).startswith(needle))
    return names[: max(0, min(limit, 25))]


def choice_value(info: PaperInfo) -> str:
    """A value that names this paper exactly (its key) when it fits an autocomplete value (100)."""
    return info.key if len(info.key) <= 100 else info.title[:100]


async def list_paper_choices(
    session: AsyncSession, guild_id: int, list_name: str, current: str, limit: int = 25
) -> list[tuple[str, str]]:
    """(title, value) for the papers on `list_name` whose title contains what is typed."""
    row = await find_list(session, guild_id, list_name)
    if row is None:
        return []
    needle = normalize_title(current)
    rows = await session.scalars(
        select(Paper)
        .join(ReadingListItem, ReadingListItem.paper_id == Paper.id)
        .where(
            ReadingListItem.list_id == row.id, Paper.normalized_title.like(_like_pattern(needle), escape="\\")
        )
        .order_by(ReadingListItem.position)
        .limit(max(0, min(limit, 25)))
    )
    return [(p.title, choice_value(paper_info(p))) for p in rows]


async def paper_infos(session: AsyncSession, paper_ids: list[int]) -> list[PaperInfo]:
    """The papers with these ids, in the order given."""
    if not paper_ids:
        return []
    rows = {p.id: p for p in await session.scalars(select(Paper).where(Paper.id.in_(paper_ids)))}
    return [paper_info(rows[i]) for i in paper_ids if i in rows]
