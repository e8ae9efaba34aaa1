"""Several processes, many guilds and shards, one PostgreSQL: reminders at scale, once each, with a kill.

    .venv/bin/python -m bench.shards_bench --database-url postgresql+asyncpg://user:pass@127.0.0.1/db
        [--guilds 3000] [--shards 6] [--processes 3] [--reminders 30000] [--window 600] [--no-validate]

The stand-in holds ``--guilds`` guilds dealt over ``--shards`` shards; real ``paperclub run`` processes
connect to it, and ``--reminders`` reminders (one channel per guild) fall due spread evenly over ``--window``
seconds of real time. The default is the issue's own 10 minutes unscaled (30,000 in 600 s, 50 a second):
a smaller ``--window`` scales time down (``--window 60``: ten times, 500 a second), which on a small machine
measures the saturated throughput rather than lateness. The intervals the bot itself uses — the claim lease
(90 s), the look-again interval (60 s) — always stay real. Three runs, each on a new database (created with
the URL's role, which needs CREATEDB):

1. one process running every shard (the baseline);
2. ``--processes`` processes, the shards split between them;
3. the same, with one process killed (kill -9) half-way through the window.

Printed for each: whether every reminder was sent exactly once (the stand-in's messages per reminder, and
the store's statuses), the lateness (the stand-in's receipt − the due time: p50, p99, max), and each
process's throughput (reminders it sent; its mean rate over the window and its best second, read from its
``/metrics`` every second).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import socket
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiohttp
from sqlalchemy import func, insert, select

from bench.common import percentile
from bot.demo.processes import BotProcess, process_env, temporary_database
from bot.metrics import metric
from db.engine import create_engine
from db.migrate import upgrade_database
from db.models.reminders import Reminder
from standin.server import StandIn
from standin.state import Guild

MESSAGES = "/channels/"
LOOK_AGAIN = 60.0  # the reminder job's interval (bot/services/reminders/runner.py, LOOK_AGAIN)
SENDING_LEASE = 90.0  # its claim lease (bot/services/reminders/queue.py)
LEAD = 45.0  # seconds from seeding to the first reminder's time: the processes start in between
_INDEX = re.compile(r"Bench reminder (\d+)\b")


@dataclass
class Run:
    name: str
    lateness_ms: list[float] = field(default_factory=list)
    counts: Counter[int] = field(default_factory=Counter)
    statuses: dict[str, int] = field(default_factory=dict)
    per_process: list[tuple[str, float, float, float]] = field(
        default_factory=list
    )  # name, sent, mean/s, peak/s
    wall_s: float = 0.0  # from the first reminder's time until the stand-in had received every one
    settled_s: float = 0.0  # ... until the store had recorded every one


async def seed(url: str, guilds: list[Guild], n: int, first_due: datetime, window: float) -> list[datetime]:
    dues = [first_due + timedelta(seconds=window * i / n) for i in range(n)]
    rows = []
    for i, due in enumerate(dues):
        guild = guilds[i % len(guilds)]
        channel = next(iter(guild.channels.values()))
        rows.append(
            {
                "guild_id": guild.id,
                "kind": "custom",
                "channel_id": channel.id,
                "message": f"Bench reminder {i}",
                "due_at": due,
                "next_attempt_at": due,
                "status": "pending",
                "attempts": 0,
                "occurrence": 0,
                "delayed": False,
                "created_at": due,
                "updated_at": due,
            }
        )
    engine = create_engine(url)
    try:
        async with engine.begin() as conn:
            for start in range(0, len(rows), 5000):
                await conn.execute(insert(Reminder), rows[start : start + 5000])
    finally:
        await engine.dispose()
    return dues


def shard_ranges(shards: int, processes: int) -> list[str]:
    per = -(-shards // processes)
    return [f"{i}-{min(i + per, shards) - 1}" for i in range(0, shards, per)]


class Scraper:
    """Each process's sent counter, every second (for its best second)."""

    def __init__(self, procs: list[BotProcess]) -> None:
        self.procs = procs
        self.samples: dict[str, list[tuple[float, float]]] = {p.name: [] for p in procs}
        self._task: asyncio.Task[None] | None = None

    async def _loop(self) -> None:
        while True:
            for proc in self.procs:
                if proc.exited:
                    continue
                with contextlib.suppress(Exception):
                    values = await proc.metrics()
                    self.samples[proc.name].append(
                        (time.monotonic(), metric(values, "paperclub_reminders_total", outcome="sent"))
                    )
            await asyncio.sleep(1.0)

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def figures(self, window: float) -> list[tuple[str, float, float, float]]:
        out = []
        for name, samples in self.samples.items():
            sent = samples[-1][1] if samples else 0.0
            peak = max(
                (
                    (b[1] - a[1]) / (b[0] - a[0])
                    for a, b in zip(samples, samples[1:], strict=False)
                    if b[0] > a[0]
                ),
                default=0.0,
            )
            out.append((name, sent, sent / window, peak))
        return out


