"""The papers.enrich job (:func:`enrich_due`): the due papers asked of each source, their answers merged."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.papers import normalize_title
from bot.services.papers.metadata import (
    ARXIV,
    HF,
    OPENREVIEW,
    REFRESHED,
    S2,
    SourceRecord,
    arxiv_fields,
    id_label,
    merge_into,
)
from bot.sources.clients import SourceClients
from bot.sources.http import SourceUnavailable
from bot.sources.openreview import held_by_v1, worth_searching
from bot.sources.semantic_scholar import paper_page_url
from db.models import Paper

log = logging.getLogger("paperclub.papers")
T = TypeVar("T")

ENRICH_JOB = "papers.enrich"
ENRICH_EVERY = timedelta(minutes=2)  # a paper added is made due at once (Background.due_now)
REFRESH_AFTER = timedelta(days=7)
BATCH = 50  # papers per run
SOURCE_WAIT = 120.0  # seconds a call in the background may wait for its source's pace or a short Retry-After
# A paper a source failed for waits (doubling, at most a day) while the papers behind it are asked.
RETRY_FIRST = timedelta(minutes=10)
RETRY_MAX = timedelta(days=1)
OPENREVIEW_KEY = "openreview:"
_FORUM_ID = re.compile(r"[?&]id=([A-Za-z0-9_-]{1,64})")
_VENUE_YEAR = re.compile(r"/((?:19|20)\d\d)(?:/|$)")  # "ICLR.cc/2024/Conference"


@dataclass(frozen=True)
class Target:
    """A paper to enrich: its ids as plain values."""

    paper_id: int
    arxiv_id: str | None
    doi: str | None
    forum_id: str | None = None  # its OpenReview forum, when the paper came as one or OpenReview named it
    title: str | None = None  # the club's title, when it is one (not an id placeholder)
    fresh: bool = True  # never enriched (or asked again): every field is wanted, not only the refreshed
    arxiv_unasked: bool = False  # an arXiv paper arXiv never answered for (down when it was added)


def forum_of(key: str, openreview_url: str | None) -> str | None:
    """The OpenReview forum id of a paper keyed ``openreview:<id>``, or named by a stored forum link."""
    if key.startswith(OPENREVIEW_KEY):
        return key.removeprefix(OPENREVIEW_KEY)
    if openreview_url and (found := _FORUM_ID.search(openreview_url)):
        return found.group(1)
    return None


async def due_papers(session: AsyncSession, now: datetime, limit: int = BATCH) -> list[Target]:
    """Papers with an arXiv id, a DOI or an OpenReview forum never enriched or due a refresh, oldest first."""
    rows = await session.scalars(
        select(Paper)
        .where(
            or_(Paper.arxiv_id.is_not(None), Paper.doi.is_not(None), Paper.kind == "openreview"),
            or_(Paper.enriched_at.is_(None), Paper.enriched_at < now - REFRESH_AFTER),
            or_(Paper.enrich_retry_at.is_(None), Paper.enrich_retry_at <= now),
        )
        .order_by(Paper.enriched_at.is_not(None), Paper.enriched_at, Paper.id)
        .limit(limit)
    )
    return [
        Target(
            p.id,
            p.arxiv_id,
            p.doi,
            forum_of(p.key, p.openreview_url),
            None if p.title in (id_label(p.arxiv_id or ""), p.openreview_url, p.key) else p.title,
            p.enriched_at is None,
            bool(p.arxiv_id) and p.metadata_fetched_at is None,
        )
        for p in rows
    ]


Later = datetime | None  # when a failed source may be asked again; None: it is down (:func:`retry_after`)


@dataclass
class Gathered:
    """One run's asking (clients, time, wait): every source's answers per paper id, and per paper a source
    failed for, when to ask again."""

    clients: SourceClients
    now: datetime
    wait: float
    records: dict[int, list[SourceRecord]]
    failed: dict[int, list[Later]] = field(default_factory=dict)

    def add(self, target: Target, source: str, fields: dict[str, Any]) -> None:
        """Keep one source's answer for the paper."""
        self.records[target.paper_id].append(SourceRecord(source, self.now, fields))

    def fail(self, target: Target, exc: SourceUnavailable) -> None:
        """Note that a source failed for the paper this run (logged)."""
        log.info("paper %s: %s", target.paper_id, exc)
        self.failed.setdefault(target.paper_id, []).append(exc.retry_at)

    async def arxiv(self, target: Target) -> None:
        """arXiv's title, authors, abstract and date, for a paper it never answered for."""
        if target.arxiv_id and target.arxiv_unasked:
            metadata = await self.clients.arxiv.fetch(target.arxiv_id, max_wait=self.wait)
            self.add(target, ARXIV, arxiv_fields(metadata))  # none: arXiv knows no such paper

    async def openreview(self, target: Target) -> None:
        """The venue and decision, on a paper's first enrichment only (they are never refreshed)."""
        if not target.fresh or (client := self.clients.openreview) is None:
            return
        records = self.records[target.paper_id]
        v1_first = held_by_v1(_said(records, "venue", str), _said(records, "year", int))
        forum = target.forum_id or await self._forum_named(target, records, v1_first)
        decision = await client.decision(forum, v1_first=v1_first, max_wait=self.wait) if forum else None
        if decision is not None:
            year = _VENUE_YEAR.search(decision.venue_id or "")
            fields = {
                "title": decision.title,
                "venue": decision.venue,
                "decision": decision.decision,
                "year": int(year.group(1)) if year else None,
                "openreview_url": decision.forum_url,
            }
            self.add(target, OPENREVIEW, fields)  # the venue and decision, never the reviews

    async def hub(self, target: Target) -> None:
        """Hugging Face's links, counts and most liked repos, for an arXiv paper."""
        if target.arxiv_id and self.clients.huggingface is not None:
            hub = await self.clients.huggingface.paper(target.arxiv_id, max_wait=self.wait)
            if hub is not None:
                fields = {
                    "title": hub.title,
                    "authors": hub.authors,
                    "code_url": hub.github_repo,
                    "project_url": hub.project_page,
                    "hf_url": hub.url,
                    "hf_upvotes": hub.upvotes,
                    "hf_models": hub.models.count,
                    "hf_datasets": hub.datasets.count,
                    "hf_spaces": hub.spaces.count,
                    "hf_top": [
                        repo.path for links in (hub.models, hub.datasets, hub.spaces) for repo in links.top
                    ],
                }
                self.add(target, HF, fields)

    async def doi_agency(self, target: Target) -> None:
        """A DOI-only paper: Crossref, or DataCite for arXiv's own DOIs."""
        if not target.doi or target.arxiv_id:
            return
        agency = self.clients.datacite if target.doi.startswith("10.48550/") else self.clients.crossref
        record = await agency.record(target.doi, max_wait=self.wait) if agency is not None else None
        if record is not None:
            fields = {
                "title": record.title,
                "authors": record.authors,
                "year": record.year,
                "venue": record.venue,
            }
            self.add(target, record.source, fields)

    async def _forum_named(self, target: Target, records: list[SourceRecord], v1_first: bool) -> str | None:
        """The forum of the one OpenReview submission titled as the paper; none for a venue OpenReview lacks."""
        titles = [t for r in records if isinstance(t := r.fields.get("title"), str) and t.strip()]
        titles = titles or ([target.title] if target.title and target.title.strip() else [])
        wanted = {normalize_title(t) for t in titles} - {""}
        venues = [v for r in records if isinstance(v := r.fields.get("venue"), str) and v.strip()]
        client = self.clients.openreview
        if not wanted or client is None or (venues and not any(map(worth_searching, venues))):
            return None
        hits = await client.search_forums(titles[0], v1_first=v1_first, max_wait=self.wait)
        forums = {hit.forum_id for hit in hits if hit.title and normalize_title(hit.title) in wanted}
        return forums.pop() if len(forums) == 1 else None  # none or several with that title: nothing guessed


