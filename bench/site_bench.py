"""The club's website with 20,000 sessions and 100,000 papers stored: the home page, a session page and
calendar.ics, each built from the store at every request (as the bot serves them), beside a bare aiohttp
"hello" on the same machine in the same run.

    .venv/bin/python -m bench.site_bench [--sessions 20000] [--papers 100000] [--requests 300]
        [--concurrency 4] [--rounds 3] [--database-url URL] [--only home,session]

``--database-url`` (PostgreSQL) seeds a fresh schema of that database and drops it afterwards, so one
database serves every run, then runs VACUUM ANALYZE, as autovacuum would soon after such a load (SQLite
is left as the bot leaves it: no ANALYZE).

The site's handlers and the bare "hello" each listen on 127.0.0.1 (one process, as in the bot); the client
is a second process (aiohttp, ``--concurrency`` requests in flight), so client and server do not share a
core's event loop. The server's heap is collected and frozen once seeded, as the bot freezes its start-up
heap. Rounds alternate the four targets, so machine noise hits all alike. Figures: median and
p99 per target and their ratio to the floor's. Targets (issue #19), on SQLite and PostgreSQL: home and
session page p99 < 50 ms. calendar.ics (built with icalendar) has none: calendar apps poll it in the
background, behind its ETag, so no member waits on a build.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from aiohttp import web
from sqlalchemy import insert, select, text

from bench.common import steady_heap, summary
from bot.clock import FakeClock
from bot.services.site import config as site_config
from bot.services.site.web import reader_session_factory, site_routes
from db.engine import create_engine, create_session_factory
from db.migrate import upgrade_database
from db.models import ClubSession, Paper, SessionPaper

GUILD = 111111111111111111
SLUG = "bench"
NOW = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)
TARGETS_MS = {"home": 50.0, "session": 50.0}


async def seed(url: str, sessions: int, papers: int, *, search_path: str | None = None) -> list[int]:
    engine = create_engine(url, search_path=search_path)
    await upgrade_database(engine)
    factory = create_session_factory(engine)
    async with factory() as session, session.begin():
        for start in range(0, papers, 10_000):
            await session.execute(
                insert(Paper),
                [
                    {
                        "guild_id": GUILD,
                        "key": f"title:bench paper {p}",
                        "kind": "title",
                        "title": f"Bench paper {p} on environments",
                        "normalized_title": f"bench paper {p} on environments",
                        "url": f"https://example.com/papers/{p}",
                        "created_at": NOW,
                    }
                    for p in range(start, min(papers, start + 10_000))
                ],
            )
        paper_ids = list(await session.scalars(select(Paper.id).order_by(Paper.id)))
        first = NOW - timedelta(hours=6 * (sessions // 2))
        for start in range(0, sessions, 5_000):
            await session.execute(
                insert(ClubSession),
                [
                    {
                        "guild_id": GUILD,
                        "title": f"Bench session {i}",
                        "description": f"Session {i}: a paper on environments, read and argued over.",
                        "starts_at": first + timedelta(hours=6 * i),
                        "duration_minutes": 60,
                        "timezone": "America/Los_Angeles",
                        "presenter_name": f"Presenter {i % 50}",
                        "signup_url": f"https://lu.ma/bench-{i}",
                        "status": "scheduled",
                        "sequence": 0,
                        "created_at": NOW,
                        "updated_at": NOW - timedelta(minutes=sessions - i),
                    }
                    for i in range(start, min(sessions, start + 5_000))
                ],
            )
        session_ids = list(await session.scalars(select(ClubSession.id).order_by(ClubSession.id)))
        for start in range(0, len(session_ids), 5_000):
            await session.execute(
                insert(SessionPaper),
                [
                    {"session_id": sid, "paper_id": paper_ids[(k * 2 + j) % len(paper_ids)], "position": j}
                    for k, sid in enumerate(session_ids[start : start + 5_000], start)
                    for j in range(2)
                ],
            )
        await site_config.set_website(session, GUILD, enabled=True, slug=SLUG, title="Bench club", now=NOW)
        await site_config.set_about(session, GUILD, "- **Format.** An hour.\n- **Where.** A call.", now=NOW)
    if engine.dialect.name == "postgresql":  # what autovacuum does soon after such a load
        async with engine.connect() as conn:
            await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.execute(text("VACUUM ANALYZE"))
    await engine.dispose()
    return session_ids


async def serve(app: web.Application) -> tuple[web.AppRunner, str]:
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    return runner, f"http://127.0.0.1:{port}"


async def hello(request: web.Request) -> web.Response:
    return web.Response(text="hello")


# ---------------------------------------------------------------- the client (a second process)


async def client_main(spec: dict[str, Any]) -> None:
    import aiohttp

    results: dict[str, list[float]] = {}
    connector = aiohttp.TCPConnector(limit=spec["concurrency"])
    async with aiohttp.ClientSession(connector=connector) as http:

        async def one(url: str) -> float:
            started = time.perf_counter()
            async with http.get(url) as answer:
                await answer.read()
                assert answer.status == 200, (url, answer.status)
            return (time.perf_counter() - started) * 1000

        async def batch(urls: list[str]) -> list[float]:
            queue = list(urls)
            out: list[float] = []

            async def worker() -> None:
                while queue:
                    out.append(await one(queue.pop()))

            await asyncio.gather(*(worker() for _ in range(spec["concurrency"])))
            return out

        for urls in spec["warmup"].values():
            await batch(urls[:20])
        for _ in range(spec["rounds"]):
            for name, urls in spec["targets"].items():
                results.setdefault(name, []).extend(await batch(urls))
    print(json.dumps(results))


def run_client(spec: dict[str, Any]) -> dict[str, list[float]]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.site_bench", "--client"],
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        check=True,
        timeout=1800,
    )
    return json.loads(done.stdout)


# ---------------------------------------------------------------- the run


async def _pg_schema(url: str, statement: str) -> None:
    admin = create_engine(url)
    async with admin.begin() as conn:
        await conn.execute(text(statement))
    await admin.dispose()


async def main(args: argparse.Namespace) -> None:
    schema = f"site_bench_{uuid.uuid4().hex[:10]}" if args.database_url else None
    if schema:  # PostgreSQL: a schema of its own, dropped afterwards
        await _pg_schema(args.database_url, f'CREATE SCHEMA "{schema}"')
    try:
        await _run(args, schema)
    finally:
        if schema:
            await _pg_schema(args.database_url, f'DROP SCHEMA "{schema}" CASCADE')


async def _run(args: argparse.Namespace, schema: str | None) -> None:
    with tempfile.TemporaryDirectory(prefix="paperclub-site-bench-") as tmp:
        url = args.database_url or f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
        started = time.perf_counter()
        session_ids = await seed(url, args.sessions, args.papers, search_path=schema)
        print(
            f"seeded {args.sessions:,} sessions and {args.papers:,} papers in {time.perf_counter() - started:.1f} s "
            f"({url.split(':', 1)[0]})"
        )
        engine = create_engine(url, search_path=schema)
        factory = reader_session_factory(engine)  # as the bot serves the site
        site_app = web.Application()
        site_app.add_routes(site_routes(factory, FakeClock(NOW), lambda: "https://club.example.org"))
        floor_app = web.Application()
        floor_app.router.add_get("/hello", hello)
        site_runner, site_url = await serve(site_app)
        floor_runner, floor_url = await serve(floor_app)
        rng = random.Random(13)
        n = args.requests
        targets = {
            "hello (bare aiohttp)": [f"{floor_url}/hello"] * n,
            "home": [f"{site_url}/{SLUG}/"] * n,
            "session": [f"{site_url}/{SLUG}/sessions/{rng.choice(session_ids)}/" for _ in range(n)],
            "calendar.ics": [f"{site_url}/{SLUG}/calendar.ics"] * n,
        }
        wanted = {"hello (bare aiohttp)", *args.only.split(",")} if args.only else set(targets)
        targets = {name: urls for name, urls in targets.items() if name in wanted}
        spec = {"targets": targets, "warmup": targets, "rounds": args.rounds, "concurrency": args.concurrency}
        try:
            with steady_heap():  # as the bot freezes its start-up heap (bot/client.py)
                results = await asyncio.get_running_loop().run_in_executor(None, run_client, spec)
        finally:
            await site_runner.cleanup()
            await floor_runner.cleanup()
            await engine.dispose()
    floor = summary(results["hello (bare aiohttp)"])
    print(
        f"{args.requests} requests × {args.rounds} rounds per target, {args.concurrency} in flight, one client process"
    )
    for name, samples in results.items():
        s = summary(samples)
        target = TARGETS_MS.get(name)
        verdict = (
            ""
            if target is None
            else f"  target p99 < {target:.0f} ms: {'ok' if s['p99'] < target else 'MISSED'}"
        )
        print(
            f"{name:<22} n={s['n']:>5.0f}  p50={s['p50']:7.2f} ms  p99={s['p99']:7.2f} ms  "
            f"×floor p50={s['p50'] / floor['p50']:6.1f}  p99={s['p99'] / floor['p99']:6.1f}{verdict}"
        )


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=20_000)
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=300, help="requests per target per round")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--database-url",
        default=None,
        help="default: a fresh SQLite file; a PostgreSQL URL gets a fresh schema, dropped afterwards",
    )
    parser.add_argument(
        "--only", default=None, help="comma-separated targets (home,session,calendar.ics); default: all"
    )
    parser.add_argument("--client", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args()


if __name__ == "__main__":
    arguments = parse_args()
    if arguments.client:
        asyncio.run(client_main(json.loads(sys.stdin.read())))
    else:
        asyncio.run(main(arguments))
