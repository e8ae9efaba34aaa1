"""Resolving names against the sources' stand-ins and the store (SQLite and PostgreSQL): candidates from
every source, a source down or rate-limited contributing nothing, and the pick stored as an alias in one
transaction (the title-only paper rekeyed, or folded into the paper the guild already has)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.errors import BadInput
from bot.papers import parse_paper_ref
from bot.services.papers.enrich import due_papers
from bot.services.papers.resolve import find_candidates
from bot.services.papers.store import choose, find_alias, get_or_create_paper, list_aliases, unresolved_papers
from bot.sources.arxiv import ArxivClient
from bot.sources.clients import SourceClients
from bot.sources.huggingface import HuggingFaceClient
from bot.sources.semantic_scholar import SemanticScholarClient
from db.models import ClubSession, Paper, SessionPaper
from db.models.sessions import PaperAlias
from standin.arxiv import ArxivStandin
from standin.huggingface import HuggingFaceStandin
from standin.semantic_scholar import SemanticScholarStandin
from tests.papers.helpers import VirtualTimer

GUILD = 4343
NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
TMAX = "TMax: Scaling Terminal Agents with Reinforcement Learning"
TMAX_ID = "2511.00001"


@pytest.fixture
async def arxiv_standin() -> ArxivStandin:
    standin = ArxivStandin()
    await standin.start()
    yield standin  # type: ignore[misc]
    await standin.stop()


def seed(s2: SemanticScholarStandin, hf: HuggingFaceStandin, arxiv: ArxivStandin) -> None:
    s2.add("s2tmax", TMAX, arxiv_id=TMAX_ID, year=2025, venue="ICLR", authors=["Hamish Ivison"])
    s2.add("s2other", "TMax Lite: Small Terminal Agents", doi="10.1/other", year=2024)
    hf.add(TMAX_ID, TMAX, authors=["Hamish Ivison"])
    arxiv.add(TMAX_ID, TMAX, ["Hamish Ivison"])


def clients(s2: SemanticScholarStandin, hf: HuggingFaceStandin, timer: VirtualTimer) -> SourceClients:
    return SourceClients(
        semantic_scholar=SemanticScholarClient(s2.base, timer=timer, max_wait=2.0),
        huggingface=HuggingFaceClient(hf.url, timer=timer, max_wait=2.0),
    )


async def test_every_source_is_asked_and_the_answers_merge(
    semantic_scholar, huggingface, arxiv_standin, timer
) -> None:
    seed(semantic_scholar, huggingface, arxiv_standin)
    sources = clients(semantic_scholar, huggingface, timer)
    sources.arxiv, sources.search_arxiv = ArxivClient(arxiv_standin.url, timer=timer), True
    try:
        found = await find_candidates(sources, "TMax")
    finally:
        await sources.close()
    assert found.unavailable == ()
    best = found.candidates[0]
    assert best.arxiv_id == TMAX_ID
    assert best.s2_id == "s2tmax"
    assert best.venue == "ICLR"
    assert set(best.sources) == {"semantic_scholar", "huggingface", "arxiv"}
    assert semantic_scholar.count("/graph/v1/paper/search/match") == 1
    assert semantic_scholar.count("/graph/v1/paper/search") == 2  # the match and the search
    assert found.unambiguous is None  # "TMax Lite" scores too close
    assert [c.doi for c in found.candidates] == [None, "10.1/other"]
    assert (await find_candidates(SourceClients(), "TMax")).candidates == ()


@pytest.mark.parametrize("trouble", ["down", "rate_limited", "garbage"])
async def test_a_source_in_trouble_contributes_nothing(semantic_scholar, huggingface, timer, trouble) -> None:
    seed(semantic_scholar, huggingface, ArxivStandin())
    if trouble == "down":
        semantic_scholar.fail_next(100, 503)
    elif trouble == "rate_limited":
        semantic_scholar.rate_limit_next(100, retry_after=600)
    else:
        semantic_scholar.mode = "garbage"
    sources = clients(semantic_scholar, huggingface, timer)
    try:
        found = await find_candidates(sources, "TMax")
    finally:
        await sources.close()
    assert found.unavailable == ("semantic_scholar",)
    assert [c.sources for c in found.candidates] == [("huggingface",)]
    assert found.candidates[0].arxiv_id == TMAX_ID


async def test_a_pick_rekeys_the_title_only_paper_and_is_remembered(
    session_factory: async_sessionmaker[AsyncSession], semantic_scholar, huggingface, timer
) -> None:
    seed(semantic_scholar, huggingface, ArxivStandin())
    async with session_factory() as session, session.begin():
        paper = await get_or_create_paper(session, GUILD, parse_paper_ref("TMax"))
        other = await get_or_create_paper(session, GUILD, parse_paper_ref("Terminal-World"))
        paper_id, other_id = paper.id, other.id
    async with session_factory() as session:
        assert await unresolved_papers(session, GUILD) == ["TMax", "Terminal-World"]
    sources = clients(semantic_scholar, huggingface, timer)
    try:
        found = await find_candidates(sources, "tmax")
    finally:
        await sources.close()
    async with session_factory() as session, session.begin():
        alias = await choose(session, GUILD, " TMax ", found.candidates[0], chosen_by=7, now=NOW)
        assert alias.paper_id == paper_id
        rejected = await choose(session, GUILD, "Terminal-World", None, chosen_by=7, now=NOW)
        assert rejected.rejected
    async with session_factory() as session:
        row = await session.get(Paper, paper_id)
        assert row is not None
        assert (row.key, row.kind, row.arxiv_id, row.title) == (f"arxiv:{TMAX_ID}", "arxiv", TMAX_ID, TMAX)
        assert row.year == 2025
        assert row.s2_id == "s2tmax"
        assert row.authors == "Hamish Ivison"
        assert row.field_sources
        assert row.field_sources["title"][0] == "semantic_scholar"
        assert [t.paper_id for t in await due_papers(session, NOW)] == [paper_id]  # enrichment's turn
        remembered = await find_alias(session, GUILD, "tmax")
        assert remembered is not None
        assert remembered.paper_id == paper_id
        assert remembered.chosen_by == 7
        assert remembered.chosen_at == NOW
        assert remembered.paper_title == TMAX
        assert await unresolved_papers(session, GUILD) == []  # "none of these" is not asked again
        assert [a.name for a, _ in await list_aliases(session, GUILD)] == ["Terminal-World", "TMax"]
        assert await session.get(Paper, other_id) is not None
    async with session_factory() as session, session.begin():  # the next "TMAX" is the same paper
        again = await get_or_create_paper(session, GUILD, parse_paper_ref("TMAX"))
        assert again.id == paper_id
        link = await get_or_create_paper(session, GUILD, parse_paper_ref(f"https://arxiv.org/abs/{TMAX_ID}"))
        assert link.id == paper_id


async def test_a_pick_the_guild_already_has_folds_the_title_row_into_it(
    session_factory: async_sessionmaker[AsyncSession], semantic_scholar, huggingface, timer
) -> None:
    seed(semantic_scholar, huggingface, ArxivStandin())
    async with session_factory() as session, session.begin():
        known = await get_or_create_paper(session, GUILD, parse_paper_ref(TMAX_ID))
        named = await get_or_create_paper(session, GUILD, parse_paper_ref("TMax"))
        both = ClubSession(guild_id=GUILD, title="Both", starts_at=NOW, timezone="UTC")
        one = ClubSession(guild_id=GUILD, title="One", starts_at=NOW, timezone="UTC")
        session.add_all([both, one])
        await session.flush()
        session.add_all(
            [
                SessionPaper(session_id=both.id, paper_id=known.id, position=0),
                SessionPaper(session_id=both.id, paper_id=named.id, position=1),
                SessionPaper(session_id=one.id, paper_id=named.id, position=0),
            ]
        )
        known_id, named_id, both_id, one_id = known.id, named.id, both.id, one.id
    sources = clients(semantic_scholar, huggingface, timer)
    try:
        found = await find_candidates(sources, "TMax")
    finally:
        await sources.close()
    async with session_factory() as session, session.begin():
        alias = await choose(session, GUILD, "TMax", found.candidates[0], chosen_by=None, now=NOW)
    assert alias.paper_id == known_id
    async with session_factory() as session:
        assert await session.get(Paper, named_id) is None
        kept = await session.get(Paper, known_id)
        assert kept is not None
        assert kept.title == TMAX  # its "arXiv:…" placeholder is filled
        links = (await session.execute(select(SessionPaper.session_id, SessionPaper.paper_id))).all()
        assert sorted(links) == sorted([(both_id, known_id), (one_id, known_id)])
        assert await session.scalar(select(func.count()).select_from(PaperAlias)) == 1


async def test_an_empty_name_is_refused(session_factory: async_sessionmaker[AsyncSession]) -> None:
    async with session_factory() as session, session.begin():
        with pytest.raises(BadInput):
            await choose(session, GUILD, "  ", None, chosen_by=None, now=NOW)
