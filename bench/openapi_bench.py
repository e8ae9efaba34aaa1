"""What checking every request against Discord's OpenAPI description costs the stand-in.

    .venv/bin/python -m bench.openapi_bench [--rounds 5] [--repeat 50]

1. Per request: the requests of one run of the demo's tours (every feature, ~70 requests), each checked
   again ``repeat`` times with ``ApiSpec.check`` (match, parameters, body): p50/p99 in µs for a body new
   to the checker (overall and the costliest operations) and for one seen before (remembered outcome),
   against the time the whole round trip takes per request in the same run.
2. End to end: the whole tour with validation on and off (``StandIn(validate_requests=False)``), in
   alternating rounds in one process, so machine noise hits both alike: p50 per tour and the ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import logging
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from multidict import MultiDict

from bench.common import percentile
from bot.demo.botenv import BotEnv
from bot.demo.runner import discover_tours
from bot.demo.stage import Demo
from standin.openapi import load_spec


async def tour(db_url: str, *, validate: bool) -> tuple[float, list[Any]]:
    """One run of every demo tour; its wall time (ms) and the requests it sent."""
    env = BotEnv(database_url=db_url)
    env.standin.validate_requests = validate
    started = time.perf_counter()
    async with env:
        demo = Demo(env, io.StringIO())
        for module in discover_tours():
            await module.tour(demo)
        requests = list(env.standin.requests)
    return (time.perf_counter() - started) * 1000, requests


def check_costs(requests: list[Any], repeat: int, *, remembered: bool) -> dict[str, list[float]]:
    """µs per ``ApiSpec.check`` of each recorded request, by operation: a body seen before
    (``remembered``) or each time anew (the remembered outcomes dropped before every check)."""
    spec = load_spec()
    costs: dict[str, list[float]] = defaultdict(list)
    for record in requests:
        query = MultiDict(record.query)
        found = spec.match(record.method, record.path)
        name = found[0].operation_id if found else "(none)"
        for _ in range(repeat):
            if not remembered:
                spec.forget_bodies()
            started = time.perf_counter()
            spec.check(record.method, record.path, query, record.json, has_body=record.json is not None)
            costs[name].append((time.perf_counter() - started) * 1e6)
    return costs


def fmt(name: str, samples: list[float], unit: str = "µs") -> str:
    return (
        f"{name:<36} n={len(samples):>6}  p50={statistics.median(samples):8.1f} {unit}"
        f"  p99={percentile(samples, 99):8.1f} {unit}"
    )


async def main(rounds: int, repeat: int) -> None:
    logging.disable(logging.WARNING)
    on: list[float] = []
    off: list[float] = []
    requests: list[Any] = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(rounds + 1):  # round 0 warms up (imports, spec load, first validators)
            for validate in (True, False) if i % 2 else (False, True):
                ms, sent = await tour(
                    f"sqlite+aiosqlite:///{Path(tmp) / f'{i}-{validate}.db'}", validate=validate
                )
                if i:
                    (on if validate else off).append(ms)
                requests = sent if validate else requests
    costs = check_costs(requests, repeat, remembered=False)
    every = [c for samples in costs.values() for c in samples]
    seen = [c for samples in check_costs(requests, repeat, remembered=True).values() for c in samples]
    print(f"requests in one tour: {len(requests)} over {len(costs)} operations")
    print(fmt("check, body new", every))
    for name, samples in sorted(costs.items(), key=lambda kv: -statistics.median(kv[1]))[:6]:
        print(fmt(f"  {name}", samples))
    print(fmt("check, body seen before", seen))
    per_request_ms = statistics.median(off) / max(1, len(requests))
    print(f"tour time per request (validation off):        {per_request_ms * 1000:8.1f} µs")
    print(fmt("tour, validation on", on, "ms"))
    print(fmt("tour, validation off", off, "ms"))
    print(
        f"ratio on/off: p50 {statistics.median(on) / statistics.median(off):.3f}x"
        f"  (check p50 {statistics.median(every):.0f} µs = "
        f"{statistics.median(every) / (per_request_ms * 1000) * 100:.1f}% of a request's time)"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5, help="tours per setting (default 5)")
    parser.add_argument("--repeat", type=int, default=50, help="checks per recorded request (default 50)")
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.repeat))