async def gather(
    clients: SourceClients, targets: Sequence[Target], now: datetime, *, wait: float = SOURCE_WAIT
) -> Gathered:
    """Ask every source about ``targets``, each source on its own; one that fails adds nothing (logged)."""
    found = Gathered(clients, now, wait, {target.paper_id: [] for target in targets})
    known = [t for t in targets if t.arxiv_id or t.doi]  # Semantic Scholar has no OpenReview ids
    if clients.semantic_scholar is not None and known:
        refs = [f"ARXIV:{t.arxiv_id}" if t.arxiv_id else f"DOI:{t.doi}" for t in known]  # its id forms
        try:
            answers = await clients.semantic_scholar.papers(refs, max_wait=wait)
        except SourceUnavailable as exc:
            for target in known:
                found.fail(target, exc)
        else:
            for target, paper in zip(known, answers, strict=True):
                if paper is not None:
                    fields = {
                        "title": paper.title,
                        "authors": paper.authors,
                        "year": paper.year,
                        "venue": paper.venue,
                        "tldr": paper.tldr,
                        "citation_count": paper.citation_count,
                        "influential_citation_count": paper.influential_citation_count,
                        "pdf_url": paper.open_access_pdf,
                        "doi": paper.doi,
                        "s2_id": paper.paper_id,
                        "s2_url": paper_page_url(paper),
                    }
                    found.add(target, S2, fields)
    for target in targets:
        for ask in (found.arxiv, found.openreview, found.hub, found.doi_agency):
            try:
                await ask(target)
            except SourceUnavailable as exc:
                found.fail(target, exc)
    return found


