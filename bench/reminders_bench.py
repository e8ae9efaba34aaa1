"""A burst of reminders under Discord's global limit, through the stand-in with the real discord.py client.

    .venv/bin/python -m bench.reminders_bench [--burst 1000] [--global-limit 50] [--probe-every 0.1]
                                              [--database-url postgresql+asyncpg://…]

``--burst`` reminders fall due in the same second, one each in as many channels ("everyone picks 9:00"),
with the stand-in emulating Discord's global limit (``--global-limit`` requests per second per bot; a 429
past it holds every request of the bot). The bot paces its sends under the limit it knows. Baseline in the
same run: a bare discord.py client posting the same messages unpaced under the same limit. Meanwhile an
organizer runs ``/remind list`` every ``--probe-every`` seconds; its first response is timed during the
burst and, as the baseline, while nothing is due.

Targets: drained at ≥ 90% of the limit ((reminders − 1) ÷ seconds from their due time to the last post),
0 429s, each reminder sent once; ``/remind list`` first response p99 < 250 ms during the burst.

The burst runs with the heap collected and frozen first (``gc.freeze``, as a long-running process does after
start-up): this one process holds the stand-in, the bot and their start-up garbage, and a full collection
of all of it inside one round but not the other would decide the comparison.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import logging
import os
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import insert, text
from sqlalchemy.ext.asyncio import AsyncEngine

from bench.common import line, percentile
from bot.client import build_bot
from bot.clock import SystemClock
from bot.demo.running import connected
from bot.permissions import REQUIRED_PERMISSIONS
from bot.settings import load_settings
from cogs.reminders import _transport as transport
from db.engine import create_engine
from db.migrate import upgrade_database
from db.models.reminders import Reminder
from standin.ratelimits import Limit
from standin.server import StandIn

MESSAGES = r"/channels/\d+/messages$"
LEAD = 8.0  # seconds from seeding to the due time: the bot starts, then the idle probes run


@contextlib.contextmanager
def steady_heap() -> Iterator[None]:
    """Collect and freeze what exists, so a burst pays only for collecting its own garbage."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


class Store:
    """A fresh store: a SQLite file, or a new schema in the PostgreSQL database given."""

    def __init__(self, url: str | None) -> None:
        self.schema = f"bench_{uuid.uuid4().hex[:10]}" if url else None
        self.url = url or f"sqlite+aiosqlite:///{tempfile.mkdtemp()}/bench.db"

    def engine(self) -> AsyncEngine:
        return create_engine(self.url, search_path=self.schema)

    async def create(self) -> None:
        if self.schema:
            admin = create_engine(self.url)
            async with admin.begin() as conn:
                await conn.execute(text(f'CREATE SCHEMA "{self.schema}"'))
            await admin.dispose()
        engine = self.engine()
        await upgrade_database(engine)
        await engine.dispose()

    async def drop(self) -> None:
        if self.schema:
            admin = create_engine(self.url)
            async with admin.begin() as conn:
                await conn.execute(text(f'DROP SCHEMA "{self.schema}" CASCADE'))
            await admin.dispose()


def reminder_row(guild_id: int, channel_id: int, due: datetime, index: int) -> dict[str, Any]:
    return {
        "guild_id": guild_id,
        "kind": "custom",
        "channel_id": channel_id,
        "message": f"Bench reminder {index}",
        "due_at": due,
        "next_attempt_at": due,
        "status": "pending",
        "attempts": 0,
        "occurrence": 0,
        "delayed": False,
        "created_at": due,
        "updated_at": due,
    }


async def probe(standin: StandIn, member: Any, channel: Any, until: float, every: float) -> list[float]:
    """``/remind list`` every ``every`` s until ``until`` (monotonic): each first response, in ms."""
    samples: list[float] = []
    while time.monotonic() < until:
        started = time.perf_counter()
        with contextlib.suppress(TimeoutError):  # unanswered: Discord would have shown "did not respond"
            await (await standin.invoke("remind list", member=member, channel=channel)).response(timeout=10)
        samples.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(every)
    return samples


async def bot_burst(url: str | None, count: int, limit: Limit, probe_every: float) -> dict[str, Any]:
    """The burst through the bot, pacing itself under ``limit``; the probes before and during it."""
    store = Store(url)
    await store.create()
    saved = transport.GLOBAL_REQUESTS_PER_SECOND
    transport.GLOBAL_REQUESTS_PER_SECOND = int(limit[0] / limit[1])
    try:
        async with StandIn(bot_permissions=REQUIRED_PERMISSIONS.value) as standin:
            world = await standin.create_default_guild()
            targets = [await standin.create_channel(world.guild, f"bench-{i}") for i in range(count)]
            due = datetime.now(UTC) + timedelta(seconds=LEAD)
            rows = [reminder_row(world.guild.id, targets[i].id, due, i) for i in range(count)]
            engine = store.engine()
            async with engine.begin() as conn:
                for start in range(0, count, 5000):
                    await conn.execute(insert(Reminder), rows[start : start + 5000])
            await engine.dispose()
            settings = load_settings(
                database_url=store.url,
                discord_api_base=standin.base_url,
                discord_token="bench-token",
                log_level="WARNING",
            )
            bot = build_bot(settings, clock=SystemClock(), engine=store.engine())
            async with connected(bot, standin):
                due_at = time.monotonic() + (due - datetime.now(UTC)).total_seconds()
                # the global limit counts from here: the bot's start-up requests are not part of the burst
                standin.global_limit = limit
                idle = await probe(standin, world.organizer, world.general, due_at - 0.5, probe_every)
                with steady_heap():
                    await asyncio.sleep(max(due_at - time.monotonic(), 0.0))
                    drained = asyncio.Event()

                    async def watch() -> None:
                        deadline = time.monotonic() + count / (limit[0] / limit[1]) * 3 + 60
                        while time.monotonic() < deadline:
                            ok = [r for r in standin.requests_to("POST", MESSAGES) if r.status == 200]
                            if len(ok) >= count:
                                break
                            await asyncio.sleep(0.1)
                        drained.set()

                    watcher = asyncio.create_task(watch())
                    during: list[float] = []
                    while not drained.is_set():
                        during += await probe(
                            standin, world.organizer, world.general, time.monotonic() + 1, probe_every
                        )
                    await watcher
                    await asyncio.sleep(1.0)  # anything extra (a double) would show up now
            posts = [r for r in standin.requests_to("POST", MESSAGES) if r.status == 200]
            per_nonce = Counter(r.json.get("nonce") for r in posts)
            times = sorted(r.time for r in posts)
            first_due = due.timestamp()
            return {
                "sent": len(per_nonce),
                "messages": sum(len(standin.messages_in(c)) for c in targets),
                "doubles": sum(1 for n in per_nonce.values() if n > 1),
                "late_ms": [(t - first_due) * 1000 for t in times],
                "drain_s": times[-1] - first_due if times else float("nan"),
                "limited": sum(1 for r in standin.requests if r.status == 429),
                "idle_ms": idle,
                "during_ms": during,
            }
    finally:
        transport.GLOBAL_REQUESTS_PER_SECOND = saved
        await store.drop()


