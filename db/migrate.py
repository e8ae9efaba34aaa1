"""Apply alembic migrations programmatically (at start-up, `paperclub db upgrade` and `db downgrade`).

Each feature's migration branches from the foundation revision, so we upgrade to ``heads``. Processes that
start at once on one database migrate once; the others wait, then find nothing to do: on PostgreSQL the
upgrade is one transaction holding ``pg_advisory_xact_lock`` (DDL is transactional, so a killed process
leaves the database as it was); on SQLite ``BEGIN IMMEDIATE`` (db/engine.py) takes the one write lock, and
a waiter past the busy timeout retries, up to :data:`SQLITE_WAIT`.
"""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import logging
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
# pg_advisory_xact_lock(int4, int4): a class of our own, and the schema's hash, so tests that each use a
# schema of one database do not wait for each other.
MIGRATION_LOCK_CLASS = 0x50435F4D  # "PC_M"
SQLITE_WAIT = 300.0  # seconds a process waits for another's SQLite upgrade before giving up

log = logging.getLogger("paperclub.db")


def alembic_config(url: str | None = None) -> Config:
    """Alembic's configuration for our migrations (``url``: for stand-alone use; db.migrate passes a connection)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if url:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def revision_module(filename: str) -> ModuleType:
    """An earlier revision's module, loaded from its file (a revision that undoes it calls its functions)."""
    path = MIGRATIONS_DIR / "versions" / filename
    spec = importlib.util.spec_from_file_location(f"paperclub_migration_{path.stem}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def _script_heads() -> frozenset[str]:
    """The migrations' head revisions, read from the scripts once per process."""
    return frozenset(ScriptDirectory.from_config(alembic_config()).get_heads())


def _upgrade(connection: Connection) -> None:
    if frozenset(MigrationContext.configure(connection).get_current_heads()) == _script_heads():
        return  # already up to date: alembic need not load every script again
    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, "heads")


def _downgrader(revision: str) -> Callable[[Connection], None]:
    def downgrade(connection: Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        command.downgrade(config, f"{revision}-1")

    return downgrade


async def upgrade_database(engine: AsyncEngine) -> None:
    """Bring the store up to date; a no-op when it already is. Safe to call from many processes at once."""
    await _migrate(engine, _upgrade)


async def downgrade_database(engine: AsyncEngine, revision: str) -> None:
    """Undo migration ``revision`` (one step down its branch) and whatever stands on it, under the same lock."""
    await _migrate(engine, _downgrader(revision))


async def _migrate(engine: AsyncEngine, migrate: Callable[[Connection], None]) -> None:
    if engine.dialect.name == "postgresql":
        async with engine.begin() as conn:
            await conn.execute(
                text("SELECT pg_advisory_xact_lock(:lock_class, hashtext(current_schema()))"),
                {"lock_class": MIGRATION_LOCK_CLASS},
            )
            await conn.run_sync(migrate)
        return
    deadline = time.monotonic() + SQLITE_WAIT
    while True:
        try:
            async with engine.begin() as conn:
                await conn.run_sync(migrate)
            return
        except OperationalError as exc:
            if "database is locked" not in str(exc) or time.monotonic() > deadline:
                raise
            log.info("another process is migrating the SQLite database; waiting for it")
            await asyncio.sleep(0.5)
