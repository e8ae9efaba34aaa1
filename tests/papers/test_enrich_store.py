"""bot/services/papers/enrich.py against the sources' stand-ins and the store (SQLite and PostgreSQL):
one batch to Semantic Scholar, provenance per field, the club's title kept, the weekly refresh."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.papers import parse_paper_ref
from bot.services.papers.enrich import REFRESH_AFTER, RETRY_FIRST, RETRY_MAX, enrich_due, retry_after
from bot.services.papers.metadata import fill_missing_metadata
from bot.services.papers.store import get_or_create_paper
from bot.sources.arxiv import ArxivClient
from bot.sources.clients import SourceClients
from bot.sources.huggingface import HuggingFaceClient
from bot.sources.openreview import OpenReviewClient
from bot.sources.semantic_scholar import SemanticScholarClient
from db.models import Paper
from standin.arxiv import ArxivStandin
from standin.huggingface import HuggingFaceStandin
from standin.openreview import OpenReviewStandin
from standin.semantic_scholar import SemanticScholarStandin
from tests.papers.helpers import VirtualTimer

GUILD = 4242
NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


async def test_enrich_merges_each_source_once_with_provenance_and_refreshes_weekly(
    session_factory: async_sessionmaker[AsyncSession],
    semantic_scholar: SemanticScholarStandin,
    huggingface: HuggingFaceStandin,
    timer: VirtualTimer,
    arxiv_client: ArxivClient,
) -> None:
    ids = [f"2406.{10000 + n}" for n in range(3)]
    for n, arxiv_id in enumerate(ids):
        semantic_scholar.add(f"s2-{n}", f"Paper {n}", arxiv_id=arxiv_id, tldr=f"TLDR {n}", citation_count=n)
    huggingface.add(ids[0], "Paper 0", github_repo="https://github.com/a/b")
    async with session_factory() as session, session.begin():
        for n, arxiv_id in enumerate(ids):
            title = "Our own name" if n == 0 else None
            await get_or_create_paper(session, GUILD, parse_paper_ref(arxiv_id), title=title)
    clients = SourceClients(
        arxiv=arxiv_client,
        semantic_scholar=SemanticScholarClient(semantic_scholar.base, timer=timer),
        huggingface=HuggingFaceClient(huggingface.url, timer=timer),
    )
    try:
        (changed,) = (await enrich_due(clients, session_factory, NOW)).values()
        assert len(changed) == 3
        assert semantic_scholar.count("/graph/v1/paper/batch") == 1  # one batch for every paper
        assert await enrich_due(clients, session_factory, NOW + timedelta(days=1)) == {}  # nothing due
        async with session_factory() as session:
            first = await session.get(Paper, changed[0])
            assert first is not None
            assert first.title == "Our own name"  # the club's title is never replaced
            assert first.tldr == "TLDR 0"
            assert first.code_url == "https://github.com/a/b"
            assert first.field_sources is not None
            assert first.field_sources["tldr"] == ["semantic_scholar", NOW.isoformat()]
            assert first.field_sources["code_url"][0] == "huggingface"
            second = await session.get(Paper, changed[1])
            assert second is not None
            assert second.title == "Paper 1"  # the id placeholder is filled
        semantic_scholar.papers["s2-1"].record["citationCount"] = 50
        later = NOW + REFRESH_AFTER + timedelta(minutes=1)
        refreshed = await enrich_due(clients, session_factory, later)
        assert refreshed == {GUILD: (changed[1],)}
        async with session_factory() as session:
            second = await session.get(Paper, changed[1])
            assert second is not None
            assert second.citation_count == 50
            assert second.field_sources is not None
            assert second.field_sources["citation_count"] == ["semantic_scholar", later.isoformat()]
    finally:
        await clients.close()


async def test_a_paper_given_by_its_openreview_forum_gets_its_venue_and_decision(
    session_factory: async_sessionmaker[AsyncSession],
    semantic_scholar: SemanticScholarStandin,
    openreview: OpenReviewStandin,
    timer: VirtualTimer,
    arxiv_client: ArxivClient,
) -> None:
    """OpenReview is asked for a paper that came as a forum link: its title replaces the link, the venue
    and decision are stored with their source, no review's text is; Semantic Scholar is not asked for it."""
    openreview.add_submission(
        "tmaxForum1",
        "TMax: Scaling Terminal Agents",
        venue="ICLR 2026 Oral",
        venue_id="ICLR.cc/2026/Conference",
        decision="Accept (Oral)",
        reviews=["REVIEW-TEXT @everyone this paper is great"],
    )
    async with session_factory() as session, session.begin():
        paper = await get_or_create_paper(
            session, GUILD, parse_paper_ref("https://openreview.net/forum?id=tmaxForum1")
        )
        paper_id = paper.id
    clients = SourceClients(
        arxiv=arxiv_client,
        semantic_scholar=SemanticScholarClient(semantic_scholar.base, timer=timer),
        openreview=OpenReviewClient(openreview.url, timer=timer),
    )
    try:
        changed = await enrich_due(clients, session_factory, NOW)
        assert changed == {GUILD: (paper_id,)}
        assert semantic_scholar.count("/graph/v1/paper/batch") == 0
        async with session_factory() as session:
            row = await session.get(Paper, paper_id)
            assert row is not None
            assert row.title == "TMax: Scaling Terminal Agents"
            assert (row.venue, row.decision, row.year) == ("ICLR 2026 Oral", "Accept (Oral)", 2026)
            assert row.openreview_url == "https://openreview.net/forum?id=tmaxForum1"
            assert row.field_sources is not None
            assert row.field_sources["decision"][0] == "openreview"
            assert row.enriched_at is not None
            stored = " ".join(str(getattr(row, c.key)) for c in Paper.__table__.columns)
            assert "REVIEW-TEXT" not in stored
    finally:
        await clients.close()


