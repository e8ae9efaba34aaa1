"""Papers in the store (one row per guild and key) and the guild's aliases (:func:`choose`, the one write)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, exists, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.errors import BadInput
from bot.papers import PaperRef, normalize_title, parse_paper_ref
from bot.services.papers.metadata import sanitize
from bot.services.papers.resolve import Choice
from db.base import Base, from_row
from db.models import Paper
from db.models.sessions import ALIAS_NAME_MAX, PaperAlias


@dataclass(frozen=True)
class PaperInfo:
    """A stored paper as plain values."""

    id: int
    key: str
    kind: str
    title: str
    url: str | None
    arxiv_id: str | None
    doi: str | None
    authors: str | None = None
    wiki_url: str | None = None
    year: int | None = None  # the sources' fields (enrich.py), for the exports
    venue: str | None = None
    decision: str | None = None
    tldr: str | None = None
    citation_count: int | None = None
    code_url: str | None = None


def paper_info(row: Paper) -> PaperInfo:
    """A stored paper as plain values."""
    return from_row(PaperInfo, row)


async def find_paper(session: AsyncSession, guild_id: int, ref: PaperRef) -> Paper | None:
    """The guild's paper with this reference's key, or None."""
    return (
        await session.execute(select(Paper).where(Paper.guild_id == guild_id, Paper.key == ref.key))
    ).scalar_one_or_none()


async def get_or_create_paper(
    session: AsyncSession,
    guild_id: int,
    ref: PaperRef,
    *,
    title: str | None = None,
    now: datetime | None = None,
) -> Paper:
    """The guild's paper for `ref` (or its alias's), created when new; a title given fills a missing one."""
    row = await find_paper(session, guild_id, ref) or await aliased_paper(session, guild_id, ref)
    display_title = (title or ref.title or ref.label).strip()
    if row is None:
        row = Paper(
            guild_id=guild_id,
            key=ref.key,
            kind=ref.kind,
            title=display_title[:400],
            normalized_title=normalize_title(display_title)[:400],
            url=ref.url,
            arxiv_id=ref.arxiv_id,
            doi=ref.doi,
        )
        if now is not None:
            row.created_at = now
        session.add(row)
        await session.flush()
    elif title and row.title == ref.label and title.strip() != row.title:
        # The paper was stored under its id only; a real title is better.
        row.title = title.strip()[:400]
        row.normalized_title = normalize_title(row.title)[:400]
    return row


async def papers_for_refs(
    session: AsyncSession, guild_id: int, refs: Sequence[PaperRef], *, now: datetime | None = None
) -> list[Paper]:
    """The guild's paper for each reference, created when new, in order and without repeats."""
    seen: set[str] = set()
    rows: list[Paper] = []
    for ref in refs:
        if ref.key in seen:
            continue
        seen.add(ref.key)
        rows.append(await get_or_create_paper(session, guild_id, ref, now=now))
    return rows


CHOSEN = "chosen"  # field_sources' source for what the organizer's pick set
ACTIVE_SUGGESTION = ("open", "shortlisted", "accepted")  # uq_suggestions_active_paper's statuses


@dataclass(frozen=True)
class AliasInfo:
    """A remembered name: the paper it means (None: "none of these"), who chose it and when."""

    name: str
    paper_id: int | None
    paper_title: str | None
    chosen_by: int | None
    chosen_at: datetime

    @property
    def rejected(self) -> bool:
        """The organizer said none of the candidates is this name."""
        return self.paper_id is None


def normalize_name(name: str) -> str:
    """The alias key of a name: its normalised title form (case, accents, punctuation, spaces)."""
    return normalize_title(name)[:ALIAS_NAME_MAX]


async def find_alias(session: AsyncSession, guild_id: int, name: str) -> AliasInfo | None:
    """The guild's alias for ``name`` (case- and space-insensitive), or None."""
    row = (
        await session.execute(
            select(PaperAlias, Paper.title)
            .outerjoin(Paper, Paper.id == PaperAlias.paper_id)
            .where(PaperAlias.guild_id == guild_id, PaperAlias.normalized_name == normalize_name(name))
        )
    ).first()
    if row is None:
        return None
    alias, title = row
    return AliasInfo(alias.name, alias.paper_id, title, alias.chosen_by, alias.chosen_at)


async def aliased_paper(session: AsyncSession, guild_id: int, ref: PaperRef) -> Paper | None:
    """The paper a title-only reference's alias names, or None (not a title, no alias, or "none")."""
    if ref.kind != "title" or not ref.title:
        return None
    return await session.scalar(
        select(Paper)
        .join(PaperAlias, PaperAlias.paper_id == Paper.id)
        .where(PaperAlias.guild_id == guild_id, PaperAlias.normalized_name == normalize_name(ref.title))
    )


async def list_aliases(session: AsyncSession, guild_id: int) -> list[tuple[AliasInfo, Paper | None]]:
    """Every alias of the guild with its paper (None for "none of these"), by name."""
    rows = await session.execute(
        select(PaperAlias, Paper)
        .outerjoin(Paper, Paper.id == PaperAlias.paper_id)
        .where(PaperAlias.guild_id == guild_id)
        .order_by(PaperAlias.normalized_name)
    )
    return [
        (AliasInfo(a.name, a.paper_id, p.title if p else None, a.chosen_by, a.chosen_at), p) for a, p in rows
    ]


async def unresolved_papers(session: AsyncSession, guild_id: int) -> list[str]:
    """The titles of the guild's title-only papers whose name has no alias, oldest first."""
    covered = exists().where(
        PaperAlias.guild_id == guild_id, PaperAlias.normalized_name == Paper.normalized_title
    )
    rows = await session.scalars(
        select(Paper.title)
        .where(
            Paper.guild_id == guild_id,
            Paper.kind == "title",
            Paper.arxiv_id.is_(None),
            Paper.doi.is_(None),
            Paper.s2_id.is_(None),
            ~covered,
        )
        .order_by(Paper.id)
    )
    return list(rows)


