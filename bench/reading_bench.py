"""Full-text search at scale: the store's own index against a LIKE '%…%' scan, and /reading search
through the local stand-in with the real discord.py client.

    .venv/bin/python -m bench.reading_bench [--n 20000] [--rounds 200]
                                            [--database-url postgresql+asyncpg://…] [--with-before]

``--n`` papers and ``--n / 5`` sessions (three papers each) are stored in one guild (the issue's size
is ``--n 100000``: 100,000 papers and 20,000 sessions), with titles, authors and descriptions drawn
from a Zipf-like vocabulary so the queries range from rare words to words in a third of the rows.
Every write goes through the triggers, so building the store also measures indexing.

Figures, each over the same query mix, interleaved round by round (the heap collected and frozen first,
as the bot freezes its start-up heap: ``bench.common.steady_heap``):

1. ``store search``: the ranked query the bot runs (FTS5 bm25 / tsvector ts_rank, top 5, with the
   count), and the whole service call (plus loading where each hit belongs).
2. ``LIKE scan``: the same words as ``LIKE '%word%'`` over the same columns (count + first 5): the
   baseline, and the ratio between the two.
3. ``/reading search`` from dispatch to first response through the stand-in, against the floor of a
   bare discord.py bot answering a static reply through the same stand-in.

Targets (issue #19) at ``--n 100000``: store search p99 < 15 ms on SQLite, < 25 ms on PostgreSQL;
``/reading search`` p99 < 50 ms.

``--with-before`` (PostgreSQL): a second store in its own schema, migrated to 0004 only (its row
triggers, which rewrite a document per row written) and filled with the same rows, searched in the
same rounds as the current store, query by query in alternating order: the before/after of migration
0014 in one run, on one machine load. Also printed per store: the index table's size and the dead rows
ANALYZE counted after the load.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import logging
import random
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import and_, func, insert, or_, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from bench.common import bare_floor, line, percentile, steady_heap, time_invoke
from bot.demo.botenv import BotEnv
from bot.papers import normalize_title
from bot.services.reading.search import parse_query, ranked_page, search
from db.engine import create_engine, create_session_factory
from db.migrate import alembic_config, upgrade_database
from db.models import ClubSession, Paper, SessionPaper

QUERIES = [
    "autoenv",  # a rare, made-up name
    "kelvar",  # rare vocabulary word
    "environments",  # common (in ~1 row in 3)
    "user simulators",  # two mid-frequency words
    "verifier benchmark",  # two common words
    "Okafor",  # an author
    "Priya Nakamura",  # a presenter
    "2301.01233",  # an arXiv id
    "tool-use agents",  # hyphenated
    '"NEAR(reward" OR -gym*',  # hostile text: plain words
]
COMMON = [
    "environments",
    "agents",
    "benchmark",
    "verifier",
    "reward",
    "user",
    "simulators",
    "tool",
    "use",
    "learning",
    "tasks",
    "models",
    "scaling",
    "synthetic",
    "world",
    "evaluation",
    "web",
    "terminal",
    "enterprise",
    "gym",
    "curriculum",
    "policy",
]
SURNAMES = [
    "Okafor",
    "Nakamura",
    "Ivison",
    "Schmidt",
    "Garcia",
    "Chen",
    "Dubois",
    "Rossi",
    "Novak",
    "Haddad",
    "Silva",
    "Tanaka",
    "Kowalski",
]
GIVEN = [
    "Priya",
    "Hamish",
    "Ana",
    "Lena",
    "Omar",
    "Wei",
    "Sofia",
    "Jonas",
    "Mei",
    "Ravi",
    "Noor",
    "Elena",
    "Kai",
]


def _vocabulary(rng: random.Random, size: int = 3000) -> list[str]:
    syllables = [
        "ka",
        "el",
        "var",
        "ro",
        "mi",
        "nu",
        "ta",
        "sel",
        "dor",
        "qua",
        "zen",
        "lo",
        "pri",
        "vex",
        "um",
        "tal",
        "or",
        "bi",
        "fen",
        "gra",
    ]
    words = {"".join(rng.choice(syllables) for _ in range(rng.randint(2, 3))) for _ in range(size * 2)}
    return sorted(words)[:size]


def _title(rng: random.Random, vocab: list[str], words: int) -> str:
    out = []
    for _ in range(words):
        if rng.random() < 0.35:
            out.append(rng.choice(COMMON))
        else:  # Zipf-like: low indexes far more often
            out.append(vocab[min(len(vocab) - 1, int(rng.paretovariate(1.1)) - 1)])
    return " ".join(out).capitalize()


async def populate(session: AsyncSession, guild_id: int, n_papers: int, seed: int = 7) -> dict[str, float]:
    """Store `n_papers` papers and n/5 sessions of three papers each; returns seconds spent per table."""
    rng = random.Random(seed)
    vocab = _vocabulary(rng)
    now = datetime(2026, 11, 30, tzinfo=UTC)
    timings: dict[str, float] = {}
    started = time.perf_counter()
    chunk = 5000
    for start in range(0, n_papers, chunk):
        rows = []
        for i in range(start, min(n_papers, start + chunk)):
            title = _title(rng, vocab, rng.randint(4, 9)) + f" {i}"
            if i == 17:
                title = "AutoEnv: automated environments for agents"
            arxiv = f"{2301 + i // 99999 % 12:04d}.{i % 99999:05d}" if i % 3 == 0 else None
            authors = ", ".join(
                f"{rng.choice(GIVEN)} {rng.choice(SURNAMES)}" for _ in range(rng.randint(1, 4))
            )
            rows.append(
                {
                    "guild_id": guild_id,
                    "key": f"arxiv:{arxiv}" if arxiv else f"title:{normalize_title(title)}",
                    "kind": "arxiv" if arxiv else "title",
                    "title": title,
                    "normalized_title": normalize_title(title),
                    "url": f"https://arxiv.org/abs/{arxiv}" if arxiv else None,
                    "arxiv_id": arxiv,
                    "authors": authors,
                    "created_at": now,
                }
            )
        await session.execute(insert(Paper), rows)
    timings["papers"] = time.perf_counter() - started

    paper_ids = list((await session.scalars(select(Paper.id).where(Paper.guild_id == guild_id))).all())
    started = time.perf_counter()
    n_sessions = max(1, n_papers // 5)
    for start in range(0, n_sessions, chunk):
        rows = [
            {
                "guild_id": guild_id,
                "title": _title(rng, vocab, rng.randint(3, 7)) + f" #{i}",
                "description": _title(rng, vocab, rng.randint(12, 30)) + ".",
                "starts_at": now - timedelta(days=n_sessions - i),
                "duration_minutes": 60,
                "timezone": "America/Los_Angeles",
                "presenter_name": f"{rng.choice(GIVEN)} {rng.choice(SURNAMES)}",
                "status": "scheduled",
                "sequence": 0,
                "created_at": now,
                "updated_at": now,
            }
            for i in range(start, min(n_sessions, start + chunk))
        ]
        await session.execute(insert(ClubSession), rows)
    timings["sessions"] = time.perf_counter() - started

    session_ids = list(
        (await session.scalars(select(ClubSession.id).where(ClubSession.guild_id == guild_id))).all()
    )
    started = time.perf_counter()
    links = [
        {"session_id": sid, "paper_id": pid, "position": pos}
        for sid in session_ids
        for pos, pid in enumerate(rng.sample(paper_ids, 3))
    ]
    for start in range(0, len(links), chunk):
        await session.execute(insert(SessionPaper), links[start : start + chunk])
    timings["session_papers"] = time.perf_counter() - started
    return timings


TARGET_MS = {"sqlite": 15.0, "postgresql": 25.0}  # store search p99
TARGET_DISCORD_MS = 50.0  # /reading search p99, first response


async def store_query(session: AsyncSession, guild_id: int, query: str) -> int:
    """The store's search query the bot runs for a page: count, then rank the best five."""
    terms = parse_query(query)
    if not terms.words:
        return 0
    _, ranked = await ranked_page(session, guild_id, terms)
    return ranked.total + (1 if ranked.more_than_total else 0)


