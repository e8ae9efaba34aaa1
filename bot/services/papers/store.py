"""Papers in the store: one row per guild and canonical key, shared by sessions, suggestions and lists."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.papers import PaperRef, normalize_title
from bot.services.papers.aliases import aliased_paper
from db.models import Paper


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
    return PaperInfo(**{f.name: getattr(row, f.name) for f in fields(PaperInfo)})


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
    """The guild's paper for `ref` (a title-only one through the guild's aliases), created when new, in the
    caller's transaction; a title given fills a missing one."""
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
    """The guild's paper for each (already parsed) reference, created when new, in the given order
    and without repeats."""
    seen: set[str] = set()
    rows: list[Paper] = []
    for ref in refs:
        if ref.key in seen:
            continue
        seen.add(ref.key)
        rows.append(await get_or_create_paper(session, guild_id, ref, now=now))
    return rows