async def test_papers_a_source_failed_for_wait_their_turn_while_the_others_are_asked(
    session_factory: async_sessionmaker[AsyncSession],
    semantic_scholar: SemanticScholarStandin,
    huggingface: HuggingFaceStandin,
    timer: VirtualTimer,
    arxiv_client: ArxivClient,
) -> None:
    """Semantic Scholar down for a long while: a paper it failed for waits (doubling) instead of heading
    every run, so the papers behind it get Hugging Face's fields meanwhile; once it is back, all complete."""
    ids = [f"2406.{20000 + n}" for n in range(3)]
    for n, arxiv_id in enumerate(ids):
        semantic_scholar.add(f"s2-{n}", f"Paper {n}", arxiv_id=arxiv_id, tldr=f"TLDR {n}")
        huggingface.add(arxiv_id, f"Paper {n}", github_repo=f"https://github.com/a/p{n}")
    async with session_factory() as session, session.begin():
        for arxiv_id in ids:
            await get_or_create_paper(session, GUILD, parse_paper_ref(arxiv_id))
    clients = SourceClients(
        arxiv=arxiv_client,
        semantic_scholar=SemanticScholarClient(semantic_scholar.base, timer=timer),
        huggingface=HuggingFaceClient(huggingface.url, timer=timer),
    )

    async def rows() -> list[Paper]:
        async with session_factory() as session:
            return list((await session.scalars(select(Paper).order_by(Paper.id))).all())

    try:
        semantic_scholar.mode = "down"
        first = await enrich_due(clients, session_factory, NOW, limit=2)
        assert len(first[GUILD]) == 2  # Hugging Face's fields are stored all the same
        second = await enrich_due(clients, session_factory, NOW + timedelta(minutes=2), limit=2)
        assert second == {GUILD: ((await rows())[2].id,)}  # the third paper's turn
        assert all(r.code_url and r.enrich_failures == 1 and r.enriched_at is None for r in await rows())
        asked = semantic_scholar.count("/graph/v1/paper/batch")
        assert await enrich_due(clients, session_factory, NOW + timedelta(minutes=4), limit=2) == {}
        assert semantic_scholar.count("/graph/v1/paper/batch") == asked  # every paper waits: nothing asked
        assert retry_after(1) < retry_after(2) < retry_after(3)
        assert retry_after(40) == RETRY_MAX

        semantic_scholar.mode = "ok"
        back = NOW + RETRY_FIRST * 2
        await enrich_due(clients, session_factory, back, limit=5)
        done = await rows()
        assert [r.tldr for r in done] == ["TLDR 0", "TLDR 1", "TLDR 2"]
        assert all(
            r.enriched_at == back and r.enrich_failures == 0 and r.enrich_retry_at is None for r in done
        )
    finally:
        await clients.close()