async def one_run(args: argparse.Namespace, name: str, processes: int, kill_at_half: bool, cwd: Path) -> Run:
    run = Run(name)
    async with (
        temporary_database(args.database_url, "pc_bench") as url,
        StandIn(validate_requests=args.validate) as standin,
    ):
        standin.timeout = 60.0
        standin.gateway.max_concurrency = 16
        guilds = await standin.create_guilds(args.guilds)
        engine = create_engine(url)
        await upgrade_database(engine)
        await engine.dispose()
        procs = [
            BotProcess(
                f"p{i}",
                process_env(
                    standin,
                    url,
                    SHARD_COUNT=str(args.shards),
                    SHARD_IDS=ids,
                    LOG_LEVEL="WARNING",  # not a line per reminder
                    WEB_PORT=str(free_port()),
                    DATABASE_POOL_SIZE="5",
                    DATABASE_MAX_OVERFLOW="10",
                ),
                cwd=cwd,
            )
            for i, ids in enumerate(shard_ranges(args.shards, processes))
        ]
        receipts = Receipts(standin)
        try:
            # Seeded before the processes start, due from LEAD s on: each runner's first pass at start-up wakes
            # it again at the first one, so nothing waits for a look-again.
            first_due = datetime.now(UTC) + timedelta(seconds=LEAD)
            dues = await seed(url, guilds, args.reminders, first_due, args.window)
            started = time.monotonic()
            await asyncio.gather(*(p.start() for p in procs))
            await standin.wait_shards(args.shards, timeout=300)
            await asyncio.gather(*(healthy(p) for p in procs))
            spare = (first_due - datetime.now(UTC)).total_seconds()
            print(
                f"  {name}: {processes} process(es) ready in {time.monotonic() - started:.1f} s "
                f"({spare:.0f} s before the first reminder is due)",
                flush=True,
            )
            scraper = Scraper(procs)
            scraper.start()
            t0 = time.monotonic() + spare
            if kill_at_half:
                await asyncio.sleep(max(0.0, spare + args.window / 2))
                procs[0].kill()
                print(f"  {name}: killed {procs[0].name} (kill -9) half-way", flush=True)
            limit = spare + args.window + LOOK_AGAIN + SENDING_LEASE + 120  # + slack
            await standin.wait_until(lambda: receipts.count() >= args.reminders, timeout=limit)
            run.wall_s = time.monotonic() - t0
            # Posts a killed process made but never recorded stay "sending" until their lease runs out and a
            # survivor resends them (same nonce: Discord answers with the first message): wait for that too.
            await settled(url, timeout=LOOK_AGAIN + SENDING_LEASE + 60)
            run.settled_s = time.monotonic() - t0
            await scraper.stop()
            run.per_process = scraper.figures(args.window)
            times = receipts.first
            run.lateness_ms = [(times[i] - dues[i].timestamp()) * 1000 for i in range(args.reminders)]
            run.counts = Counter(
                int(m[1])
                for msg in standin.state.messages.values()
                if (m := _INDEX.search(msg.content or ""))
            )
            await asyncio.gather(*(p.stop(timeout=120) for p in procs if not p.exited))
            engine = create_engine(url)
            try:
                async with engine.connect() as conn:
                    query = select(Reminder.status, func.count()).group_by(Reminder.status)
                    run.statuses = {status: n for status, n in (await conn.execute(query)).all()}
            finally:
                await engine.dispose()
        finally:
            for proc in procs:
                proc.kill()
    return run


