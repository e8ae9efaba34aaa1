"""Several words on PostgreSQL: the newest matches found bucket by bucket (migration 0016) are the plain
statement's, page by page, with two guilds' rows interleaved, after edits and deletes; on SQLite the
search is unchanged (one statement either way). Both stores run every test that is not marked."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime

import pytest
from alembic import command
from sqlalchemy import delete, insert, text, update
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.services.reading import search as search_module
from bot.services.reading.search import RankedPage, ranked_page
from bot.services.reading.terms import parse_query, tsquery_expression
from db.migrate import alembic_config, upgrade_database
from db.models import Paper
from tests.reading.conftest import GUILD

OTHER = 2
STARTS = datetime(2026, 7, 2, 16, 30, tzinfo=UTC)
N_PAPERS = 5000  # index ids up to ~20,000: three buckets of 8,192 (migration 0016's BUCKET_BITS = 13)
QUERIES = [
    "alpha beta",  # common, and common among the newest
    "gamma delta",  # delta is rare among the newest: most matches are old
    "alpha zeta",  # a handful of matches
    "beta gamma delta",  # three words
    "alpha unheardof",  # no match of both: falls back to any word
    "zeta unheardof",
    "delta 2301",
]


def _title(rng: random.Random, i: int) -> str:
    words = ["paper", str(i)]
    if rng.random() < 0.4:
        words.append("alpha")
    if rng.random() < 0.3:
        words.append("beta")
    if rng.random() < 0.2:
        words.append("gamma")
    if rng.random() < (0.3 if i < 1500 else 0.01):
        words.append("delta")
    if rng.random() < 0.004:
        words.append("zeta")
    if i % 7 == 0:
        words.append("2301")
    return " ".join(words)


@pytest.fixture
async def papers(session_factory: async_sessionmaker[AsyncSession]) -> async_sessionmaker[AsyncSession]:
    """N_PAPERS papers, every third in another guild, loaded in one transaction."""
    rng = random.Random(16)
    rows = []
    for i in range(N_PAPERS):
        title = _title(rng, i)
        rows.append(
            {
                "guild_id": OTHER if i % 3 == 2 else GUILD,
                "key": f"title:{title}",
                "kind": "title",
                "title": title,
                "normalized_title": title,
                "created_at": STARTS,
            }
        )
    async with session_factory() as session, session.begin():
        for start in range(0, N_PAPERS, 1000):
            await session.execute(insert(Paper), rows[start : start + 1000])
    return session_factory


@pytest.fixture
def postgresql_only(store_info) -> None:
    if store_info.backend != "postgresql":
        pytest.skip("the bucketed index is PostgreSQL's (SQLite's FTS5 walks rowids newest first)")


async def _both(session: AsyncSession, guild: int, query: str, page: int, per_page: int) -> RankedPage:
    terms = parse_query(query)
    bucketed = await ranked_page(session, guild, terms, page=page, per_page=per_page)
    plain = await ranked_page(session, guild, terms, page=page, per_page=per_page, bucketed=False)
    assert bucketed == plain, (query, page, per_page)
    return bucketed


@pytest.mark.parametrize("rare", [-1.0, search_module.RARE_MATCHES, 1e9], ids=["walk", "estimate", "no-walk"])
async def test_several_words_rank_the_same_pages_either_way(
    papers: async_sessionmaker[AsyncSession], monkeypatch: pytest.MonkeyPatch, rare: float
) -> None:
    monkeypatch.setattr(search_module, "RARE_MATCHES", rare)
    seen = {}
    async with papers() as session:
        for query in QUERIES:
            for guild in (GUILD, OTHER):
                for page, per_page in ((0, 5), (1, 5), (3, 10), (49, 5), (60, 5)):
                    found = await _both(session, guild, query, page, per_page)
                    seen[query, guild, page] = found
    # The mix covers what it is meant to: over the cap, a few, none of both (any word).
    assert seen["alpha beta", GUILD, 0].more_than_total
    assert 50 < seen["gamma delta", GUILD, 0].total < 250  # most of them in the oldest buckets
    assert 0 < seen["alpha zeta", GUILD, 0].total < 50
    assert seen["alpha unheardof", GUILD, 0].any_word
    assert seen["alpha beta", GUILD, 49].page == 49
    assert seen["alpha beta", GUILD, 60].page == 49  # past the last page: the last one


@pytest.mark.usefixtures("postgresql_only")
async def test_the_walk_returns_the_newest_matches_in_id_order(
    papers: async_sessionmaker[AsyncSession],
) -> None:
    """reading_search_newest against the plain query, for caps and walks that end inside a bucket, at a
    bucket's edge, and that leave the rest to the plain index (``rare=-1``: always walk; ``1e9``: never)."""
    plain = text(
        "SELECT id, guild_id FROM reading_search WHERE guild_id = :g AND tsv @@ to_tsquery('english', :q) "
        "ORDER BY id DESC LIMIT :cap"
    )
    newest = text(
        "SELECT n.id, r.guild_id FROM reading_search_newest(to_tsquery('english', :q), :g, :cap, :walk, :rare) AS n "
        "JOIN reading_search r ON r.id = n.id"
    )
    async with papers() as session:
        top = await session.scalar(text("SELECT max(id) >> 13 FROM reading_search"))
        assert top is not None
        assert top >= 2
        for query in QUERIES:
            words = parse_query(query).words
            for expression in (tsquery_expression(words), tsquery_expression(words, any_word=True)):
                for guild in (GUILD, OTHER):
                    for cap in (1, 7, 251, 5000):
                        expected = (
                            await session.execute(plain, {"g": guild, "q": expression, "cap": cap})
                        ).all()
                        for walk, rare in ((1, -1), (2, -1), (top, -1), (top + 1, -1), (256, -1), (256, 1e9)):
                            params = {"g": guild, "q": expression, "cap": cap, "walk": walk, "rare": rare}
                            got = (await session.execute(newest, params)).all()
                            assert got == expected, (expression, guild, cap, walk)


