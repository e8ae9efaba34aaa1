"""Interaction round trip for /setup show vs a bare discord.py bot, through the local stand-in.

    .venv/bin/python -m bench.roundtrip [--calls 1000] [--rounds 5]

Dispatch (the stand-in sends INTERACTION_CREATE) → first response (the bot's callback arrives), p50/p99.
The two bots run in alternating rounds in the same process, so machine noise hits both alike.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import tempfile
from pathlib import Path

from bench.common import bare_floor, line, summary, time_invoke
from bot.demo.botenv import BotEnv


async def paperclub_round(calls: int, db_url: str) -> list[float]:
    async with BotEnv(database_url=db_url) as env:
        for _ in range(min(20, calls)):
            await (await env.invoke("setup show", member=env.admin)).response()
        return [await time_invoke(lambda: env.invoke("setup show", member=env.admin)) for _ in range(calls)]


async def main(calls: int, rounds: int) -> None:
    logging.disable(logging.WARNING)
    per_round = max(1, calls // rounds)
    bare: list[float] = []
    ours: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
        for _ in range(rounds):
            bare += await bare_floor(per_round)
            ours += await paperclub_round(per_round, url)
    print(line("bare discord.py bot (static text)", bare))
    print(line("paperclub /setup show", ours))
    b, o = summary(bare), summary(ours)
    print(f"ratio paperclub/bare: p50 {o['p50'] / b['p50']:.2f}x  p99 {o['p99'] / b['p99']:.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=1000, help="calls per bot (default 1000)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    args = parser.parse_args()
    asyncio.run(main(args.calls, args.rounds))