async def like_query(session: AsyncSession, guild_id: int, query: str) -> int:
    """The same words as LIKE '%word%' scans over the same columns (count + first five)."""
    words = parse_query(query).words
    if not words:
        return 0

    def matches(columns: list[Any]) -> Any:
        return and_(*(or_(*(func.lower(c).like(f"%{w}%") for c in columns)) for w in words))

    paper_where = and_(
        Paper.guild_id == guild_id, matches([Paper.title, Paper.authors, Paper.arxiv_id, Paper.doi])
    )
    session_where = and_(
        ClubSession.guild_id == guild_id,
        matches([ClubSession.title, ClubSession.description, ClubSession.presenter_name]),
    )
    total = int(await session.scalar(select(func.count()).where(paper_where)) or 0)
    total += int(await session.scalar(select(func.count()).where(session_where)) or 0)
    await session.execute(select(Paper.id).where(paper_where).limit(5))
    await session.execute(select(ClubSession.id).where(session_where).limit(5))
    return total


class BeforeStore:
    """The same rows in a store whose search index is written as migration 0004 wrote it (PostgreSQL)."""

    REVISION = "0004"

    def __init__(self, url: str) -> None:
        self.url = url
        self.schema = f"bench_before_{uuid.uuid4().hex[:8]}"
        self.engine = create_engine(url, search_path=self.schema)
        self.session_factory = create_session_factory(self.engine)

    async def create(self, guild_id: int, n_papers: int) -> dict[str, float]:
        await _pg_schema(self.url, f'CREATE SCHEMA "{self.schema}"')
        await upgrade_database(self.engine)

        def downgrade(connection: Any) -> None:
            from alembic import command

            config = alembic_config()
            config.attributes["connection"] = connection
            command.downgrade(config, self.REVISION)

        async with self.engine.begin() as conn:
            await conn.run_sync(downgrade)
        async with self.session_factory() as session, session.begin():
            timings = await populate(session, guild_id, n_papers)
        async with self.engine.begin() as conn:
            await conn.execute(text("ANALYZE"))
        return timings

    async def drop(self) -> None:
        await self.engine.dispose()
        await _pg_schema(self.url, f'DROP SCHEMA "{self.schema}" CASCADE')


