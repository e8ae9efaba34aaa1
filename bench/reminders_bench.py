"""Reminders at scale, through the local stand-in with the real discord.py client and the real clock.

    .venv/bin/python -m bench.reminders_bench [--n 20000] [--burst 1000] [--channels 20]
                                              [--channel-limit 5/5|off] [--wide 1000] [--global-limit 50|off]
                                              [--database-url postgresql+asyncpg://…]

1. Start-up with ``--n`` pending reminders stored (the issue's size is 100,000): seconds from building the
   bot to ``on_ready`` and the process's RSS, each start in a fresh process. Baselines in the same run: the
   same start with no reminders stored, and the cost of the rejected design (one APScheduler job per row).
2. ``--burst`` reminders due within one minute across ``--channels`` channels: every one sent once, and how
   late (stand-in receipt − due time, p50/p99/max). Then the same number all due in the same second, against
   the floor of a bare discord.py loop posting as many messages to the same channels.

3. With ``--channel-limit N/S`` (default 5/5, Discord's usual limit on posting in a channel; ``off`` skips
   this part): the same two bursts with the stand-in emulating that per-channel limit (rate-limit headers
   that discord.py's limiter paces itself by, a 429 past the limit). Printed: every reminder sent exactly
   once, how many 429s the stand-in answered, the lateness, and the lateness the limit alone forces — a
   zero-latency client sending each channel's reminders in order, each as early as the limit allows — and
   what the bot adds beyond that, reminder by reminder.

4. ``--wide`` (default 1000; 0 skips it): ``--burst`` reminders all due in the same second across that many
   channels, one each ("everyone picks 9:00"), against a bare discord.py client posting the same messages
   (50 at a time), in the same run: with no limit (the bot not pacing itself), and with the stand-in
   emulating Discord's global limit (``--global-limit``, 50 requests per second per bot token), the bot
   pacing itself under the 50/s it knows (bot.services.reminders.pacing) and the bare client unpaced.
   Printed: the drain (first due to last post), the rate reached against the limit, and the 429s.

Each burst (the bot's and the bare client's) runs with the heap collected and frozen first (``gc.collect()``,
``gc.freeze()``, as a long-running process does after start-up): this one process holds the stand-in, the bot,
alembic and their start-up garbage, and a full collection of all of it falling inside one burst but not the
other (100-250 ms on this machine) would decide the comparison.

Parts 1 and 2 run with the stand-in's default generous headers (``remaining: 49``, never limited). In parts 2
and 3 the stand-in emulates no global limit and the bot does not pace itself under one (as a bot granted a
higher limit); part 4 runs both ways.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert, text
from sqlalchemy.ext.asyncio import AsyncEngine

from bench.common import percentile
from bot.app import build_bot
from bot.clock import SystemClock
from bot.demo.running import connected
from bot.permissions import REQUIRED_PERMISSIONS
from bot.services.reminders import pacing
from bot.settings import load_settings
from db.engine import create_engine
from db.migrate import upgrade_database
from db.models.reminders import Reminder
from standin.ratelimits import Limit
from standin.server import StandIn

MESSAGES = r"/channels/\d+/messages$"


@contextlib.contextmanager
def steady_heap() -> Iterator[None]:
    """Collect and freeze what exists, so a burst pays only for collecting its own garbage."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


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
    return build_bot(settings, clock=SystemClock(), engine=store.engine())


# ---------------------------------------------------------------- 1. start-up (in a child process)


async def child_startup(url: str, schema: str | None, eager: bool) -> dict[str, float]:
    store = Store(None)
    store.url, store.schema = url, schema
    async with StandIn(bot_permissions=REQUIRED_PERMISSIONS.value) as standin:
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


def limit_floor(due_by_channel: dict[int, list[tuple[str, float]]], limit: Limit) -> dict[str, float]:
    """Seconds each reminder is late by the rate limit alone: per channel, in due order, each sent at its due
    time or as soon as the stand-in's window (``limit[0]`` per ``limit[1]`` s from the window's first
    request) lets it, with no other delay. Keyed by nonce."""
    count, per = limit
    floor: dict[str, float] = {}
    for due in due_by_channel.values():
        window_end, used, previous = float("-inf"), 0, float("-inf")
        for nonce, at in sorted(due, key=lambda item: item[1]):
            sent = max(at, previous)
            if sent >= window_end:
                window_end, used = sent + per, 0
            elif used >= count:
                sent, window_end, used = window_end, window_end + per, 0
            used += 1
            floor[nonce], previous = sent - at, sent
    return floor


