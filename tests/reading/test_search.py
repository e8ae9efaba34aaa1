"""Full-text search: query building (pure), ranking over the club's programme, hostile queries, and the
index kept in step by triggers — on SQLite (FTS5) and PostgreSQL (tsvector/GIN)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select, text, update

from bot.errors import BadInput
from bot.papers import parse_paper_ref
from bot.services.papers.store import get_or_create_paper
from bot.services.reading import search as search_module
from bot.services.reading.autocomplete import suggest
from bot.services.reading.lists import add_to_list, read_paper_input, remove_from_list
from bot.services.reading.search import (
    MARK_CLOSE,
    MARK_OPEN,
    fts5_expression,
    parse_query,
    save_query,
    saved_query,
    search,
    tsquery_expression,
)
from db.models import ClubSession, Paper, SessionPaper
from db.models.reading import ReadingList
from tests.reading.conftest import GUILD

# ---------------------------------------------------------------- query building (pure)


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("AutoEnv", ("autoenv",)),
        ("  Tau2-Bench  ", ("tau2", "bench")),
        ('"user simulators"', ("user", "simulators")),
        ("NEAR(user, simulator)", ("near", "user", "simulator")),
        ("environments AND NOT verifiers", ("environments", "verifiers")),
        ("-world +model*", ("world", "model")),
        ("the and of", ()),
        ("Ｔａｕ２", ("tau2",)),
        ("https://arxiv.org/abs/2401.12345v2", ("2401", "12345")),
        ("arXiv:2401.12345", ("2401", "12345")),
        ("snake_case_word", ("snake", "case", "word")),
    ],
)
def test_parse_query_keeps_plain_words(query: str, words: tuple[str, ...]) -> None:
    assert parse_query(query).words == words


@pytest.mark.parametrize("query", ["", "   ", "\u200b", "\u200b \u202e", "x" * 201])  # invisible = empty
def test_parse_query_refuses_empty_and_over_long(query: str) -> None:
    with pytest.raises(BadInput):
        parse_query(query)


def test_expressions_quote_every_word() -> None:
    assert fts5_expression(("tau2", "bench")) == '"tau2" "bench"'
    assert fts5_expression(("a", "b"), any_word=True) == '"a" OR "b"'
    assert fts5_expression(("auto",), prefix_last=True) == '"auto" *'
    assert tsquery_expression(("tau2", "bench")) == "'tau2' & 'bench'"
    assert tsquery_expression(("a", "b"), any_word=True) == "'a' | 'b'"
    assert tsquery_expression(("auto",), prefix_last=True, weights="A") == "'auto':*A"


# ---------------------------------------------------------------- ranking over the imported programme


def _order(hits: list) -> list[str]:
    """'s:03-17' for a session (its date), 'p:Title' for a paper, 'l:Name' for a list."""
    return [
        f"s:{h.starts_at.strftime('%m-%d')}" if h.kind == "session" else f"{h.kind[0]}:{h.title}"
        for h in hits
    ]


RANKING = [
    # query, expected results best first (the paper first when a title matches it exactly)
    ("AutoEnv", ["p:AutoEnv", "s:03-17", "s:03-05"]),
    ("Tau2-Bench", ["p:Tau2-Bench", "s:04-07", "s:03-05", "s:06-09"]),
    ("user simulators", ["s:11-19", "s:09-24"]),
    ("Agent World Model", ["p:Agent World Model", "s:02-27", "s:03-05"]),
    ("world models", ["p:Agent World Model", "s:02-27", "s:03-05"]),
    ("sandbox", ["s:10-16"]),
    ("reverse task synthesis", ["s:02-11"]),
    ("Hamish Ivison", ["s:11-05"]),
    ("OMNI", ["p:OMNI", "s:03-17"]),
    ("Sim2Real", ["p:Mind the Sim2Real Gap", "s:09-24"]),
    ("computer-use", ["p:Gym-Anything", "s:05-05"]),
    ("tool-use benchmarks", ["s:06-09", "l:ITSMBench"]),
    ("WorldSmith", ["l:WorldSmith"]),
    (
        "verifiers",
        [
            "p:OSWorld-Verified",
            "p:Universal Verifier",
            "p:SWE-Bench Verified",
            "s:05-19",
            "s:06-17",
            "s:02-13",
        ],
    ),
]


@pytest.mark.parametrize(("query", "expected"), RANKING, ids=[q for q, _ in RANKING])
async def test_ranking_table(club, query: str, expected: list[str]) -> None:
    async with club() as session:
        result = await search(session, GUILD, query, per_page=50)
    assert _order(result.hits) == expected
    assert result.total == len(expected)
    assert not result.any_word


async def test_autoenv_names_both_sessions_that_read_it(club) -> None:
    async with club() as session:
        result = await search(session, GUILD, "AutoEnv")
    paper = result.hits[0]
    assert paper.kind == "paper"
    assert paper.title == "AutoEnv"
    assert [(b.starts_at.month, b.starts_at.day) for b in paper.read_in] == [(3, 17), (3, 5)]
    assert paper.on_lists == ("WorldSmith",)
    assert f"{MARK_OPEN}AutoEnv{MARK_CLOSE}" in result.hits[1].snippet


async def test_falls_back_to_any_word_and_pages(club) -> None:
    async with club() as session:
        result = await search(session, GUILD, "sandbox zebra")
        assert result.any_word
        assert _order(result.hits) == ["s:10-16"]
        first = await search(session, GUILD, "environments", per_page=5)
        last = await search(session, GUILD, "environments", page=99, per_page=5)
    assert first.pages == last.pages == -(-first.total // 5)
    assert first.total > 10
    assert last.page == last.pages - 1
    assert 0 < len(last.hits) <= 5
    assert {(h.kind, h.ref_id) for h in first.hits}.isdisjoint({(h.kind, h.ref_id) for h in last.hits})


async def test_other_guilds_are_not_searched(club) -> None:
    async with club() as session:
        assert (await search(session, GUILD + 1, "AutoEnv")).total == 0


# Each hostile query is searched as its plain words: operators, quotes and prefixes mean nothing, so
# the count is that of the words alone (AutoEnv: 3 sessions and papers; AutoEnv with OMNI: 1; OMNI or
# AutoEnv, when not every word matches: 6; nothing but punctuation or stopwords: 0).
HOSTILE = [
    ('"', 0),
    ('"AutoEnv', 3),
    ("AutoEnv*", 3),
    ("*", 0),
    ("NEAR(AutoEnv OMNI, 2)", 6),
    ("AutoEnv AND OMNI", 1),
    ("AutoEnv OR", 3),
    ("NOT AutoEnv", 3),
    ("AND OR NOT", 0),
    ("((AutoEnv", 3),
    ("AutoEnv)", 3),
    ("-AutoEnv", 3),
    ("AutoEnv -OMNI", 1),
    ("title:AutoEnv", 3),
    ("{title}: x", 0),
    ("'; DROP TABLE papers; --", 0),
    ("\\x00 \\ ' \" ` ^ ~ : @ !", 0),
    ("autoenv:*A & !", 3),
    ("<->", 0),
    ("a" * 200, 0),
    ("😀 🙃", 0),
]


@pytest.mark.parametrize(("query", "matches"), HOSTILE)
async def test_hostile_queries_are_plain_words(club, query: str, matches: int) -> None:
    async with club() as session:
        result = await search(session, GUILD, query)
        assert result.total == matches, [h.title for h in result.hits]
        if "AutoEnv" in query:  # the word is still searched for, as a plain word
            assert any("autoenv" in (h.title + h.snippet).casefold() for h in result.hits)
    async with club() as session:  # the store is untouched and still answers
        assert (await session.scalar(select(Paper.id).limit(1))) is not None
        assert (await search(session, GUILD, "AutoEnv")).total == 3


# ---------------------------------------------------------------- the index follows every write


async def test_triggers_keep_the_index_in_step(club) -> None:
    async with club() as session, session.begin():
        paper = await get_or_create_paper(session, GUILD, parse_paper_ref("2401.12345"), title="Zanzibar Gym")
        row = ClubSession(
            guild_id=GUILD,
            title="Quokka session",
            starts_at=datetime(2026, 7, 2, 16, 30, tzinfo=UTC),
            timezone="America/Los_Angeles",
            presenter_name="Xenia Quill",
            papers=[SessionPaper(paper_id=paper.id, position=0)],
        )
        session.add(row)
    async with club() as session:
        assert _order((await search(session, GUILD, "zanzibar")).hits) == ["p:Zanzibar Gym", "s:07-02"]
        assert _order((await search(session, GUILD, "2401.12345")).hits) == ["p:Zanzibar Gym", "s:07-02"]
        assert _order((await search(session, GUILD, "Xenia")).hits) == ["s:07-02"]

    async with club() as session, session.begin():  # a paper's new title reaches the sessions that read it
        await session.execute(
            update(Paper).where(Paper.id == paper.id).values(title="Yodel Gym", authors="Ada Byron")
        )
    async with club() as session:
        assert (await search(session, GUILD, "zanzibar")).total == 0
        assert _order((await search(session, GUILD, "yodel")).hits) == ["p:Yodel Gym", "s:07-02"]
        assert _order((await search(session, GUILD, "Byron")).hits) == ["p:Yodel Gym"]

    async with club() as session, session.begin():  # notes on lists are searchable, and follow edits
        await add_to_list(
            session, GUILD, "Quirky", read_paper_input("2401.12345"), note="mentions walrus", user_id=5
        )
    async with club() as session:
        assert _order((await search(session, GUILD, "walrus")).hits) == ["p:Yodel Gym"]
        assert _order((await search(session, GUILD, "quirky")).hits) == ["l:Quirky"]
    async with club() as session, session.begin():
        await remove_from_list(session, GUILD, "quirky", read_paper_input("2401.12345"))
    async with club() as session:
        assert (await search(session, GUILD, "walrus")).total == 0
        assert (await search(session, GUILD, "quirky")).total == 0  # the emptied list is gone

    async with club() as session, session.begin():  # cancelled sessions drop out; deleted rows too
        await session.execute(update(ClubSession).where(ClubSession.id == row.id).values(status="cancelled"))
    async with club() as session:
        assert _order((await search(session, GUILD, "quokka")).hits) == []
        assert (await search(session, GUILD, "yodel")).hits[0].read_in == ()
    async with club() as session, session.begin():
        await session.execute(update(ClubSession).where(ClubSession.id == row.id).values(status="scheduled"))
    async with club() as session, session.begin():
        await session.delete(await session.get(Paper, paper.id))
    async with club() as session:
        assert (await search(session, GUILD, "yodel")).total == 0
        assert _order((await search(session, GUILD, "quokka")).hits) == ["s:07-02"]
        indexed = (await session.execute(text("SELECT count(*) FROM reading_search"))).scalar_one()
        sessions = await session.scalar(select(func.count()).where(ClubSession.status != "cancelled"))
        papers = await session.scalar(select(func.count()).select_from(Paper))
        lists = await session.scalar(select(func.count()).select_from(ReadingList))
        assert indexed == sessions + papers + lists


async def test_a_papers_tldr_venue_and_decision_are_searched_and_followed(club) -> None:
    """What the sources said (enrichment writes these columns) is in the paper's document, and a refresh
    that changes it moves the index with it."""
    async with club() as session, session.begin():
        paper = await get_or_create_paper(session, GUILD, parse_paper_ref("2401.54321"), title="Plain Gym")
    async with club() as session:
        assert (await search(session, GUILD, "narwhal")).total == 0
    async with club() as session, session.begin():
        await session.execute(
            update(Paper)
            .where(Paper.id == paper.id)
            .values(tldr="Agents herd a narwhal.", venue="Zeppelin Workshop", decision="Accept (Oral)")
        )
    async with club() as session:
        for query in ("narwhal", "zeppelin workshop", "oral"):
            assert _order((await search(session, GUILD, query)).hits) == ["p:Plain Gym"], query
    async with club() as session, session.begin():
        await session.execute(update(Paper).where(Paper.id == paper.id).values(tldr="Agents herd a yak."))
    async with club() as session:
        assert (await search(session, GUILD, "narwhal")).total == 0
        assert _order((await search(session, GUILD, "yak")).hits) == ["p:Plain Gym"]


async def test_a_failed_transaction_leaves_the_index_alone(club) -> None:
    async def add_then_fail() -> None:
        async with club() as session, session.begin():
            await get_or_create_paper(session, GUILD, parse_paper_ref("Rollback Wombat"))
            await session.flush()
            raise RuntimeError("abort")

    with pytest.raises(RuntimeError, match="abort"):
        await add_then_fail()
    async with club() as session:
        assert (await search(session, GUILD, "wombat")).total == 0


async def test_suggest_offers_papers_and_lists(club) -> None:
    async with club() as session:
        names = [s.name for s in await suggest(session, GUILD, "auto")]
        assert set(names) == {"AutoEnv", "AutoForge"}
        assert [s.name for s in await suggest(session, GUILD, "worldsmi")] == ["WorldSmith"]
        blank = await suggest(session, GUILD, "")
        assert [s.name for s in blank[:2]] == ["ITSMBench", "WorldSmith"]
        assert len(blank) == 25
        assert await suggest(session, GUILD, '"*) NEAR(') == []


async def test_saved_queries_are_reused(club) -> None:
    now = datetime(2026, 12, 1, tzinfo=UTC)
    async with club() as session, session.begin():
        first = await save_query(session, GUILD, "user  simulators", now)
        again = await save_query(session, GUILD, "user simulators", now)
    async with club() as session:
        assert first == again
        assert await saved_query(session, GUILD, first) == "user simulators"
        assert await saved_query(session, GUILD + 1, first) is None


async def test_over_the_cap_the_newest_matches_are_ranked(club, monkeypatch) -> None:
    monkeypatch.setattr(search_module, "MAX_RESULTS", 4)
    async with club() as session:
        everything = await search(session, GUILD, "environments", per_page=50)
    monkeypatch.undo()
    async with club() as session:
        uncapped = await search(session, GUILD, "environments", per_page=50)
    assert everything.more_than_total
    assert everything.total == 4
    assert len(everything.hits) == 4
    newest = sorted(
        uncapped.hits, key=lambda h: h.ref_id * 4 + {"session": 1, "paper": 2, "list": 3}[h.kind]
    )[-5:]  # the cap + 1 newest are ranked
    assert {(h.kind, h.ref_id) for h in everything.hits} <= {(h.kind, h.ref_id) for h in newest}
    ranks = [
        next(i for i, u in enumerate(uncapped.hits) if (u.kind, u.ref_id) == (h.kind, h.ref_id))
        for h in everything.hits
    ]
    assert ranks == sorted(ranks)  # still in the store's ranking order


async def test_every_page_has_its_snippets(club) -> None:
    """Snippets come from one pass over the matches between a page's lowest and highest row ids."""
    async with club() as session:
        first = await search(session, GUILD, "environments", per_page=3)
        seen: list[tuple[str, int]] = []
        for page in range(first.pages):
            result = await search(session, GUILD, "environments", page=page, per_page=3)
            assert result.hits
            assert all(MARK_OPEN in h.snippet and MARK_CLOSE in h.snippet for h in result.hits)
            seen.extend((h.kind, h.ref_id) for h in result.hits)
        whole = await search(session, GUILD, "environments", per_page=50)
    assert seen == [(h.kind, h.ref_id) for h in whole.hits]  # the pages, in order, are the one ranking


async def test_no_match_on_any_page(club) -> None:
    async with club() as session:
        for page in (0, 3):
            result = await search(session, GUILD, "zebra quagga", page=page)
            assert (result.total, result.hits, result.pages, result.page) == (0, [], 1, 0)
            assert result.any_word


@pytest.mark.sqlite_only
async def test_sqlite_index_merges_segments_early(club, store_info) -> None:
    assert store_info.backend == "sqlite"  # FTS5's automerge option
    async with club() as session:
        value = await session.scalar(text("SELECT v FROM reading_search_config WHERE k = 'automerge'"))
    assert value == 2
