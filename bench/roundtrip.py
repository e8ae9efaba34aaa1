"""Interaction round trip for /setup show vs a bare discord.py bot, through the local stand-in.

    .venv/bin/python -m bench.roundtrip [--calls 1000] [--rounds 5] [--database-url URL] [--profile N]
                                        [--unfrozen]

Dispatch (the stand-in sends INTERACTION_CREATE) → first response (the bot's callback arrives), p50/p99,
and the ratio paperclub/bare. Target: paperclub's p99 at most 3× the bare bot's. /setup show reads the
store at every call (one statement). The two bots run in alternating rounds in the same process, so machine noise
hits both alike. ``--profile N`` runs cProfile over paperclub's timed calls (not its start-up) and prints
the N functions with the most time of their own, then the N with the most time under them (``-1`` to
skip). ``--database-url`` measures another store (e.g. PostgreSQL; default a fresh SQLite file); each
round starts on an empty schema there.

Each bot's timed calls run in ``bench.common.steady_heap`` (the heap collected and frozen first, as a
long-running process would have frozen its start-up heap): otherwise the collections of the earlier rounds'
garbage land inside the timed calls. ``--unfrozen`` measures without it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import io
import logging
import pstats
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import bare_floor, line, steady_heap, summary
from bot.demo.botenv import BotEnv

TARGET_RATIO = 3.0  # /setup show's p99 at most this many times the bare bot's


async def timed_calls(env: BotEnv, calls: int) -> list[float]:
    samples: list[float] = []
    for _ in range(calls):
        started = time.perf_counter()
        await (await env.invoke("setup show", member=env.admin)).response()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


async def paperclub_round(
    calls: int,
    db_url: str,
    profiler: cProfile.Profile | None = None,
    *,
    steady: bool = True,
) -> list[float]:
    async with BotEnv(database_url=db_url) as env:
        for _ in range(min(20, calls)):
            await (await env.invoke("setup show", member=env.admin)).response()
        with steady_heap() if steady else contextlib.nullcontext():
            if profiler is not None:
                profiler.enable()  # inside: steady_heap's own collection is not profiled
            try:
                return await timed_calls(env, calls)
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


def _where(key: tuple[str, int, str]) -> str:
    path, lineno, name = key
    for cut in ("site-packages/", "/lib/python3.", "/setupfast/"):
        if cut in path:
            path = path.split(cut, 1)[1]
    return f"{path}:{lineno}({name})" if lineno else name


def print_extra(
    ours: cProfile.Profile, bare: cProfile.Profile, calls_ours: int, calls_bare: int, top: int
) -> None:
    """Own time per call, paperclub minus the bare bot, by function: where the extra time goes."""
    mine: dict[Any, Any] = pstats.Stats(ours).stats  # type: ignore[attr-defined]
    floor: dict[Any, Any] = pstats.Stats(bare).stats  # type: ignore[attr-defined]
    per_ours = {k: v[2] / calls_ours * 1e6 for k, v in mine.items()}
    per_bare = {k: v[2] / calls_bare * 1e6 for k, v in floor.items()}
    rows = sorted(
        ((per_ours.get(k, 0.0) - per_bare.get(k, 0.0), k) for k in per_ours.keys() | per_bare.keys()),
        reverse=True,
    )
    print(
        f"--- own time per call (µs, under cProfile): paperclub {sum(per_ours.values()):.0f}, "
        f"bare {sum(per_bare.values()):.0f}; the {top} functions with the most extra ---"
    )
    print(f"{'extra':>8} {'ours':>8} {'bare':>8}  function")
    for extra, key in rows[:top]:
        print(f"{extra:8.1f} {per_ours.get(key, 0.0):8.1f} {per_bare.get(key, 0.0):8.1f}  {_where(key)}")


async def main(calls: int, rounds: int, db_url: str | None, profile: int, steady: bool) -> None:
    logging.disable(logging.WARNING)
    per_round = max(1, calls // rounds)
    bare: list[float] = []
    ours: list[float] = []
    profiler = cProfile.Profile() if profile > 0 else None
    floor_profiler = cProfile.Profile() if profile > 0 else None
    with tempfile.TemporaryDirectory() as tmp:
        url = db_url or f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
        for _ in range(rounds):
            bare += await bare_floor(per_round, steady=steady, profiler=floor_profiler)
            ours += await paperclub_round(per_round, url, profiler, steady=steady)
    print(line("bare discord.py bot (static text)", bare))
    print(line("paperclub /setup show", ours))
    b, o = summary(bare), summary(ours)
    ratio = o["p99"] / b["p99"]
    print(f"ratio paperclub/bare: p50 {o['p50'] / b['p50']:.2f}x  p99 {ratio:.2f}x")
    print(f"heap {'frozen before' if steady else 'not frozen for'} the timed calls")
    print(
        f"target: p99 at most {TARGET_RATIO:g}x the bare bot's: {'met' if ratio <= TARGET_RATIO else 'MISSED'}"
    )
    if profiler is not None and floor_profiler is not None:
        print("(profiled: the figures include cProfile's overhead)")
        print_extra(profiler, floor_profiler, len(ours), len(bare), profile)
        print_profile(profiler, profile)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=1000, help="calls per bot (default 1000)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument("--database-url", default=None, help="the store (default: a fresh SQLite file)")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="print cProfile's top N")
    parser.add_argument("--unfrozen", action="store_true", help="time without steady_heap (gc.freeze)")
    args = parser.parse_args()
    asyncio.run(main(args.calls, args.rounds, args.database_url, args.profile, not args.unfrozen))