async def burst_round(
    url: str | None,
    count: int,
    channels: int,
    spread_s: float,
    channel_limit: Limit | None = None,
    *,
    global_limit: Limit | None = None,
    pace: int = 0,
) -> dict[str, Any]:
    """One burst through the bot. ``global_limit``: the stand-in's global limit; ``pace``: the global limit
    the bot paces its sends under (0: none)."""
    store = Store(url)
    await store.create()
    saved_pace = pacing.GLOBAL_REQUESTS_PER_SECOND
    pacing.GLOBAL_REQUESTS_PER_SECOND = pace
    try:
        async with StandIn(bot_permissions=REQUIRED_PERMISSIONS.value) as standin:
            standin.channel_message_limit = channel_limit
            standin.global_limit = global_limit
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
            due_by_channel: dict[int, list[tuple[str, float]]] = {}
            for i, row in enumerate(rows):
                due_by_channel.setdefault(row["channel_id"], []).append(
                    (f"pc-rem-{i + 1}-0", row["due_at"].timestamp())
                )
            bot = await start_bot(store, standin)
            async with connected(bot, standin):
                with steady_heap():
                    forced = (
                        max(limit_floor(due_by_channel, channel_limit).values()) if channel_limit else 0.0
                    )
                    deadline = time.monotonic() + lead + spread_s + forced + 120
                    while time.monotonic() < deadline:
                        ok = [r for r in standin.requests_to("POST", MESSAGES) if r.status == 200]
                        if len(ok) >= count:
                            break
                        await asyncio.sleep(0.2)
                    await asyncio.sleep(1.0)  # anything extra (a double) would show up now
                    posts = [r for r in standin.requests_to("POST", MESSAGES) if r.status == 200]
                    per_nonce = Counter(r.json.get("nonce") for r in posts)
                    posted = sum(len(standin.messages_in(c)) for c in targets)
                    late_by_nonce = {
                        r.json["nonce"]: (r.time - due_by_nonce[r.json["nonce"]]) * 1000
                        for r in posts
                        if r.json.get("nonce") in due_by_nonce
                    }
                    times = sorted(r.time for r in posts)
                    limited = sum(1 for r in standin.requests_to("POST", MESSAGES) if r.status == 429)
                    limited_any = sum(1 for r in standin.requests if r.status == 429)
            floor_ms = (
                {n: s * 1000 for n, s in limit_floor(due_by_channel, channel_limit).items()}
                if channel_limit
                else {}
            )
            return {
                "sent": len(per_nonce),
                "messages": posted,
                "doubles": sum(1 for n in per_nonce.values() if n > 1),
                "late_ms": list(late_by_nonce.values()),
                "drain_s": (times[-1] - min(due_by_nonce.values())) if times else float("nan"),
                "rate_limited": limited,
                "rate_limited_any": limited_any,
                "rate": (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 else float("nan"),
                "floor_ms": list(floor_ms.values()),
                "excess_ms": [late - floor_ms[n] for n, late in late_by_nonce.items() if n in floor_ms],
            }
    finally:
        pacing.GLOBAL_REQUESTS_PER_SECOND = saved_pace
        await store.drop()


async def bare_burst(count: int, channels: int, global_limit: Limit | None = None) -> float:
    """The floor: a bare discord.py client posting ``count`` messages to ``channels`` channels at once."""
    return (await bare_burst_figures(count, channels, global_limit))["drain_s"]


async def bare_burst_figures(count: int, channels: int, global_limit: Limit | None = None) -> dict[str, Any]:
    """A bare discord.py client posting ``count`` messages to ``channels`` channels at once (50 in flight,
    one at a time per channel), discord.py waiting out any 429: its drain, rate and 429s."""
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

            standin.global_limit = global_limit
            with steady_heap():
                started = time.perf_counter()
                await asyncio.gather(*(post(i) for i in range(count)))
                drain = time.perf_counter() - started
        posts = [r for r in standin.requests_to("POST", MESSAGES) if r.status == 200]
        times = sorted(r.time for r in posts)
        return {
            "drain_s": drain,
            "sent": len({r.json.get("nonce") for r in posts}),
            "rate": (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 else float("nan"),
            "rate_limited_any": sum(1 for r in standin.requests if r.status == 429),
        }


def report(name: str, figures: dict[str, Any], count: int) -> None:
    late = figures["late_ms"]
    print(
        f"{name:<30} sent {figures['sent']:>5}/{count} (messages {figures['messages']}, doubles {figures['doubles']})"
        f"  late min {min(late):6.0f} ms  p50 {percentile(late, 50):7.0f} ms  p99 {percentile(late, 99):7.0f} ms"
        f"  max {max(late):7.0f} ms"
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
        f"→ the runner's drain is {same['drain_s'] / floor:.2f}x the floor (claims and records in batches)"
    )
    ok = spread["sent"] == count == same["sent"] and not spread["doubles"] and not same["doubles"]
    print(
        f"every reminder sent exactly once: {'yes' if ok else 'NO'};  "
        f"p99 within 2 s (one minute spread): {'yes' if percentile(spread['late_ms'], 99) <= 2000 else 'NO'}"
    )


def spread_line(label: str, samples_ms: list[float]) -> str:
    return (
        f"{label:<30} p50 {percentile(samples_ms, 50) / 1000:6.2f} s  p99 {percentile(samples_ms, 99) / 1000:6.2f} s"
        f"  max {max(samples_ms, default=float('nan')) / 1000:6.2f} s"
    )


async def bench_limited(count: int, channels: int, url: str | None, limit: Limit) -> None:
    per_channel = -(-count // channels)
    print(
        f"\n== {count:,} reminders across {channels} channels, Discord's per-channel limit emulated: "
        f"{limit[0]} per {limit[1]:g} s ({'PostgreSQL' if url else 'SQLite'}) =="
    )
    print(
        f"(~{per_channel} reminders per channel; the stand-in answers X-RateLimit-* headers and 429s past the "
        "limit; discord.py paces each channel by the headers)"
    )
    verdicts: list[bool] = []
    for name, spread_s in (("due within one minute", 60.0), ("all due in the same second", 0.0)):
        figures = await burst_round(url, count, channels, spread_s, channel_limit=limit)
        once = figures["sent"] == count == figures["messages"] and not figures["doubles"]
        print(f"-- {name}")
        print(
            f"{'sent exactly once':<30} {'yes' if once else 'NO'}: {figures['sent']}/{count} reminders, "
            f"{figures['messages']} messages, {figures['doubles']} doubles;  "
            f"429s answered: {figures['rate_limited']}"
        )
        print(spread_line("lateness (measured)", figures["late_ms"]))
        print(spread_line("forced by the limit alone", figures["floor_ms"]))
        print(spread_line("added by the bot (each)", figures["excess_ms"]))
        print(f"{'drained':<30} {figures['drain_s']:.2f} s after the first was due")
        verdicts.append(once and percentile(figures["excess_ms"], 99) <= 2000)
    print(
        "every reminder sent exactly once and p99 within 2 s of what the limit forces: "
        f"{'yes' if all(verdicts) else 'NO'}"
    )


async def bench_wide(
    count: int, channels: int, url: str | None, global_limit: Limit | None, rounds: int
) -> None:
    store = "PostgreSQL" if url else "SQLite"
    print(
        f"\n== {count:,} reminders due in the same second across {channels:,} channels, one each ({store}); "
        f"{rounds} rounds, the bare client and the bot alternating =="
    )
    bare: list[dict[str, Any]] = []
    free: list[dict[str, Any]] = []
    for _ in range(rounds):
        bare.append(await bare_burst_figures(count, channels))
        free.append(await burst_round(url, count, channels, spread_s=0.0, pace=0))
    bare_drain = statistics.median(f["drain_s"] for f in bare)
    free_drain = statistics.median(f["drain_s"] for f in free)
    once = all(f["sent"] == count == f["messages"] and not f["doubles"] for f in free)
    print(
        f"{'no limit: bare discord.py':<38} drained in {bare_drain:6.2f} s (median; rounds: "
        + ", ".join(f"{f['drain_s']:.2f}" for f in bare)
        + ")"
    )
    print(
        f"{'no limit: the bot (not pacing)':<38} drained in {free_drain:6.2f} s (median; rounds: "
        + ", ".join(f"{f['drain_s']:.2f}" for f in free)
        + f")  → {free_drain / bare_drain:.2f}x the bare client (target ≤ 1.5x)"
    )
    print(f"{'  sent exactly once, every round':<38} {'yes' if once else 'NO'}")
    report("  lateness, last round", free[-1], count)
    if global_limit is None:
        return
    per_s = global_limit[0] / global_limit[1]
    bare_limited = await bare_burst_figures(count, channels, global_limit)
    paced = await burst_round(url, count, channels, spread_s=0.0, global_limit=global_limit, pace=int(per_s))
    once = paced["sent"] == count == paced["messages"] and not paced["doubles"]
    print(
        f"{f'global limit {per_s:g}/s: bare discord.py':<38} drained in {bare_limited['drain_s']:6.2f} s"
        f"  ({bare_limited['rate']:5.1f} posts/s = {bare_limited['rate'] / per_s:4.0%} of the limit)"
        f"  429s: {bare_limited['rate_limited_any']}"
    )
    print(
        f"{f'global limit {per_s:g}/s: the bot (paced)':<38} drained in {paced['drain_s']:6.2f} s"
        f"  ({paced['rate']:5.1f} posts/s = {paced['rate'] / per_s:4.0%} of the limit; target ≥ 90%)"
        f"  429s: {paced['rate_limited_any']} (target 0);  sent exactly once: {'yes' if once else 'NO'}"
    )
    print(f"{'  the limit alone forces':<38} {(count - 1) / per_s:6.2f} s for {count:,} posts")
    report("  lateness", paced, count)


def parse_limit(text: str) -> Limit | None:
    """``5/5`` → (5, 5.0): 5 messages per 5 s per channel; ``off`` → None."""
    if text.lower() in ("off", "none", "0"):
        return None
    count, _, per = text.partition("/")
    try:
        limit = (int(count), float(per))
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"expected N/SECONDS like 5/5, or off; got {text!r}") from error
    if limit[0] < 1 or limit[1] <= 0:
        raise argparse.ArgumentTypeError(f"expected at least 1 message per positive period; got {text!r}")
    return limit


async def main(args: argparse.Namespace) -> None:
    logging.basicConfig(level=logging.ERROR)
    if not args.skip_startup:
        await bench_startup(args.n, args.database_url)
    if not args.skip_burst:
        await bench_burst(args.burst, args.channels, args.database_url)
    if args.channel_limit is not None:
        await bench_limited(args.burst, args.channels, args.database_url, args.channel_limit)
    if args.wide:
        global_limit = None if args.global_limit is None else (args.global_limit, 1.0)
        await bench_wide(args.burst, args.wide, args.database_url, global_limit, args.wide_rounds)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--n", type=int, default=20_000, help="pending reminders stored for start-up (issue: 100000)"
    )
    parser.add_argument("--burst", type=int, default=1000, help="reminders falling due together")
    parser.add_argument("--channels", type=int, default=20)
    parser.add_argument(
        "--channel-limit",
        type=parse_limit,
        default="5/5",
        metavar="N/S|off",
        help="emulate Discord's per-channel message limit, N per S seconds, for part 3 (default 5/5; off skips it)",
    )
    parser.add_argument(
        "--wide", type=int, default=1000, help="channels for part 4's burst, one reminder each (0 skips it)"
    )
    parser.add_argument("--wide-rounds", type=int, default=3, help="part 4: rounds without a limit (medians)")
    parser.add_argument(
        "--global-limit",
        type=lambda text: None if text.lower() in ("off", "none", "0") else int(text),
        default=50,
        metavar="N|off",
        help="part 4: the stand-in's global limit, requests per second per bot (default 50, Discord's)",
    )
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
