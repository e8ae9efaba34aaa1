"""The club's named reading lists: read them, add and remove a paper, and write a whole list (importers)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.errors import BadInput, Conflict, NotFound
from bot.papers import PaperRef, normalize_title, parse_paper_ref
from bot.services.papers.store import PaperInfo, find_paper, get_or_create_paper, paper_info
from bot.text import Page, clamp_page, clean_line, page_count
from db.base import utcnow
from db.models import Paper
from db.models.reading import ReadingList, ReadingListItem

MAX_LIST_NAME = 100
MAX_LIST_DESCRIPTION = 1000
MAX_NOTE = 300
MAX_LISTS_PER_GUILD = 100
MAX_ITEMS_PER_LIST = 500
_STORED_KEY = re.compile(r"(?:title|url):\S.*", re.IGNORECASE)  # keys autocomplete offers, not references


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


@dataclass(frozen=True)
class ListPage:
    """One page of a reading list."""

    summary: ListSummary
    items: list[ListItemInfo]
    page: int
    pages: int
    first_number: int  # the 1-based number of the page's first item


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
    if _STORED_KEY.fullmatch(cleaned):
        return PaperInput(cleaned, None)  # looked up as is
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


async def lists_page(
    session: AsyncSession, guild_id: int, *, page: int = 0, per_page: int = 15
) -> Page[ListSummary]:
    """One page of the guild's lists with their sizes; `page` is clamped."""
    summaries = await list_summaries(session, guild_id)
    pages = page_count(len(summaries), per_page)
    page = clamp_page(page, pages)
    return Page(summaries[page * per_page : (page + 1) * per_page], len(summaries), page, pages)


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
    pages = page_count(size, per_page)
    page = clamp_page(page, pages)
    items = await session.scalars(
        select(ReadingListItem)
        .where(ReadingListItem.list_id == list_id)
        .order_by(ReadingListItem.position, ReadingListItem.added_at)
        .limit(per_page)
        .offset(page * per_page)
    )
    shown = [ListItemInfo(paper_info(i.paper), i.note, i.added_at) for i in items]
    return ListPage(
        ListSummary(row.id, row.name, row.description, size), shown, page, pages, page * per_page + 1
    )


async def named_list(
    session: AsyncSession, guild_id: int, name: str, *, per_page: int = MAX_ITEMS_PER_LIST
) -> ListPage:
    """The first page of the list called `name` (the whole list by default); NotFound, naming the lists."""
    found = await list_page(
        session, guild_id, (await _require_list(session, guild_id, name)).id, per_page=per_page
    )
    assert found is not None
    return found


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
    """Put a paper on a list (creating the list when new); a repeat only updates the note."""
    name = clean_list_name(list_name)
    note = clean_note(note)
    row = await find_list(session, guild_id, name)
    paper_row = await resolve_existing_paper(session, guild_id, paper)
    if paper_row is None and paper.ref is None:
        raise NotFound("I can't find that paper; paste its arXiv id, DOI, link or title.")
    created = row is None
    if row is None:
        row = await _new_list(session, guild_id, name, user_id=user_id, now=now)
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
    item = ReadingListItem(list_id=row.id, paper_id=paper_row.id, note=note, added_by=user_id)
    item.position, item.added_at = (last if last is not None else -1) + 1, now or utcnow()
    session.add(item)
    await session.flush()
    return AddOutcome(row.name, paper_info(paper_row), created, False, note is not None, size + 1)


async def _new_list(
    session: AsyncSession, guild_id: int, name: str, *, user_id: int | None, now: datetime | None
) -> ReadingList:
    """A new list called ``name``; Conflict when the guild has as many as it may."""
    count = await session.scalar(select(func.count()).where(ReadingList.guild_id == guild_id))
    if (count or 0) >= MAX_LISTS_PER_GUILD:
        raise Conflict(f"This server already has {MAX_LISTS_PER_GUILD} reading lists; remove one first.")
    row = ReadingList(
        guild_id=guild_id, name=name, normalized_name=normalize_list_name(name), created_by=user_id
    )
    row.created_at = row.updated_at = now or utcnow()
    session.add(row)
    await session.flush()
    return row


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


@dataclass(frozen=True)
class ListWritten:
    """What writing a whole list did."""

    list_id: int
    created: bool
    changed: bool


async def replace_list(
    session: AsyncSession,
    guild_id: int,
    name: str,
    papers: Sequence[tuple[int, str | None]],
    *,
    description: str | None = None,
    keep_description: bool = False,
    now: datetime | None = None,
) -> ListWritten:
    """Make the list called ``name`` hold exactly ``papers`` (ids and notes, in order), creating it when new."""
    name = clean_list_name(name)
    wanted = {paper_id: clean_note(note) for paper_id, note in reversed(papers)}  # the first of a repeat
    order = list(dict.fromkeys(paper_id for paper_id, _ in papers))
    if description is not None and len(description) > MAX_LIST_DESCRIPTION:
        raise BadInput(f"List descriptions are at most {MAX_LIST_DESCRIPTION:,} characters.")
    if len(order) > MAX_ITEMS_PER_LIST:
        raise Conflict(f"“{name}” would hold {len(order)} papers; a list holds at most {MAX_ITEMS_PER_LIST}.")
    known = set(
        await session.scalars(select(Paper.id).where(Paper.guild_id == guild_id, Paper.id.in_(order)))
    )
    if missing := [paper_id for paper_id in order if paper_id not in known]:
        raise NotFound(f"There is no paper #{missing[0]} in this server.")
    row = await find_list(session, guild_id, name)
    created = row is None
    if row is None:
        row = await _new_list(session, guild_id, name, user_id=None, now=now)
    rows = await session.scalars(select(ReadingListItem).where(ReadingListItem.list_id == row.id))
    items = {item.paper_id: item for item in rows}
    kept = row.description if keep_description else description
    before = (row.name, row.description, sorted((i.position, i.paper_id, i.note) for i in items.values()))
    after = (name, kept, [(position, paper_id, wanted[paper_id]) for position, paper_id in enumerate(order)])
    row.name, row.description = name, kept
    for item in items.values():
        if item.paper_id not in wanted:
            await session.delete(item)
    for position, paper_id in enumerate(order):
        item = items.get(paper_id) or ReadingListItem(
            list_id=row.id, paper_id=paper_id, added_at=now or utcnow()
        )
        item.position, item.note = position, wanted[paper_id]
        session.add(item)
    await session.flush()
    return ListWritten(row.id, created, created or before != after)


async def paper_infos(session: AsyncSession, paper_ids: list[int]) -> list[PaperInfo]:
    """The papers with these ids, in the order given."""
    if not paper_ids:
        return []
    rows = {p.id: p for p in await session.scalars(select(Paper).where(Paper.id.in_(paper_ids)))}
    return [paper_info(rows[i]) for i in paper_ids if i in rows]