async def remember(
    session: AsyncSession,
    guild_id: int,
    name: str,
    paper_id: int | None,
    chosen_by: int | None,
    now: datetime,
) -> AliasInfo:
    """Store (or replace) the guild's alias for ``name`` in the caller's transaction."""
    key = normalize_name(name)
    alias = await session.scalar(
        select(PaperAlias).where(PaperAlias.guild_id == guild_id, PaperAlias.normalized_name == key)
    )
    shown = " ".join(name.split())[:ALIAS_NAME_MAX]
    if alias is None:
        alias = PaperAlias(guild_id=guild_id, name=shown, normalized_name=key)
        session.add(alias)
    alias.name, alias.paper_id, alias.chosen_by, alias.chosen_at = shown, paper_id, chosen_by, now
    await session.flush()
    title = await session.scalar(select(Paper.title).where(Paper.id == paper_id)) if paper_id else None
    return AliasInfo(shown, paper_id, title, chosen_by, now)


def _fill(row: Paper, choice: Choice, now: datetime, *, retitle: bool) -> None:
    """Set the fields the pick gives (the title when ``retitle``), each marked with the source that found it."""
    sources = dict(row.field_sources or {})
    stamp = [choice.sources[0] if choice.sources else CHOSEN, now.isoformat()]
    values: dict[str, Any] = {
        "title": choice.title[:400],
        "authors": choice.authors or None,
        "year": choice.year,
        "venue": choice.venue,
        "s2_id": choice.s2_id,
        "url": choice.url,
    }
    for name, raw in values.items():
        value = sanitize(name, raw) if name != "url" else raw
        keep = not retitle if name == "title" else getattr(row, name) not in (None, "")
        if value is None or keep:
            continue
        setattr(row, name, value)
        sources[name] = stamp
    row.normalized_title = normalize_title(row.title)[:400]
    row.field_sources = sources


async def _move_references(session: AsyncSession, old: Paper, new: Paper) -> bool:
    """Point ``old``'s references at ``new``; True when nothing refers to ``old`` any more."""
    tables = Base.metadata.tables
    for table, owner in (("session_papers", "session_id"), ("reading_list_items", "list_id")):
        t = tables[table]
        both = select(t.c[owner]).where(t.c.paper_id == new.id)
        await session.execute(delete(t).where(t.c.paper_id == old.id, t.c[owner].in_(both)))
        await session.execute(update(t).where(t.c.paper_id == old.id).values(paper_id=new.id))
    s = tables["suggestions"]
    other = s.alias("other")
    clash = exists().where(other.c.paper_id == new.id, other.c.status.in_(ACTIVE_SUGGESTION))
    await session.execute(
        update(s)
        .where(s.c.paper_id == old.id, or_(s.c.status.not_in(ACTIVE_SUGGESTION), ~clash))
        .values(paper_id=new.id)
    )
    await session.execute(
        update(PaperAlias)
        .where(PaperAlias.paper_id == old.id)
        .values(paper_id=new.id)
        .execution_options(synchronize_session=False)
    )
    return not await session.scalar(select(exists().where(s.c.paper_id == old.id)))


async def choose(
    session: AsyncSession,
    guild_id: int,
    name: str,
    choice: Choice | None,
    *,
    chosen_by: int | None,
    now: datetime,
    ref: PaperRef | None = None,
) -> AliasInfo:
    """Remember that ``name`` means ``choice`` (None: none of these), stored under ``ref`` or its id."""
    key = normalize_name(name)
    if not key:
        raise BadInput("Give the paper's name or title.")
    if choice is None:
        return await remember(session, guild_id, name, None, chosen_by, now)
    name_ref = parse_paper_ref(name)
    title_row = await session.scalar(
        select(Paper)
        .where(
            Paper.guild_id == guild_id,
            Paper.kind == "title",
            or_(Paper.normalized_title == key, Paper.key == name_ref.key),
        )
        .order_by(Paper.key != name_ref.key, Paper.id)
        .limit(1)
    )
    ref = ref or (parse_paper_ref(choice.reference) if choice.reference else None)
    canonical = await find_paper(session, guild_id, ref) if ref else None
    if canonical is not None and title_row is not None and canonical.id != title_row.id:
        if await _move_references(session, title_row, canonical):
            await session.delete(title_row)
        row = canonical
    elif canonical is not None:
        row = canonical
    elif title_row is not None:
        row = title_row
        if ref is not None:
            row.key, row.kind = ref.key, ref.kind
            row.arxiv_id, row.doi = ref.arxiv_id or row.arxiv_id, ref.doi or row.doi
            row.url = ref.url or row.url
            row.enriched_at = None  # enrichment asks the sources about the paper's new ids
            row.enrich_failures, row.enrich_retry_at = 0, None
    else:
        row = Paper(
            guild_id=guild_id,
            key=(ref or name_ref).key,
            kind=(ref or name_ref).kind,
            title=(choice.title or (ref or name_ref).label)[:400],
            normalized_title="",
            url=ref.url if ref else None,
            arxiv_id=ref.arxiv_id if ref else None,
            doi=ref.doi if ref else None,
            created_at=now,
        )
        session.add(row)
    placeholder = ref is not None and row.title == ref.label  # stored under its id only: "arXiv:…"
    _fill(row, choice, now, retitle=row is not canonical or placeholder)  # else a known paper keeps its title
    await session.flush()
    return await remember(session, guild_id, name, row.id, chosen_by, now)