class Receipts:
    """When the stand-in first received each reminder's post (epoch seconds), by reminder index; read from
    its request log incrementally (the wait re-checks after every request)."""

    def __init__(self, standin: StandIn) -> None:
        self.standin = standin
        self.first: dict[int, float] = {}
        self._seen = 0

    def count(self) -> int:
        records = self.standin.requests
        for record in records[self._seen :]:
            if record.method == "POST" and MESSAGES in record.path and isinstance(record.json, dict):
                hit = _INDEX.search(str(record.json.get("content") or ""))
                if hit and record.status == 200:
                    self.first.setdefault(int(hit[1]), record.time)
        self._seen = len(records)
        return len(self.first)


async def settled(url: str, timeout: float) -> None:
    """Until no reminder is pending or sending (a bench may poll the store)."""
    engine = create_engine(url)
    deadline = time.monotonic() + timeout
    try:
        while True:
            async with engine.connect() as conn:
                live = (
                    await conn.execute(
                        select(func.count()).where(Reminder.status.in_(("pending", "sending")))
                    )
                ).scalar_one()
            if not live or time.monotonic() > deadline:
                return
            await asyncio.sleep(1.0)
    finally:
        await engine.dispose()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def healthy(proc: BotProcess, timeout: float = 300.0) -> None:
    """Until the process's /healthz says ready (a bench may poll)."""
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(OSError, aiohttp.ClientError):
            if (await proc.get("/healthz"))[0] == 200:
                return
        if proc.exited or time.monotonic() > deadline:
            raise RuntimeError(f"{proc.name} did not become ready:\n{proc.tail()}")
        await asyncio.sleep(0.5)


def report(run: Run, n: int) -> None:
    once = sum(1 for i in range(n) if run.counts.get(i) == 1)
    doubled = sum(1 for c in run.counts.values() if c > 1)
    p50, p99 = percentile(run.lateness_ms, 50), percentile(run.lateness_ms, 99)
    print(f"\n{run.name}")
    print(
        f"  exactly once: {once:,}/{n:,} (posted twice: {doubled}, missing: {n - len(run.counts)})"
        f"   store: {run.statuses}"
    )
    print(
        f"  lateness: p50 {p50:8.1f} ms   p99 {p99:8.1f} ms   max {max(run.lateness_ms):9.1f} ms"
        f"   (all received {run.wall_s:.0f} s, all recorded {run.settled_s:.0f} s after the first was due)"
    )
    for name, sent, mean, peak in run.per_process:
        print(f"  {name}: sent {sent:7,.0f}   mean {mean:6.1f}/s over the window   best second {peak:6.1f}/s")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True, help="PostgreSQL; its role needs CREATEDB")
    parser.add_argument("--guilds", type=int, default=3000)
    parser.add_argument("--shards", type=int, default=6)
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--reminders", type=int, default=30000)
    parser.add_argument("--window", type=float, default=600.0, help="seconds the reminders fall due over")
    parser.add_argument(
        "--no-validate", dest="validate", action="store_false", help="skip the stand-in's OpenAPI checks"
    )
    args = parser.parse_args()
    print(
        f"{args.reminders:,} reminders over {args.window:.0f} s of real time ({args.reminders / args.window:.0f}/s; "
        f"the issue's 10 minutes {'unscaled' if args.window == 600 else f'scaled {600 / args.window:g}x'}), "
        f"{args.guilds:,} guilds on {args.shards} shards, one PostgreSQL"
        f"{'' if args.validate else ', OpenAPI checks off'}",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as tmp:
        runs = [
            await one_run(args, "1 process, every shard (baseline)", 1, False, Path(tmp)),
            await one_run(args, f"{args.processes} processes", args.processes, False, Path(tmp)),
            await one_run(
                args, f"{args.processes} processes, one killed half-way", args.processes, True, Path(tmp)
            ),
        ]
    for run in runs:
        report(run, args.reminders)
    base = percentile(runs[0].lateness_ms, 99)
    print(
        f"\np99 lateness vs the one-process baseline: {percentile(runs[1].lateness_ms, 99) / base:.2f}x "
        f"({args.processes} processes), {percentile(runs[2].lateness_ms, 99) / base:.2f}x (one killed)"
    )


if __name__ == "__main__":
    asyncio.run(main())
