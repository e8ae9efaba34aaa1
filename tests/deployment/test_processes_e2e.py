"""Several ``paperclub run`` processes (real subprocesses) with different SHARD_IDS on one PostgreSQL
database and one stand-in: they start together on an empty database and migrate and sync once; each
guild's interactions are answered by exactly the process that runs its shard; kill -9 one while reminders
are due and the others send its share, nothing lost, nothing doubled; the metrics say what happened."""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import func, insert, select

from bot.demo.processes import BotProcess, process_env
from bot.metrics import metric
from db.engine import create_engine
from db.migrate import upgrade_database
from db.models.reminders import Reminder
from standin.gateway import IDENTIFY_WINDOW, shard_of
from standin.server import StandIn
from standin.state import Guild
from tests.cards import card_title
from tests.deployment.conftest import MIGRATIONS, requires_postgres

pytestmark = requires_postgres

BOTPROC = Path(__file__).with_name("botproc.py")
MESSAGES = r"/channels/\d+/messages$"


async def start_all(procs: list[BotProcess]) -> None:
    await asyncio.gather(*(p.start() for p in procs))
    await asyncio.gather(*(p.wait_ready() for p in procs))


async def stop_all(procs: list[BotProcess]) -> list[int]:
    return list(await asyncio.gather(*(p.stop() for p in procs), return_exceptions=False))


def answered_guilds(proc: BotProcess, command: str) -> list[int]:
    pattern = re.compile(rf"interaction command={command} guild=(\d+) .*outcome=ok")
    return [int(m[1]) for line in proc.lines if (m := pattern.search(line))]


async def answer_everywhere(standin: StandIn, guilds: list[Guild]) -> None:
    """``/setup show`` in every guild, by its owner (Manage Server), each answered."""
    owner = standin.state.owner
    for guild in guilds:
        channel = next(iter(guild.channels.values()))
        response = await (
            await standin.invoke("setup show", member=guild.members[owner.id], channel=channel)
        ).response(timeout=30)
        assert card_title(response) == "Paper club settings"


async def test_three_processes_start_at_once_on_an_empty_database(
    standin: StandIn, pg_database: str, tmp_path: Path
) -> None:
    guilds = await standin.create_guilds(12)
    standin.gateway.max_concurrency = 16  # as Discord gives large bots: the six shards identify at once
    shards = ["0-1", "2-3", "4-5"]
    procs = [
        BotProcess(
            f"p{i}",
            process_env(standin, pg_database, SHARD_COUNT="6", SHARD_IDS=ids, LOG_LEVEL="DEBUG"),
            cwd=tmp_path,
        )
        for i, ids in enumerate(shards)
    ]
    try:
        await start_all(procs)
        # Migrations ran once (all in one process; the others waited on the lock and found nothing to do),
        # and the commands were synced once.
        upgrades = [p.count("Running upgrade") for p in procs]
        assert sorted(upgrades) == [0, 0, MIGRATIONS], upgrades
        assert len(standin.requests_to("PUT", r"/applications/\d+/commands$")) == 1
        assert sorted(p.count("application commands unchanged") for p in procs) == [0, 1, 1]
        for proc in procs:
            assert await proc.get("/healthz") == (200, "ready\n")

        await answer_everywhere(standin, guilds)
        await asyncio.gather(
            *(p.wait_for(lambda _, p=p: len(answered_guilds(p, "setup show")) >= 4) for p in procs)
        )
        for proc, ids in zip(procs, shards, strict=True):
            low, high = (int(x) for x in ids.split("-"))
            mine = sorted(g.id for g in guilds if low <= shard_of(g.id, 6) <= high)
            assert sorted(answered_guilds(proc, "setup show")) == mine  # its own guilds, each once
            values = await proc.metrics()
            assert metric(values, "paperclub_interactions_total", command="setup show", outcome="ok") == len(
                mine
            )
            assert metric(values, "paperclub_interaction_latency_seconds_count", command="setup show") == len(
                mine
            )
            for shard in range(low, high + 1):
                assert metric(values, "paperclub_gateway_connected", shard=shard) == 1
        assert await stop_all(procs) == [0, 0, 0]  # SIGTERM: a clean shutdown
    finally:
        for proc in procs:
            proc.kill()


def _reminder(guild: Guild, index: int, due: datetime) -> dict[str, Any]:
    channel = next(iter(guild.channels.values()))
    return {
        "guild_id": guild.id,
        "kind": "custom",
        "channel_id": channel.id,
        "message": f"Deployment reminder {index}",
        "due_at": due,
        "next_attempt_at": due,
        "status": "pending",
        "attempts": 0,
        "occurrence": 0,
        "delayed": False,
        "created_at": due,
        "updated_at": due,
    }