async def index_shape(session: AsyncSession) -> str:
    """PostgreSQL: the index table's size, its GIN index's, and the dead rows ANALYZE counted."""
    size, gin, total, live, dead = (
        await session.execute(
            text(
                "SELECT pg_relation_size('reading_search'), pg_relation_size('ix_reading_search_tsv'), "
                "pg_total_relation_size('reading_search'), n_live_tup, n_dead_tup FROM pg_stat_user_tables "
                "WHERE relid = 'reading_search'::regclass"
            )
        )
    ).one()
    return (
        f"reading_search {size / 2**20:.1f} MiB (GIN {gin / 2**20:.1f} MiB, with every index and TOAST "
        f"{total / 2**20:.1f} MiB), {live:,} live rows, {dead:,} dead"
    )


async def run(args: argparse.Namespace) -> None:
    logging.getLogger().setLevel(logging.ERROR)
    if args.with_before and not args.database_url:
        raise SystemExit("--with-before compares PostgreSQL stores: give --database-url")
    with tempfile.TemporaryDirectory(prefix="paperclub-bench-") as tmp:
        url = args.database_url or f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
        schema = f"bench_{uuid.uuid4().hex[:10]}" if args.database_url else None
        engine_factory = None
        if schema:  # PostgreSQL: a schema of its own, dropped afterwards
            await _pg_schema(url, f'CREATE SCHEMA "{schema}"')
            engine_factory = functools.partial(create_engine, url, search_path=schema)
        before = BeforeStore(url) if args.with_before else None
        try:
            await _bench(args, url, engine_factory, before)
        finally:
            if before is not None:
                await before.drop()
            if schema:
                await _pg_schema(url, f'DROP SCHEMA "{schema}" CASCADE')


async def _pg_schema(url: str, statement: str) -> None:
    admin = create_engine(url)
    async with admin.begin() as conn:
        await conn.execute(text(statement))
    await admin.dispose()


