"""Reminders at scale, through the local stand-in with the real discord.py client and the real clock.

    .venv/bin/python -m bench.reminders_bench [--n 20000] [--burst 1000] [--channels 20]
                                              [--database-url postgresql+asyncpg://…]

1. Start-up with ``--n`` pending reminders stored (the issue's size is 100,000): seconds from building the
   bot to ``on_ready`` and the process's RSS, each start in a fresh process. Baselines in the same run: the
   same start with no reminders stored, and the cost of the rejected design (one APScheduler job per row).
2. ``--burst`` reminders due within one minute across ``--channels`` channels: every one sent once, and how
   late (stand-in receipt − due time, p50/p99/max). Then the same number all due in the same second, against
   the floor of a bare discord.py loop posting as many messages to the same channels.

The stand-in does not emulate Discord's per-channel rate limits (it answers ``remaining: 49``); with real
Discord, discord.py's limiter spaces a channel's messages and the lateness grows by that spacing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert, text
from sqlalchemy.ext.asyncio import AsyncEngine

from bench.common import percentile
from bot.app import build_bot
from bot.clock import Clock
from bot.sandbox.running import connected
from bot.sandbox.server import StandIn
from bot.settings import load_settings
from db.engine import create_engine
from db.migrate import upgrade_database
from db.models.reminders import Reminder

MESSAGES = r"/channels/\d+/messages$"


def rss_mb() -> tuple[float, float]:
    """(current, peak) resident set size of this process in MB."""
    fields = dict(
        line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line
    )
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


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


async def seed(store: Store, rows: list[dict[str, Any]]) -> None:
    engine = store.engine()
    async with engine.begin() as conn:
        for start in range(0, len(rows), 5000):
            await conn.execute(insert(Reminder), rows[start : start + 5000])
    await engine.dispose()


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


async def start_bot(store: Store, standin: StandIn) -> Any:
    settings = load_settings(
        database_url=store.url,
        discord_api_base=standin.base_url,
        discord_token="bench-token",
        log_level="WARNING",
    )
    return build_bot(settings, clock=Clock(), engine=store.engine())


# ---------------------------------------------------------------- 1. start-up (in a child process)


async def child_startup(url: str, schema: str | None, eager: bool) -> dict[str, float]:
    store = Store(None)
    store.url, store.schema = url, schema
    async with StandIn() as standin:
        await standin.create_default_guild()
        rss_before, _ = rss_mb()
        started = time.perf_counter()
        bot = await start_bot(store, standin)
        async with connected(bot, standin):
            ready = time.perf_counter() - started
            rss, peak = rss_mb()
            figures = {"ready_s": ready, "rss_mb": rss, "peak_mb": peak, "rss_base_mb": rss_before}
            if eager:  # the rejected design: one APScheduler job per pending row, built at start-up
                from apscheduler.schedulers.asyncio import AsyncIOScheduler
                from sqlalchemy import select

                t0 = time.perf_counter()
                scheduler = AsyncIOScheduler(timezone=UTC)
                scheduler.start(paused=True)
                async with bot.session_factory() as db:
                    due = (
                        await db.execute(
                            select(Reminder.id, Reminder.next_attempt_at).where(Reminder.status == "pending")
                        )
                    ).all()
                for row_id, when in due:
                    scheduler.add_job(print, "date", run_date=when, id=f"r{row_id}", args=[row_id])
                figures["eager_s"] = time.perf_counter() - t0
                figures["eager_rss_mb"] = rss_mb()[0]
                scheduler.shutdown(wait=False)
    return figures


def run_child(store: Store, eager: bool) -> dict[str, float]:
    command = [sys.executable, "-m", "bench.reminders_bench", "--child-startup", store.url]
    command += ["--schema", store.schema or "", "--eager" if eager else "--lazy"]
    out = subprocess.run(
        command, check=True, capture_output=True, text=True, cwd=Path(__file__).parent.parent
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


async def bench_startup(n: int, url: str | None) -> None:
    print(f"\n== start-up with pending reminders stored ({'PostgreSQL' if url else 'SQLite'}) ==")
    empty, full = Store(url), Store(url)
    await empty.create()
    await full.create()
    try:
        now = datetime.now(UTC)
        span = timedelta(days=700).total_seconds()
        t0 = time.perf_counter()
        await seed(
            full,
            [reminder_row(1, 2 + i % 50, now + timedelta(seconds=600 + span * i / n), i) for i in range(n)],
        )
        print(f"seeded {n:,} pending reminders in {time.perf_counter() - t0:.1f} s")
        base = run_child(empty, eager=False)
        loaded = run_child(full, eager=True)
        again = run_child(empty, eager=False)
        baseline = min(base["ready_s"], again["ready_s"])
        print(f"{'no reminders (baseline)':<36} ready {baseline:6.2f} s   RSS {base['rss_mb']:6.1f} MB")
        print(
            f"{f'{n:,} pending (this design)':<36} ready {loaded['ready_s']:6.2f} s   RSS {loaded['rss_mb']:6.1f} MB"
            f"   (peak {loaded['peak_mb']:.1f} MB)   ratio {loaded['ready_s'] / baseline:.2f}x"
        )
        print(
            f"{'+ one APScheduler job per row':<36} build {loaded['eager_s']:6.2f} s   "
            f"RSS {loaded['eager_rss_mb']:6.1f} MB   (the rejected design, on top of start-up)"
        )
        verdict = loaded["ready_s"] < 5 and loaded["rss_mb"] < 300
        print(f"target: ready < 5 s and RSS < 300 MB → {'met' if verdict else 'NOT met'}")
    finally:
        await empty.drop()
        await full.drop()


# ---------------------------------------------------------------- 2. a burst of due reminders


async def burst_round(url: str | None, count: int, channels: int, spread_s: float) -> dict[str, Any]:
    store = Store(url)
    await store.create()
    try:
        async with StandIn() as standin:
            world = await standin.create_default_guild()
            targets = [await standin.create_channel(world.guild, f"bench-{i}") for i in range(channels)]
            lead = 8.0  # seconds for the bot to start before the first one falls due
            first_due = datetime.now(UTC) + timedelta(seconds=lead)
            rows = [
                reminder_row(
                    world.guild.id,
                    targets[i % channels].id,
                    first_due + timedelta(seconds=spread_s * i / count),
                    i,
                )
                for i in range(count)
            ]
            await seed(store, rows)
            due_by_nonce = {f"pc-rem-{i + 1}-0": row["due_at"].timestamp() for i, row in enumerate(rows)}
            bot = await start_bot(store, standin)
            async with connected(bot, standin):
                deadline = time.monotonic() + lead + spread_s + 120
                while time.monotonic() < deadline:
                    ok = [r for r in standin.requests_to("POST", MESSAGES) if r.status == 200]
                    if len(ok) >= count:
                        break
                    await asyncio.sleep(0.2)
                await asyncio.sleep(1.0)  # anything extra (a double) would show up now
                posts = [r for r in standin.requests_to("POST", MESSAGES) if r.status == 200]
                per_nonce = Counter(r.json.get("nonce") for r in posts)
                posted = sum(len(standin.messages_in(c)) for c in targets)
                late = [
                    (r.time - due_by_nonce[r.json["nonce"]]) * 1000
                    for r in posts
                    if r.json.get("nonce") in due_by_nonce
                ]
                times = sorted(r.time for r in posts)
            return {
                "sent": len(per_nonce),
                "messages": posted,
                "doubles": sum(1 for n in per_nonce.values() if n > 1),
                "late_ms": late,
                "drain_s": (times[-1] - min(due_by_nonce.values())) if times else float("nan"),
            }
    finally:
        await store.drop()


async def bare_burst(count: int, channels: int) -> float:
    """The floor: a bare discord.py client posting ``count`` messages to ``channels`` channels at once."""
    import discord

    async with StandIn() as standin:
        world = await standin.create_default_guild()
        targets = [await standin.create_channel(world.guild, f"bench-{i}") for i in range(channels)]
        client = discord.Client(intents=discord.Intents.none())
        async with connected(client, standin):
            limit = asyncio.Semaphore(50)
            locks = {c.id: asyncio.Lock() for c in targets}

            async def post(i: int) -> None:
                channel = targets[i % channels]
                async with locks[channel.id], limit:
                    await client.get_partial_messageable(channel.id).send(f"Bench {i}", nonce=f"bare-{i}")

            started = time.perf_counter()
            await asyncio.gather(*(post(i) for i in range(count)))
            return time.perf_counter() - started


def report(name: str, figures: dict[str, Any], count: int) -> None:
    late = figures["late_ms"]
    print(
        f"{name:<30} sent {figures['sent']:>5}/{count} (messages {figures['messages']}, doubles {figures['doubles']})"
        f"  late p50 {percentile(late, 50):7.0f} ms  p99 {percentile(late, 99):7.0f} ms  max {max(late):7.0f} ms"
        f"  drained {figures['drain_s']:.2f} s after the first was due"
    )


async def bench_burst(count: int, channels: int, url: str | None) -> None:
    print(f"\n== {count:,} reminders across {channels} channels ({'PostgreSQL' if url else 'SQLite'}) ==")
    spread = await burst_round(url, count, channels, spread_s=60.0)
    report("due within one minute", spread, count)
    same = await burst_round(url, count, channels, spread_s=0.0)
    report("all due in the same second", same, count)
    floor = await bare_burst(count, channels)
    print(
        f"{'bare discord.py, same sends':<30} drained in {floor:.2f} s   "
        f"→ the runner's drain is {same['drain_s'] / floor:.2f}x the floor (claim + record per reminder)"
    )
    ok = spread["sent"] == count == same["sent"] and not spread["doubles"] and not same["doubles"]
    print(
        f"every reminder sent exactly once: {'yes' if ok else 'NO'};  "
        f"p99 within 2 s (one minute spread): {'yes' if percentile(spread['late_ms'], 99) <= 2000 else 'NO'}"
    )


async def main(args: argparse.Namespace) -> None:
    logging.basicConfig(level=logging.ERROR)
    if not args.skip_startup:
        await bench_startup(args.n, args.database_url)
    if not args.skip_burst:
        await bench_burst(args.burst, args.channels, args.database_url)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--n", type=int, default=20_000, help="pending reminders stored for start-up (issue: 100000)"
    )
    parser.add_argument("--burst", type=int, default=1000, help="reminders falling due together")
    parser.add_argument("--channels", type=int, default=20)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL"), help="PostgreSQL URL")
    parser.add_argument("--skip-startup", action="store_true")
    parser.add_argument("--skip-burst", action="store_true")
    parser.add_argument("--child-startup", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--schema", default="", help=argparse.SUPPRESS)
    parser.add_argument("--eager", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--lazy", action="store_true", help=argparse.SUPPRESS)
    parsed = parser.parse_args()
    if parsed.child_startup:
        logging.basicConfig(level=logging.ERROR)
        result = asyncio.run(child_startup(parsed.child_startup, parsed.schema or None, parsed.eager))
        print(json.dumps(result))
    else:
        asyncio.run(main(parsed))