async def seed(url: str, rows: list[dict[str, Any]]) -> None:
    engine = create_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.execute(insert(Reminder), rows)
    finally:
        await engine.dispose()


def sent_indexes(standin: StandIn) -> Counter[int]:
    found: Counter[int] = Counter()
    for message in standin.state.messages.values():
        hit = re.search(r"Deployment reminder (\d+)", message.content or "")
        if hit:
            found[int(hit[1])] += 1
    return found


async def test_two_processes_share_the_guilds_and_survive_a_kill_minus_nine(
    standin: StandIn, pg_database: str, tmp_path: Path
) -> None:
    guilds = await standin.create_guilds(12)
    # Discord's default session start limit (one IDENTIFY per 5 s), enforced: the two processes' shards
    # share the one bucket, so they must take turns across processes (the identify slot in the store).
    standin.gateway.enforce_identify_rate = True
    engine = create_engine(pg_database)
    await upgrade_database(engine)
    await engine.dispose()
    lease, look_again = 3.0, 2.0
    short = {"PAPERCLUB_TEST_LEASE_SECONDS": str(lease), "PAPERCLUB_TEST_LOOK_AGAIN_SECONDS": str(look_again)}
    procs = [
        BotProcess(
            f"shard{i}",
            process_env(standin, pg_database, SHARD_COUNT="2", SHARD_IDS=str(i), **short),
            script=BOTPROC,
            cwd=tmp_path,
        )
        for i in (0, 1)
    ]
    try:
        await start_all(procs)
        assert standin.gateway.invalid_sessions == 0
        (first, _), (second, _) = standin.gateway.identify_log
        assert second - first >= IDENTIFY_WINDOW - 0.1  # the same bucket, 5 s apart, across processes

        await answer_everywhere(standin, guilds)
        for shard, proc in enumerate(procs):
            mine = sorted(g.id for g in guilds if shard_of(g.id, 2) == shard)
            count = len(mine)
            await proc.wait_for(lambda _, p=proc, n=count: len(answered_guilds(p, "setup show")) >= n)
            assert sorted(answered_guilds(proc, "setup show")) == mine

        # 12 reminders (one per channel: a runner sends one at a time per channel) fall due while Discord
        # holds every post: both processes claim some and post them.
        held = standin.hold("POST", MESSAGES)
        now = datetime.now(UTC)
        await seed(pg_database, [_reminder(guild, i, now) for i, guild in enumerate(guilds)])
        await standin.wait_until(lambda: held.waiting == 12, timeout=30)
        claims = [metric(await p.metrics(), "paperclub_reminders_total", outcome="due") for p in procs]
        assert sum(claims) == 12
        victim, survivor = procs if claims[0] >= claims[1] else procs[::-1]
        claimed_by_victim = max(claims)
        victim.kill()  # kill -9 with its claims in flight
        assert await victim.wait() != 0
        held.release()  # Discord answers what it received (the victim's posts too, to nobody)
        # 12 more fall due after the kill: only the survivor is there to send them.
        later = datetime.now(UTC)
        await seed(pg_database, [_reminder(guild, 12 + i, later) for i, guild in enumerate(guilds)])
        await standin.wait_until(lambda: len(sent_indexes(standin)) == 24, timeout=lease + look_again + 30)
        assert sent_indexes(standin) == Counter(range(24))  # nothing lost, nothing posted twice

        await survivor.wait_for(lambda _: survivor.count(" sent message=") >= 24)  # each recorded as sent
        engine = create_engine(pg_database)
        try:
            async with engine.connect() as conn:
                query = select(Reminder.status, func.count()).group_by(Reminder.status)
                statuses = {status: n for status, n in (await conn.execute(query)).all()}
        finally:
            await engine.dispose()
        assert statuses == {"sent": 24}
        # The survivor took the victim's claims back once their lease ran out, and resent them with the
        # same nonce, so Discord answered with the first message instead of posting again.
        assert survivor.count("was left sending by a stopped runner") == claimed_by_victim
        values = await survivor.metrics()
        assert metric(values, "paperclub_reminders_total", outcome="sent") == 24  # the victim recorded none
        # its own first claims (12 − the victim's), the victim's taken back, and the 12 after the kill
        assert metric(values, "paperclub_reminders_total", outcome="due") == 24
        assert metric(values, "paperclub_reminders_total", outcome="failed") == 0
        assert metric(values, "paperclub_reminder_lateness_seconds_count") == 24
        assert await survivor.stop() == 0
    finally:
        for proc in procs:
            proc.kill()