async def test_an_arxiv_paper_finds_its_openreview_forum_by_its_exact_title_once(
    session_factory: async_sessionmaker[AsyncSession],
    semantic_scholar: SemanticScholarStandin,
    openreview: OpenReviewStandin,
    timer: VirtualTimer,
    arxiv_client: ArxivClient,
) -> None:
    """A paper known by its arXiv id: OpenReview is searched for its title (Semantic Scholar's spelling) on
    its first enrichment; the submission with the same title gives the venue, decision and forum link. A
    title two submissions share, or none has, takes nothing; the weekly refresh never searches again."""
    semantic_scholar.add("s2-t", "TMax: Scaling Terminal Agents", arxiv_id="2511.00001")
    semantic_scholar.add("s2-d", "Twin Title", arxiv_id="2511.00002")
    semantic_scholar.add("s2-n", "Nowhere On OpenReview", arxiv_id="2511.00003")
    openreview.add_submission(
        "tmaxForum1",
        "TMax: Scaling Terminal Agents",
        venue="ICLR 2026 Oral",
        venue_id="ICLR.cc/2026/Conference",
        decision="Accept (Oral)",
    )
    openreview.add_submission("tmaxLite22", "TMax: Scaling Terminal Agents Lite", venue="x", venue_id="x")
    for forum in ("twinFirst1", "twinSecond"):
        openreview.add_submission(forum, "Twin title", venue="ICLR 2025", venue_id="ICLR.cc/2025/Conference")
    openreview.add_submission("clubOnly44", "Only the club's title", venue="CoRL 2025", venue_id="x/2025/y")
    async with session_factory() as session, session.begin():
        ids = [
            (await get_or_create_paper(session, GUILD, parse_paper_ref(f"2511.0000{n}"))).id
            for n in (1, 2, 3)
        ]
        club_only = await get_or_create_paper(  # no source knows it: its stored title is searched
            session, GUILD, parse_paper_ref("2511.00004"), title="ONLY the club's title"
        )
        club_only_id = club_only.id
    clients = SourceClients(
        arxiv=arxiv_client,
        semantic_scholar=SemanticScholarClient(semantic_scholar.base, timer=timer),
        openreview=OpenReviewClient(openreview.url, timer=timer),
    )
    try:
        await enrich_due(clients, session_factory, NOW)
        assert openreview.count("/notes/search") == 4
        async with session_factory() as session:
            tmax, twin, nowhere = [await session.get(Paper, paper_id) for paper_id in ids]
            assert tmax is not None
            assert twin is not None
            assert nowhere is not None
            assert (tmax.venue, tmax.decision) == ("ICLR 2026 Oral", "Accept (Oral)")
            assert tmax.openreview_url == "https://openreview.net/forum?id=tmaxForum1"
            assert tmax.field_sources is not None
            assert tmax.field_sources["decision"][0] == "openreview"
            assert (twin.openreview_url, twin.decision) == (None, None)
            assert (nowhere.openreview_url, nowhere.decision) == (None, None)
            row = await session.get(Paper, club_only_id)
            assert row is not None
            assert (row.venue, row.openreview_url) == (
                "CoRL 2025",
                "https://openreview.net/forum?id=clubOnly44",
            )
        seen = len(openreview.requests)
        await enrich_due(clients, session_factory, NOW + REFRESH_AFTER + timedelta(hours=1))
        assert len(openreview.requests) == seen  # the refresh asks only for counts and links
    finally:
        await clients.close()


