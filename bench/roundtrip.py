"""Interaction round trip for /setup show vs a bare discord.py bot, through the local stand-in.

    .venv/bin/python -m bench.roundtrip [--calls 1000] [--rounds 5] [--database-url URL] [--profile N]

Dispatch (the stand-in sends INTERACTION_CREATE) → first response (the bot's callback arrives), p50/p99,
and the ratio paperclub/bare. The two bots run in alternating rounds in the same process, so machine noise
hits both alike. ``--profile N`` runs cProfile over paperclub's timed calls (not its start-up) and prints
the N functions with the most time of their own, then the N with the most time under them (``-1`` to
skip). ``--database-url`` measures another store (e.g. PostgreSQL; default a fresh SQLite file); each
round starts on an empty schema there.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import logging
import pstats
import tempfile
from pathlib import Path

from bench.common import bare_floor, line, summary, time_invoke
from bot.demo.botenv import BotEnv


async def paperclub_round(calls: int, db_url: str, profiler: cProfile.Profile | None = None) -> list[float]:
    async with BotEnv(database_url=db_url) as env:
        for _ in range(min(20, calls)):
            await (await env.invoke("setup show", member=env.admin)).response()
        if profiler is not None:
            profiler.enable()
        try:
            return [
                await time_invoke(lambda: env.invoke("setup show", member=env.admin)) for _ in range(calls)
            ]
        finally:
            if profiler is not None:
                profiler.disable()


def print_profile(profiler: cProfile.Profile, top: int) -> None:
    for order in ("tottime", "cumulative"):
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out)
        stats.sort_stats(order).print_stats(top)
        print(f"--- profile of paperclub's timed calls, by {order} (coroutines count each resumption) ---")
        print(out.getvalue().split("\n\n", 2)[-1].rstrip())  # without the header lines


async def main(calls: int, rounds: int, db_url: str | None, profile: int) -> None:
    logging.disable(logging.WARNING)
    per_round = max(1, calls // rounds)
    bare: list[float] = []
    ours: list[float] = []
    profiler = cProfile.Profile() if profile > 0 else None
    with tempfile.TemporaryDirectory() as tmp:
        url = db_url or f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
        for _ in range(rounds):
            bare += await bare_floor(per_round)
            ours += await paperclub_round(per_round, url, profiler)
    print(line("bare discord.py bot (static text)", bare))
    print(line("paperclub /setup show", ours))
    b, o = summary(bare), summary(ours)
    print(f"ratio paperclub/bare: p50 {o['p50'] / b['p50']:.2f}x  p99 {o['p99'] / b['p99']:.2f}x")
    if profiler is not None:
        print("(profiled: paperclub's figures include cProfile's overhead)")
        print_profile(profiler, profile)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=1000, help="calls per bot (default 1000)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument("--database-url", default=None, help="the store (default: a fresh SQLite file)")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="print cProfile's top N")
    args = parser.parse_args()
    asyncio.run(main(args.calls, args.rounds, args.database_url, args.profile))
