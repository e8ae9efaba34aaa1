"""Helpers shared by the benchmarks: percentiles, a bare discord.py bot as the floor, timing an invoke.

Every bench prints its figures; none is a timed test. The machine is shared and noisy, so benches
measure their baseline in the same run (and interleave rounds) and report ratios.
"""

from __future__ import annotations

import contextlib
import cProfile
import gc
import statistics
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import discord
from discord import app_commands

from bot.demo.running import connected
from standin.server import StandIn


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    if not ordered:
        return float("nan")
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def summary(samples_ms: list[float]) -> dict[str, float]:
    return {
        "n": len(samples_ms),
        "p50": statistics.median(samples_ms),
        "p99": percentile(samples_ms, 99),
        "max": max(samples_ms),
    }


def line(name: str, samples_ms: list[float]) -> str:
    s = summary(samples_ms)
    return (
        f"{name:<34} n={s['n']:>5.0f}  p50={s['p50']:7.2f} ms  p99={s['p99']:7.2f} ms  max={s['max']:7.2f} ms"
    )


async def time_invoke(invoke: Callable[[], Awaitable[Any]]) -> float:
    """Milliseconds from dispatching an interaction to its first response arriving at the stand-in."""
    started = time.perf_counter()
    result = await invoke()
    await result.response()
    return (time.perf_counter() - started) * 1000


@contextlib.contextmanager
def steady_heap() -> Iterator[None]:
    """Around timed calls: the heap so far (start-up's, and earlier rounds' garbage) collected and frozen,
    so a collection inside the timed calls scans only what they made, as in a long-running process whose
    start-up heap was frozen once (gc.freeze); unfrozen after. Without it a round's generation-1 and
    generation-2 collections (6-13 ms and 70-250 ms here) land inside the timed calls, and they grow with
    whatever else the benchmark process has built."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


class BareBot(discord.Client):
    """The floor: a bare discord.py bot whose one command answers a static text."""

    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.none())
        self.tree = app_commands.CommandTree(self)

        @self.tree.command(name="ping", description="Static reply")
        async def ping(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("pong", ephemeral=True)

    async def setup_hook(self) -> None:
        await self.tree.sync()


async def bare_floor(
    calls: int, *, steady: bool = False, profiler: cProfile.Profile | None = None
) -> list[float]:
    """Round trips of the bare bot's static reply through a fresh stand-in, in ms (``steady``: timed inside
    :func:`steady_heap`; ``profiler``: enabled around the timed calls)."""
    async with StandIn() as standin:
        world = await standin.create_default_guild()
        async with connected(BareBot(), standin):
            for _ in range(min(20, calls)):  # warm-up
                await (await standin.invoke("ping", member=world.organizer)).response()
            with steady_heap() if steady else contextlib.nullcontext():
                if profiler is not None:
                    profiler.enable()  # inside: steady_heap's own collection is not profiled
                try:
                    return [
                        await time_invoke(lambda: standin.invoke("ping", member=world.organizer))
                        for _ in range(calls)
                    ]
                finally:
                    if profiler is not None:
                        profiler.disable()