async def test_thirty_new_papers_under_the_guest_limit_with_a_lockout(
    session_factory: async_sessionmaker[AsyncSession],
    semantic_scholar: SemanticScholarStandin,
    huggingface: HuggingFaceStandin,
    openreview: OpenReviewStandin,
    timer: VirtualTimer,
    arxiv_client: ArxivClient,
) -> None:
    """30 new arXiv papers, each on OpenReview (five at ICLR 2023, on API v1 only), against the guest limit
    of 20 a minute, and a 30-minute lockout after 25 requests: the run spreads OpenReview's requests out
    instead of failing papers, a paper OpenReview could not answer still gets Hugging Face's fields and
    waits for the lockout's end, and the next run after it completes every paper; no request goes over
    the limit and the lockout is met once."""
    ids = [f"2410.{30000 + n}" for n in range(30)]
    for n, arxiv_id in enumerate(ids):
        old = n < 5
        title = f"Environment Paper Number {n}"
        venue = "ICLR 2023" if old else "ICLR 2025"
        year = 2023 if old else 2025
        semantic_scholar.add(f"s2-{n}", title, arxiv_id=arxiv_id, venue=venue, year=year, tldr=f"TLDR {n}")
        huggingface.add(arxiv_id, title, github_repo=f"https://github.com/club/p{n}")
        openreview.add_submission(
            f"forum{n:05d}",
            title,
            venue=f"{venue} poster",
            venue_id=f"ICLR.cc/{year}/Conference",
            number=n + 1,
            decision="Accept (poster)" if not old else "Accept: poster",
        )
    async with session_factory() as session, session.begin():
        for arxiv_id in ids:
            await get_or_create_paper(session, GUILD, parse_paper_ref(arxiv_id))
    openreview.lock_out_after = 25
    clients = SourceClients(
        arxiv=arxiv_client,
        semantic_scholar=SemanticScholarClient(semantic_scholar.base, timer=timer),
        huggingface=HuggingFaceClient(huggingface.url, timer=timer),
        openreview=OpenReviewClient(openreview.url, v1_url=openreview.v1_url, timer=timer),
    )

    async def rows() -> list[Paper]:
        async with session_factory() as session:
            return list((await session.scalars(select(Paper).order_by(Paper.id))).all())

    try:
        await enrich_due(clients, session_factory, NOW)
        first = await rows()
        assert all(r.code_url and r.tldr for r in first)  # OpenReview's trouble skipped nothing else
        done = [r for r in first if r.enriched_at is not None]
        waiting = [r for r in first if r.enriched_at is None]
        assert 0 < len(done) < 30
        assert all(r.decision for r in done)
        lockout_end = timer.wall() + timedelta(seconds=1800)
        assert all(r.enrich_retry_at and r.enrich_retry_at <= lockout_end for r in waiting)
        assert all(r.enrich_failures == 0 for r in waiting)  # told when: not a source down

        timer.advance(1801)
        later = NOW + timedelta(minutes=31)
        await enrich_due(clients, session_factory, later)
        final = await rows()
        assert all(r.enriched_at is not None and r.decision and r.venue for r in final)
        assert {r.decision for r in final[:5]} == {"Accept: poster"}  # from API v1
    finally:
        await clients.close()
    assert openreview.refused_too_fast == []
    assert [seen.status for seen in openreview.requests].count(429) == 1


@pytest.mark.parametrize("bad", ["totals", "mixed_shapes"])
async def test_an_answer_of_the_wrong_shape_stores_nothing_and_is_asked_again(
    session_factory: async_sessionmaker[AsyncSession],
    semantic_scholar: SemanticScholarStandin,
    huggingface: HuggingFaceStandin,
    openreview: OpenReviewStandin,
    timer: VirtualTimer,
    arxiv_client: ArxivClient,
    caplog: pytest.LogCaptureFixture,
    bad: str,
) -> None:
    """Hugging Face's totals as a negative number and a string, or OpenReview's v2 answer carrying v1-shaped
    notes: nothing from that answer is stored, a warning says why, the other sources' fields are, and the
    paper is asked again later, when the source's answer is whole."""
    semantic_scholar.add("s2-b", "Broken Answers", arxiv_id="2412.00001", venue="ICLR 2025", tldr="A TLDR.")
    totals: dict[str, object] = {"models": -3, "spaces": "5"} if bad == "totals" else {}
    huggingface.add("2412.00001", "Broken Answers", github_repo="https://github.com/a/b", totals=totals)
    openreview.add_submission(
        "brokenFrm1",
        "Broken Answers",
        venue="ICLR 2025 poster",
        venue_id="ICLR.cc/2025/Conference",
        decision="Accept",
    )
    openreview.mixed_shapes = bad == "mixed_shapes"
    async with session_factory() as session, session.begin():
        paper_id = (await get_or_create_paper(session, GUILD, parse_paper_ref("2412.00001"))).id
    clients = SourceClients(
        arxiv=arxiv_client,
        semantic_scholar=SemanticScholarClient(semantic_scholar.base, timer=timer),
        huggingface=HuggingFaceClient(huggingface.url, timer=timer),
        openreview=OpenReviewClient(openreview.url, timer=timer),
    )
    try:
        with caplog.at_level("WARNING", logger="paperclub.sources"):
            await enrich_due(clients, session_factory, NOW)
        async with session_factory() as session:
            row = await session.get(Paper, paper_id)
            assert row is not None
            assert row.tldr == "A TLDR."
            if bad == "totals":
                assert (row.code_url, row.hf_models, row.hf_spaces) == (None, None, None)
                assert "numTotalModels" in caplog.text
            else:
                assert (row.decision, row.openreview_url) == (None, None)
                assert "not in its own shape" in caplog.text
            assert row.enriched_at is None
            assert row.enrich_retry_at == NOW + RETRY_FIRST
        huggingface.papers["2412.00001"].page.update(numTotalModels=0, numTotalSpaces=0)
        openreview.mixed_shapes = False
        await enrich_due(clients, session_factory, NOW + RETRY_FIRST)
        async with session_factory() as session:
            row = await session.get(Paper, paper_id)
            assert row is not None
            assert (row.code_url, row.decision) == ("https://github.com/a/b", "Accept")
            assert row.enriched_at == NOW + RETRY_FIRST
    finally:
        await clients.close()


