"""Three ``paperclub db upgrade`` processes at once, on an older PostgreSQL database and on an empty SQLite
file: the migrations run once, the others wait for them, and every process succeeds."""

from __future__ import annotations

import asyncio
from pathlib import Path

from alembic import command
from sqlalchemy import text

from bot.demo.processes import BotProcess, process_env
from db.engine import create_engine
from db.migrate import alembic_config
from standin.server import StandIn
from tests.deployment.conftest import HEADS, MIGRATIONS, requires_postgres

FEATURE_MIGRATIONS = MIGRATIONS - 1  # all but the foundation


async def upgrade_three_at_once(standin: StandIn, url: str, cwd: Path) -> list[BotProcess]:
    procs = [
        BotProcess(
            f"upgrade{i}", process_env(standin, url, LOG_LEVEL="DEBUG"), args=["db", "upgrade"], cwd=cwd
        )
        for i in range(3)
    ]
    await asyncio.gather(*(p.start() for p in procs))
    codes = await asyncio.gather(*(p.wait() for p in procs))
    for proc, code in zip(procs, codes, strict=True):
        assert code == 0, proc.tail()
    return procs


async def heads(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            return set((await conn.execute(text("SELECT version_num FROM alembic_version"))).scalars())
    finally:
        await engine.dispose()


@requires_postgres
async def test_an_older_postgresql_database_is_upgraded_once(
    standin: StandIn, pg_database: str, tmp_path: Path
) -> None:
    engine = create_engine(pg_database)

    def to_foundation(connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        command.upgrade(config, "0001")

    async with engine.begin() as conn:
        await conn.run_sync(to_foundation)
    await engine.dispose()
    assert await heads(pg_database) == {"0001"}
    procs = await upgrade_three_at_once(standin, pg_database, tmp_path)
    assert sorted(p.count("Running upgrade") for p in procs) == [0, 0, FEATURE_MIGRATIONS]
    assert await heads(pg_database) == HEADS


async def test_an_empty_sqlite_file_is_migrated_once(standin: StandIn, tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'club.db'}"
    procs = await upgrade_three_at_once(standin, url, tmp_path)
    assert sorted(p.count("Running upgrade") for p in procs) == [0, 0, FEATURE_MIGRATIONS + 1]
    assert await heads(url) == HEADS
