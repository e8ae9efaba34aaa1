"""`paperclub db upgrade`, `db downgrade` and `db backup`: the store's migrations and copies."""

from __future__ import annotations

import argparse
import asyncio
from contextlib import closing
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from bot.cli.common import CommandFailed, command_settings, opened_store
from db.engine import describe_database


async def _db_upgrade(args: argparse.Namespace) -> int:
    from db.migrate import upgrade_database

    async with opened_store(command_settings()) as engine:
        before = await _store_revisions(engine)
        await upgrade_database(engine)
        after = await _store_revisions(engine)
    history = reversed(list(_scripts().walk_revisions()))  # each migration after those it stands on
    applied = [script for script in history if script.revision in after - before]
    if applied:
        print(f"applied {len(applied)} migration{'s' if len(applied) != 1 else ''}:")
        for script in applied:
            print(f"  {script.revision} {' '.join(script.doc.split())}")
    print("database is up to date" if applied else "database is up to date: no migration to apply")
    return 0


def _scripts() -> Any:
    from alembic.script import ScriptDirectory

    from db.migrate import alembic_config

    return ScriptDirectory.from_config(alembic_config())


async def _store_revisions(engine: Any) -> set[str]:
    """Every migration the store holds: its recorded heads and all they stand on."""
    from alembic.runtime.migration import MigrationContext

    async with engine.connect() as conn:
        heads = await conn.run_sync(lambda sync: MigrationContext.configure(sync).get_current_heads())
    scripts = _scripts()
    return {found.revision for head in heads for found in scripts.iterate_revisions(head, "base")}


async def _db_downgrade(args: argparse.Namespace) -> int:
    from alembic.util import CommandError

    from db.migrate import downgrade_database

    async with opened_store(command_settings()) as engine:
        try:
            await downgrade_database(engine, args.revision)
        except CommandError as exc:
            raise CommandFailed(f"cannot undo migration {args.revision}: {exc}", code=2) from None
    print(f"migration {args.revision} undone")
    return 0


async def _db_backup(args: argparse.Namespace) -> int:
    """A consistent copy of the SQLite store, taken with SQLite's online backup API while the bot runs."""
    settings = command_settings()
    url = make_url(settings.database_url)
    if url.get_backend_name() != "sqlite":
        raise CommandFailed(
            f"paperclub db backup copies an SQLite store, and DATABASE_URL is {describe_database(url)}: "
            "back PostgreSQL up with pg_dump (see docs/deploy.md).",
            code=2,
        )
    source, target = await asyncio.to_thread(backup_sqlite, Path(url.database or ""), Path(args.file))
    print(f"backed up {source} to {target}")
    return 0


def backup_sqlite(source: Path, target: Path) -> tuple[Path, Path]:
    """Copy ``source`` to ``target`` in one backup step (a consistent snapshot), whole or not at all."""
    import sqlite3

    if not source.is_file():
        raise CommandFailed(f"there is no SQLite database at {source.resolve()}: check DATABASE_URL.")
    if target.resolve() == source.resolve():
        raise CommandFailed("the backup must go to another file than the database itself.", code=2)
    partial = target.with_name(f".{target.name}.partial")
    try:
        partial.unlink(missing_ok=True)
        with closing(sqlite3.connect(source, timeout=30)) as src, closing(sqlite3.connect(partial)) as dst:
            src.backup(dst)
        partial.replace(target)
    except (OSError, sqlite3.Error) as exc:
        partial.unlink(missing_ok=True)
        reason = getattr(exc, "strerror", None) or exc
        raise CommandFailed(f"cannot back up to {target} ({reason}): choose a writable path.") from None
    return source, target


def add(sub: Any) -> None:
    """`paperclub db …`."""
    db = sub.add_parser("db", help="database maintenance", description="Database maintenance.")
    db_sub = db.add_subparsers(dest="db_command", required=True, metavar="DB_COMMAND")
    upgrade = db_sub.add_parser(
        "upgrade", help="apply migrations", description="Apply every pending migration."
    )
    upgrade.set_defaults(handler=_db_upgrade)
    downgrade = db_sub.add_parser(
        "downgrade",
        help="undo one migration (to go back to the release before)",
        description="Undo migration REVISION (one step down its branch) and any that stand on it, e.g. 0020. "
        "Run it with the newer release, then start the older one: `paperclub run` upgrades again.",
    )
    downgrade.add_argument("revision", metavar="REVISION", help="the migration to undo, e.g. 0020")
    downgrade.set_defaults(handler=_db_downgrade)
    backup = db_sub.add_parser(
        "backup",
        help="copy the SQLite database to FILE while the bot runs",
        description="Copy the SQLite store to FILE with SQLite's online backup API (a consistent snapshot, "
        "safe while the bot runs). For PostgreSQL use pg_dump.",
    )
    backup.add_argument("file", help="where to write the copy (replaced if it exists)")
    backup.set_defaults(handler=_db_backup)