async def bare_burst(count: int, limit: Limit) -> dict[str, Any]:
    """The baseline: a bare discord.py client posting ``count`` messages to as many channels at once,
    unpaced (50 in flight), discord.py waiting out every 429."""
    import discord

    async with StandIn() as standin:
        world = await standin.create_default_guild()
        targets = [await standin.create_channel(world.guild, f"bench-{i}") for i in range(count)]
        client = discord.Client(intents=discord.Intents.none())
        async with connected(client, standin):
            in_flight = asyncio.Semaphore(50)

            async def post(i: int) -> None:
                async with in_flight:
                    while (
                        True
                    ):  # discord.py gives up after five 429s in a row; the baseline waits them all out
                        try:
                            channel = client.get_partial_messageable(targets[i].id)
                            await channel.send(f"Bench {i}", nonce=f"bare-{i}")
                            return
                        except discord.HTTPException as error:
                            if error.status != 429:
                                raise

            standin.global_limit = limit
            with steady_heap():
                started = time.time()
                await asyncio.gather(*(post(i) for i in range(count)))
        posts = [r for r in standin.requests_to("POST", MESSAGES) if r.status == 200]
        return {
            "sent": len({r.json.get("nonce") for r in posts}),
            "drain_s": max(r.time for r in posts) - started,
            "limited": sum(1 for r in standin.requests if r.status == 429),
        }


async def main(args: argparse.Namespace) -> None:
    logging.basicConfig(level=logging.ERROR)
    count, per_s = args.burst, float(args.global_limit)
    limit: Limit = (args.global_limit, 1.0)
    store = "PostgreSQL" if args.database_url else "SQLite"
    print(
        f"== {count:,} reminders due in the same second across {count:,} channels ({store}); "
        f"Discord's global limit emulated: {per_s:g} requests/s =="
    )
    bare = await bare_burst(count, limit)
    bot = await bot_burst(args.database_url, count, limit, args.probe_every)
    forced = (count - 1) / per_s
    bare_rate = (count - 1) / bare["drain_s"]
    rate = (count - 1) / bot["drain_s"]
    once = bot["sent"] == count == bot["messages"] and not bot["doubles"]
    print(
        f"{'bare discord.py (not pacing)':<32} drained in {bare['drain_s']:6.2f} s  "
        f"({bare_rate:5.1f} posts/s = {bare_rate / per_s:4.0%} of the limit)  429s: {bare['limited']}"
    )
    print(
        f"{'the bot (pacing itself)':<32} drained in {bot['drain_s']:6.2f} s  "
        f"({rate:5.1f} posts/s = {rate / per_s:4.0%} of the limit)  429s: {bot['limited']}  "
        f"sent exactly once: {'yes' if once else 'NO'} ({bot['sent']}/{count}, {bot['doubles']} doubles)"
    )
    print(
        f"{'  the limit alone forces':<32} {forced:6.2f} s;  the bot / the bare client: "
        f"{bot['drain_s'] / bare['drain_s']:.2f}x the drain"
    )
    print("  " + line("lateness (post − due)", bot["late_ms"]))
    idle, during = bot["idle_ms"], bot["during_ms"]
    print("/remind list, first response")
    print("  " + line("nothing due (baseline)", idle))
    print("  " + line("during the burst", during))
    print(f"  → p99 during / p99 idle: {percentile(during, 99) / percentile(idle, 99):.2f}x")
    verdicts = {
        "drained at ≥ 90% of the limit": rate / per_s >= 0.9,
        "0 429s": bot["limited"] == 0,
        "each sent once": once,
        "/remind list first response p99 < 250 ms": percentile(during, 99) < 250,
    }
    for name, ok in verdicts.items():
        print(f"target {name}: {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--burst", type=int, default=1000, help="reminders due in the same second")
    parser.add_argument(
        "--global-limit", type=int, default=50, help="requests per second per bot (Discord: 50)"
    )
    parser.add_argument("--probe-every", type=float, default=0.1, help="seconds between /remind list probes")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL"), help="PostgreSQL URL")
    asyncio.run(main(parser.parse_args()))