async def test_an_arxiv_error_entry_stores_nothing_and_is_asked_again(
    session_factory: async_sessionmaker[AsyncSession],
    paced_arxiv: ArxivStandin,
    timer: VirtualTimer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    paced_arxiv.add("2412.00002", "From arXiv", ["A. Author"], "An abstract.")
    async with session_factory() as session, session.begin():
        paper_id = (await get_or_create_paper(session, GUILD, parse_paper_ref("2412.00002"))).id
    arxiv = ArxivClient(paced_arxiv.url, timer=timer)
    try:
        paced_arxiv.mode = "error_entry"
        with caplog.at_level("WARNING", logger="paperclub.sources"):
            assert await fill_missing_metadata(arxiv, session_factory, [paper_id], NOW, budget=None) == []
        assert "error entry" in caplog.text
        async with session_factory() as session:
            row = await session.get(Paper, paper_id)
            assert row is not None
            assert (row.title, row.metadata_fetched_at) == ("arXiv:2412.00002", None)  # still to fetch
        paced_arxiv.mode = "ok"
        assert len(await fill_missing_metadata(arxiv, session_factory, [paper_id], NOW, budget=None)) == 1
        async with session_factory() as session:
            row = await session.get(Paper, paper_id)
            assert row is not None
            assert (row.title, row.authors) == ("From arXiv", "A. Author")
    finally:
        await arxiv.close()


async def test_a_paper_arxiv_was_down_for_gets_arxivs_fields_from_the_enrichment_once(
    session_factory: async_sessionmaker[AsyncSession],
    semantic_scholar: SemanticScholarStandin,
    paced_arxiv: ArxivStandin,
    timer: VirtualTimer,
    arxiv_client: ArxivClient,
) -> None:
    """A paper stored while arXiv was down: the enrichment asks arXiv too (the one pipeline), waits while it
    is still down, then stores its title, authors, abstract and date with their source; never asks again."""
    paced_arxiv.add(
        "2412.00003", "From arXiv", ["A. Author", "B. Author"], "An abstract.", "2024-06-17T10:00:00Z"
    )
    semantic_scholar.add("s2-x", "From Semantic Scholar", arxiv_id="2412.00003", tldr="A TLDR.")
    async with session_factory() as session, session.begin():
        paper_id = (await get_or_create_paper(session, GUILD, parse_paper_ref("2412.00003"))).id
    clients = SourceClients(
        arxiv=arxiv_client, semantic_scholar=SemanticScholarClient(semantic_scholar.base, timer=timer)
    )

    async def row() -> Paper:
        async with session_factory() as session:
            found = await session.get(Paper, paper_id)
            assert found is not None
            return found

    try:
        paced_arxiv.mode = "down"
        await enrich_due(clients, session_factory, NOW)
        first = await row()
        assert (first.title, first.tldr, first.metadata_fetched_at) == (
            "From Semantic Scholar",
            "A TLDR.",
            None,
        )
        assert first.enriched_at is None
        assert first.enrich_retry_at == NOW + RETRY_FIRST
        paced_arxiv.mode = "ok"
        later = NOW + RETRY_FIRST
        assert await enrich_due(clients, session_factory, later) == {GUILD: (paper_id,)}
        second = await row()
        assert (second.title, second.authors, second.abstract) == (
            "From arXiv",
            "A. Author, B. Author",
            "An abstract.",
        )
        assert (second.published, second.metadata_fetched_at) == ("2024-06-17", later)
        assert second.field_sources is not None
        assert second.field_sources["title"] == ["arxiv", later.isoformat()]
        asked = len(paced_arxiv.requests)
        await enrich_due(clients, session_factory, later + REFRESH_AFTER + timedelta(minutes=1))  # weekly
        assert len(paced_arxiv.requests) == asked  # arXiv answered once: it is not asked again
    finally:
        await clients.close()