def _said(records: list[SourceRecord], field: str, kind: type[T]) -> T | None:
    """The first value of ``field`` a source gave this run, of type ``kind``."""
    return next((v for r in records if isinstance(v := r.fields.get(field), kind)), None)


def store_records(
    paper: Paper, records: Sequence[SourceRecord], now: datetime, *, failed: Sequence[Later] = ()
) -> bool:
    """Merge one paper's answers into its row (True if a field changed); stamp it enriched or due a retry."""
    if paper.enriched_at is not None:  # the weekly refresh: the counts and links only (merge.REFRESHED)
        records = [
            r
            if r.source == ARXIV
            else SourceRecord(r.source, r.fetched_at, {k: v for k, v in r.fields.items() if k in REFRESHED})
            for r in records
        ]
    changed = bool(merge_into(paper, records))
    if not failed:
        paper.enriched_at, paper.enrich_failures, paper.enrich_retry_at = now, 0, None
        return changed
    waits = [when for when in failed if when is not None]
    if None in failed:  # a source is down: the paper's own back-off
        paper.enrich_failures = (paper.enrich_failures or 0) + 1
        waits.append(now + retry_after(paper.enrich_failures))
    paper.enrich_retry_at = max(waits)
    return changed


def ask_again(paper: Paper) -> None:
    """Have the next run ask every source, arXiv too, for every field of ``paper`` (/organize paper refresh)."""
    paper.enriched_at, paper.enrich_failures, paper.enrich_retry_at = None, 0, None
    paper.metadata_fetched_at = None


def retry_after(failures: int) -> timedelta:
    """How long a paper a source failed for ``failures`` runs in a row waits: doubling, capped."""
    return min(RETRY_FIRST * 2 ** min(failures - 1, 16), RETRY_MAX)


async def enrich_due(
    clients: SourceClients,
    session_factory: async_sessionmaker[AsyncSession],
    now: datetime,
    *,
    limit: int = BATCH,
) -> dict[int, tuple[int, ...]]:
    """Enrich the papers due; the ids of those whose record changed, per guild, in order."""
    async with session_factory() as session:
        targets = await due_papers(session, now, limit)
    if not targets:
        return {}
    found = await gather(clients, targets, now)
    changed: dict[int, tuple[int, ...]] = {}
    async with session_factory() as session, session.begin():  # one short write: no source is asked in it
        rows = (await session.execute(select(Paper).where(Paper.id.in_(found.records)))).scalars()
        for paper in sorted(rows, key=lambda row: row.id):
            if store_records(paper, found.records[paper.id], now, failed=found.failed.get(paper.id, ())):
                changed[paper.guild_id] = (*changed.get(paper.guild_id, ()), paper.id)
    return changed