async def _bench(args: argparse.Namespace, url: str, engine_factory: Any, before: BeforeStore | None) -> None:
    async with BotEnv(database_url=url, engine_factory=engine_factory) as env:
        guild_id = env.guild.id
        backend = env.bot.engine.dialect.name
        print(
            f"reading bench on {backend}: {args.n:,} papers, {args.n // 5:,} sessions, {args.rounds} rounds"
        )
        started = time.perf_counter()
        async with env.bot.session_factory() as session, session.begin():
            timings = await populate(session, guild_id, args.n)
        async with env.bot.engine.begin() as conn:
            await conn.execute(text("ANALYZE"))
        print(
            f"stored in {time.perf_counter() - started:.1f} s (through the index triggers): "
            + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items())
        )
        async with env.bot.session_factory() as session:
            sizes = {q: await store_query(session, guild_id, q) for q in QUERIES}
            shape = await index_shape(session) if backend == "postgresql" else ""
        print("matches per query: " + ", ".join(f"{q!r}={n}" for q, n in sizes.items()))
        if shape:
            print(f"after load: {shape}")
        if before is not None:
            started = time.perf_counter()
            old_timings = await before.create(guild_id, args.n)
            print(
                f"before-store (migration {before.REVISION}'s triggers) stored in "
                f"{time.perf_counter() - started:.1f} s: "
                + ", ".join(f"{k} {v:.1f} s" for k, v in old_timings.items())
            )
            async with before.session_factory() as session:
                old_sizes = {q: await store_query(session, guild_id, q) for q in QUERIES}
                print(f"before-store after load: {await index_shape(session)}")
            if old_sizes != sizes:
                raise SystemExit(f"the two stores disagree on the matches: {old_sizes} vs {sizes}")
        old_per_query: dict[str, list[float]] = {q: [] for q in QUERIES}
        like_per_query: dict[str, list[float]] = {q: [] for q in QUERIES}

        ranked: list[float] = []
        service: list[float] = []
        scan: list[float] = []
        via_discord: list[float] = []
        per_query: dict[str, list[float]] = {q: [] for q in QUERIES}
        member = env.member
        for _ in range(10):  # warm-up
            for q in QUERIES:
                await (await env.invoke("reading search", {"query": q}, member=member)).response()
        # Timed with the heap so far (the load's objects too) frozen, as the bot freezes its start-up heap.
        with steady_heap():
            for round_no in range(args.rounds):
                for q in QUERIES:
                    if before is not None and round_no % 2:  # the before-store first in every other round
                        old_per_query[q].append(await _timed_store_query(before, guild_id, q))
                    async with env.bot.session_factory() as session:
                        t0 = time.perf_counter()
                        await store_query(session, guild_id, q)
                        t1 = time.perf_counter()
                        await search(session, guild_id, q)
                        t2 = time.perf_counter()
                    if before is not None and not round_no % 2:
                        old_per_query[q].append(await _timed_store_query(before, guild_id, q))
                    ranked.append((t1 - t0) * 1000)
                    service.append((t2 - t1) * 1000)
                    per_query[q].append((t1 - t0) * 1000)
                    via_discord.append(
                        await time_invoke(
                            lambda q=q: env.invoke("reading search", {"query": q}, member=member)
                        )
                    )
                    if round_no < args.like_rounds:  # the slow baseline, interleaved in the first rounds
                        async with env.bot.session_factory() as session:
                            t0 = time.perf_counter()
                            await like_query(session, guild_id, q)
                            scan.append((time.perf_counter() - t0) * 1000)
                            like_per_query[q].append(scan[-1])
    floor = await bare_floor(min(len(via_discord), 500))

    old_ranked = [ms for samples in old_per_query.values() for ms in samples]
    print()
    print(line("store search (ranked query)", ranked))
    if old_ranked:
        print(line(f"  the same, before ({BeforeStore.REVISION})", old_ranked))
        print(
            f"{'ratio before / after':<34} p50 {statistics.median(old_ranked) / statistics.median(ranked):7.2f}x"
            f"   p99 {percentile(old_ranked, 99) / percentile(ranked, 99):7.2f}x"
        )
    print(line("store search (service call)", service))
    print(line("LIKE '%…%' scan (baseline)", scan))
    print(
        f"{'ratio LIKE / store search':<34} p50 {statistics.median(scan) / statistics.median(ranked):7.1f}x"
        f"   p99 {percentile(scan, 99) / percentile(ranked, 99):7.1f}x"
    )
    print(line("/reading search (stand-in)", via_discord))
    print(line("bare discord.py floor", floor))
    print(
        f"{'ratio /reading search / floor':<34} p50 {statistics.median(via_discord) / statistics.median(floor):7.2f}x"
        f"   p99 {percentile(via_discord, 99) / percentile(floor, 99):7.2f}x"
    )
    print()
    print(
        "store search by query (ms, p50 / p99)"
        + ("; before: the 0004 store in the same rounds" if old_ranked else "")
    )
    for q, samples in per_query.items():
        figures = f"  {q!r:<32} matches={sizes[q]:>6}  after {statistics.median(samples):6.2f} / {percentile(samples, 99):6.2f}"
        if old_per_query[q]:
            old = old_per_query[q]
            figures += f"   before {statistics.median(old):6.2f} / {percentile(old, 99):6.2f}"
        if like_per_query[q]:
            figures += f"   LIKE p50 {statistics.median(like_per_query[q]):7.1f}"
        print(figures)
    target = TARGET_MS[backend]
    ok_store = percentile(ranked, 99) < target
    ok_discord = percentile(via_discord, 99) < TARGET_DISCORD_MS
    print(
        f"\ntargets ({backend}): store search p99 < {target:g} ms: {'met' if ok_store else 'MISSED'}; "
        f"/reading search p99 < {TARGET_DISCORD_MS:g} ms: {'met' if ok_discord else 'MISSED'}"
    )


async def _timed_store_query(store: BeforeStore, guild_id: int, query: str) -> float:
    async with store.session_factory() as session:
        started = time.perf_counter()
        await store_query(session, guild_id, query)
        return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--n", type=int, default=20_000, help="papers to store (sessions: n/5); the issue's: 100000"
    )
    parser.add_argument("--rounds", type=int, default=100, help="rounds over the query mix")
    parser.add_argument("--like-rounds", type=int, default=10, help="rounds of the (slow) LIKE baseline")
    parser.add_argument("--database-url", default=None, help="a PostgreSQL URL to bench that store instead")
    parser.add_argument(
        "--with-before",
        action="store_true",
        help="PostgreSQL: also search a store indexed by migration 0004's triggers, in the same rounds",
    )
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
