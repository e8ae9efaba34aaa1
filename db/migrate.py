"""Alembic migrations run from code, once however many processes start (an advisory or write lock)."""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import time
from collections.abc import Callable
from functools import cache, partial
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
# pg_advisory_xact_lock(class, the schema's hash): tests in schemas of one database do not wait on each other.
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


def _run(action: Callable[[Config, str], None], target: str, connection: Connection) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    action(config, target)


@cache
def _script_heads() -> frozenset[str]:
    """The migrations' head revisions, read from the scripts once per process."""
    return frozenset(ScriptDirectory.from_config(alembic_config()).get_heads())


def _upgrade(connection: Connection) -> None:
    if frozenset(MigrationContext.configure(connection).get_current_heads()) == _script_heads():
        return  # already up to date: alembic need not load every script again
    _run(command.upgrade, "heads", connection)


async def upgrade_database(engine: AsyncEngine) -> None:
    """Bring the store up to date; a no-op when it already is. Safe to call from many processes at once."""
    await _migrate(engine, _upgrade)


async def downgrade_database(engine: AsyncEngine, revision: str) -> None:
    """Undo migration ``revision`` (one step down its branch) and whatever stands on it, under the same lock."""
    await _migrate(engine, partial(_run, command.downgrade, f"{revision}-1"))


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
