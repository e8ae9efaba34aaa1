"""A bot's start and close (what every end-to-end test pays) vs a bare discord.py bot's, through the stand-in.

    .venv/bin/python -m bench.startup_bench [--starts 20] [--rounds 3]

paperclub: BotEnv on a copy of a migrated SQLite store (stand-in, paper sources, cogs, jobs at start, command
sync, ready, close). Bare: a fresh stand-in and a one-command discord.py bot. Rounds alternate in one process;
prints wall and CPU p50/p99 per start+close and the ratio paperclub/bare.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import shutil
import tempfile
import time
from pathlib import Path

from bench.common import BareBot, line, summary
from bot.demo.botenv import BotEnv
from bot.demo.running import connected
from db.engine import create_engine
from db.migrate import upgrade_database
from standin.server import StandIn


async def paperclub_start(template: Path, folder: Path, index: int) -> tuple[float, float]:
    """Wall and CPU milliseconds of one BotEnv start and close on a copy of ``template``."""
    store = folder / f"store-{index}.db"
    shutil.copy(template, store)
    wall, cpu = time.perf_counter(), time.process_time()
    env = BotEnv(database_url=f"sqlite+aiosqlite:///{store}")
    await env.start()
    await env.close()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


async def bare_start() -> tuple[float, float]:
    """Wall and CPU milliseconds of a stand-in and a bare bot started, ready and closed."""
    wall, cpu = time.perf_counter(), time.process_time()
    async with StandIn() as standin:
        await standin.create_default_guild()
        async with connected(BareBot(), standin):
            pass
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


async def main(starts: int, rounds: int) -> None:
    logging.disable(logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        template = folder / "template.db"
        engine = create_engine(f"sqlite+aiosqlite:///{template}")
        await upgrade_database(engine)
        await engine.dispose()
        await paperclub_start(template, folder, -1)  # warm-up: the first start imports every module
        await bare_start()
        ours: dict[str, list[float]] = {"wall": [], "cpu": []}
        bare: dict[str, list[float]] = {"wall": [], "cpu": []}
        for round_ in range(rounds):
            for index in range(starts):
                for samples, (wall, cpu) in (
                    (ours, await paperclub_start(template, folder, round_ * starts + index)),
                    (bare, await bare_start()),
                ):
                    samples["wall"].append(wall)
                    samples["cpu"].append(cpu)
    for kind in ("wall", "cpu"):
        print(line(f"paperclub start+close ({kind})", ours[kind]))
        print(line(f"bare bot start+close ({kind})", bare[kind]))
        ratio = summary(ours[kind])["p50"] / summary(bare[kind])["p50"]
        print(f"{'ratio p50 (' + kind + ')':<34} {ratio:.2f}×")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--starts", type=int, default=20, help="starts of each bot per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, alternating the two bots")
    args = parser.parse_args()
    asyncio.run(main(args.starts, args.rounds))
