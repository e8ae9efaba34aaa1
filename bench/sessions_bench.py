"""/session list and /session show with many sessions stored, beside a bare discord.py bot, through the
local stand-in.

    .venv/bin/python -m bench.sessions_bench [--n 10000] [--calls 300] [--rounds 3] [--database-url URL]

Stores ``--n`` sessions in one guild (half already past, half upcoming, two papers each), then measures
dispatch (the stand-in sends INTERACTION_CREATE) → first response (the bot's callback arrives), p50/p99,
for /session list, /session show of a random session, and the bare bot's static reply (the floor). The
rounds alternate, so machine noise hits all three alike. The issue's target: p99 within 50 ms at 10,000.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import logging
import random
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select, text
from sqlalchemy.ext.asyncio import AsyncEngine

from bench.common import bare_floor, line, summary, time_invoke
from bot.api_base import apply_api_base
from bot.demo.botenv import BotEnv
from db.engine import create_engine
from db.models import ClubSession, Paper, SessionPaper

TARGET_P99_MS = 50.0


async def seed(env: BotEnv, n: int) -> list[int]:
    """``n`` sessions every 6 hours around now, each reading two of 500 papers. Returns their ids."""
    guild_id = env.guild.id
    now = env.clock.now()
    first = now - timedelta(hours=6 * (n // 2))
    async with env.bot.session_factory() as session, session.begin():
        await session.execute(
            insert(Paper),
            [
                {
                    "guild_id": guild_id,
                    "key": f"title:bench paper {p}",
                    "kind": "title",
                    "title": f"Bench paper {p}",
                    "normalized_title": f"bench paper {p}",
                    "url": f"https://example.com/papers/{p}",
                    "created_at": now,
                }
                for p in range(500)
            ],
        )
        paper_ids = list((await session.execute(select(Paper.id).order_by(Paper.id))).scalars())
        for start in range(0, n, 2000):
            await session.execute(
                insert(ClubSession),
                [
                    {
                        "guild_id": guild_id,
                        "title": f"Bench session {i}: environments, verifiers and user simulators",
                        "description": "A session stored for the benchmark.",
                        "starts_at": first + timedelta(hours=6 * i),
                        "duration_minutes": 60,
                        "timezone": "America/Los_Angeles",
                        "presenter_name": f"Presenter {i % 37}",
                        "signup_url": f"https://lu.ma/bench-{i}",
                        "status": "scheduled" if i % 50 else "cancelled",
                        "sequence": 0,
                        "created_at": now,
                        "updated_at": now,
                    }
                    for i in range(start, min(n, start + 2000))
                ],
            )
        session_ids = list((await session.execute(select(ClubSession.id).order_by(ClubSession.id))).scalars())
        await session.execute(
            insert(SessionPaper),
            [
                {"session_id": sid, "paper_id": paper_ids[(k + j) % len(paper_ids)], "position": j}
                for k, sid in enumerate(session_ids)
                for j in range(2)
            ],
        )
    return session_ids


@contextlib.asynccontextmanager
async def pg_schema(database_url: str | None) -> AsyncIterator[Callable[[], AsyncEngine] | None]:
    """On PostgreSQL, a throw-away schema (so the bench never touches the database's own tables)."""
    if not database_url or not database_url.startswith("postgresql"):
        yield None
        return
    schema = f"bench_{uuid.uuid4().hex[:10]}"

    async def run(statement: str) -> None:
        admin = create_engine(database_url)
        async with admin.begin() as conn:
            await conn.execute(text(statement))
        await admin.dispose()

    await run(f'CREATE SCHEMA "{schema}"')
    try:
        yield lambda: create_engine(database_url, search_path=schema)
    finally:
        await run(f'DROP SCHEMA "{schema}" CASCADE')


async def measure(env: BotEnv, n: int, calls: int, rounds: int) -> dict[str, list[float]]:
    """Seed, warm up, then alternate rounds of the bare bot, /session list and /session show."""
    samples: dict[str, list[float]] = {"bare": [], "list": [], "show": []}
    rng = random.Random(4)
    started = time.perf_counter()
    ids = await seed(env, n)
    print(
        f"stored {len(ids)} sessions in {time.perf_counter() - started:.1f} s ({env.database_url.split(':')[0]})"
    )
    member = env.member

    def show() -> Any:
        return env.invoke("session show", {"session": rng.choice(ids)}, member=member)

    def listing() -> Any:
        return env.invoke("session list", member=member)

    for _ in range(20):  # warm-up
        await (await listing()).response()
        await (await show()).response()
    # The stand-in runs in this process and keeps every message and request it saw, so the heap grows
    # with the run; freezing what exists now keeps full collections of that log out of the timings.
    gc.collect()
    gc.freeze()
    per_round = max(1, calls // rounds)
    for _ in range(rounds):
        samples["bare"] += await bare_floor(per_round)
        apply_api_base(env.standin.base_url)  # the bare bot's stand-in reset the global API base
        for _ in range(5):  # re-warm after the other bot's round, as bare_floor warms up its own
            await (await listing()).response()
            await (await show()).response()
        for _ in range(per_round):
            samples["list"].append(await time_invoke(listing))
            samples["show"].append(await time_invoke(show))
    check = await (await listing()).response()
    assert check.embeds, check
    assert "Page 1 of" in check.embeds[0]["footer"]["text"], check.embeds
    return samples


async def main(n: int, calls: int, rounds: int, database_url: str | None) -> None:
    logging.disable(logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        url = database_url or f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
        async with (
            pg_schema(database_url) as engine_factory,
            BotEnv(database_url=url, engine_factory=engine_factory) as env,
        ):
            samples = await measure(env, n, calls, rounds)
    print(line("bare discord.py bot (static text)", samples["bare"]))
    print(line(f"/session list ({n} stored)", samples["list"]))
    print(line(f"/session show ({n} stored)", samples["show"]))
    floor = summary(samples["bare"])
    for name in ("list", "show"):
        s = summary(samples[name])
        verdict = "within" if s["p99"] <= TARGET_P99_MS else "OVER"
        print(
            f"ratio {name}/bare: p50 {s['p50'] / floor['p50']:.2f}x  p99 {s['p99'] / floor['p99']:.2f}x  "
            f"(p99 {s['p99']:.1f} ms: {verdict} the {TARGET_P99_MS:.0f} ms target)"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--n", type=int, default=10_000, help="sessions stored (default 10000, the issue's size)"
    )
    parser.add_argument("--calls", type=int, default=300, help="calls per command (default 300)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--database-url", default=None, help="store (default: a temporary SQLite file)")
    args = parser.parse_args()
    asyncio.run(main(args.n, args.calls, args.rounds, args.database_url))