@pytest.mark.usefixtures("postgresql_only")
async def test_edits_and_deletes_reach_the_bucketed_index(papers: async_sessionmaker[AsyncSession]) -> None:
    async with papers() as session:
        pending = await session.scalar(text("SELECT gin_clean_pending_list('ix_reading_search_buckets')"))
        assert pending == 0  # the bulk load's flush merged its entries into the index itself
        old = await session.scalar(text("SELECT min(id) FROM papers WHERE guild_id = :g"), {"g": GUILD})
        new = await session.scalar(text("SELECT max(id) FROM papers WHERE guild_id = :g"), {"g": GUILD})
    for paper_id in (old, new):  # one in the oldest bucket, one in the newest
        async with papers() as session, session.begin():
            await session.execute(
                update(Paper).where(Paper.id == paper_id).values(title="Wombat quokka gyms")
            )
        async with papers() as session:
            found = await _both(session, GUILD, "quokka wombat", 0, 5)
            assert [row.ref_id for row in found.rows] == [paper_id]
            assert (await _both(session, OTHER, "quokka wombat", 0, 5)).total == 0
        async with papers() as session, session.begin():
            await session.execute(delete(Paper).where(Paper.id == paper_id))
        async with papers() as session:
            assert (await _both(session, GUILD, "quokka wombat", 0, 5)).total == 0


@pytest.mark.usefixtures("postgresql_only")
async def test_downgrade_to_0014_and_back(
    engine: AsyncEngine, papers: async_sessionmaker[AsyncSession]
) -> None:
    def migrate(conn, revision: str, *, down: bool) -> None:  # type: ignore[no-untyped-def]
        config = alembic_config()
        config.attributes["connection"] = conn
        (command.downgrade if down else command.upgrade)(config, revision)

    async with papers() as session:
        before = await _both(session, GUILD, "gamma delta", 0, 5)
    async with engine.begin() as conn:
        await conn.run_sync(migrate, "0014", down=True)
    async with papers() as session:
        leftovers = await session.scalar(
            text(
                "SELECT count(*) FROM pg_proc WHERE pronamespace = current_schema()::regnamespace "
                "AND (proname LIKE 'reading_search_bucket%' OR proname = 'reading_search_newest')"
            )
        )
        assert leftovers == 0
        assert await session.scalar(text("SELECT to_regclass('ix_reading_search_buckets')")) is None
        flush = await session.scalar(
            text(
                "SELECT prosrc FROM pg_proc WHERE pronamespace = current_schema()::regnamespace "
                "AND proname = 'reading_search_flush'"
            )
        )
        assert "ix_reading_search_buckets" not in flush
        terms = parse_query("gamma delta")
        assert await ranked_page(session, GUILD, terms, bucketed=False) == before
    async with papers() as session, session.begin():  # 0014's flush still writes, without the index
        paper_id = await session.scalar(text("SELECT min(id) FROM papers WHERE guild_id = :g"), {"g": GUILD})
        await session.execute(update(Paper).where(Paper.id == paper_id).values(title="Wombat quokka gyms"))
    await upgrade_database(engine)  # builds the index over what is there
    async with papers() as session:
        assert await _both(session, GUILD, "gamma delta", 0, 5) == before
        assert [row.ref_id for row in (await _both(session, GUILD, "quokka wombat", 0, 5)).rows] == [paper_id]


@pytest.mark.usefixtures("postgresql_only")
async def test_two_writers_at_once_reach_the_bucketed_index(papers: async_sessionmaker[AsyncSession]) -> None:
    """Two transactions adding and renaming papers at once (each flushing at its own COMMIT): both reach the
    bucketed index, and the walk agrees with the plain query."""
    written = {0: asyncio.Event(), 1000: asyncio.Event()}

    async def write(offset: int) -> None:
        async with papers() as session, session.begin():
            rows = [
                {
                    "guild_id": GUILD,
                    "key": f"title:quokka {offset + i}",
                    "kind": "title",
                    "title": f"Quokka wombat {offset + i}",
                    "normalized_title": f"quokka wombat {offset + i}",
                    "created_at": STARTS,
                }
                for i in range(300)
            ]
            await session.execute(insert(Paper), rows)
            await session.execute(
                update(Paper)
                .where(Paper.title == f"paper {offset} alpha")
                .values(title="Quokka wombat renamed")
            )
            written[offset].set()
            await written[1000 - offset].wait()  # both transactions open, then each commits

    await asyncio.gather(write(0), write(1000))
    async with papers() as session:
        found = await _both(session, GUILD, "quokka wombat", 0, 5)
        assert found.more_than_total  # 600 new papers
        count = await session.scalar(
            text("SELECT count(*) FROM reading_search WHERE tsv @@ to_tsquery('english', 'quokka & wombat')")
        )
        assert count == 600 + (
            await session.scalar(text("SELECT count(*) FROM papers WHERE title = 'Quokka wombat renamed'"))
        )
