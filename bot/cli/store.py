"""`paperclub db …`: the store's migrations and copies; `paperclub data …`: a server's or a member's data."""

from __future__ import annotations

import argparse
import asyncio
import json
from contextlib import closing
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from bot.cli.common import CommandFailed, command_settings, opened_store, server_id, user_id
from db.engine import describe_database


async def _db_upgrade(args: argparse.Namespace) -> None:
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


async def _db_downgrade(args: argparse.Namespace) -> None:
    from alembic.util import CommandError

    from db.migrate import downgrade_database

    async with opened_store(command_settings()) as engine:
        try:
            await downgrade_database(engine, args.revision)
        except CommandError as exc:
            raise CommandFailed(f"cannot undo migration {args.revision}: {exc}", code=2) from None
    print(f"migration {args.revision} undone")


async def _db_backup(args: argparse.Namespace) -> None:
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


def _unknown(guild_id: int) -> CommandFailed:
    return CommandFailed(
        f"the store holds nothing of server {guild_id}: nothing was touched (check the id: Developer Mode → "
        "right-click the server → Copy Server ID)"
    )


def _rows(counted: dict[str, int]) -> str:
    return ", ".join(f"{n} {table}" for table, n in sorted(counted.items()))


async def _data_delete(args: argparse.Namespace) -> None:
    from bot.services.privacy.servers import delete_server, holdings
    from db.engine import create_session_factory

    async with opened_store(command_settings()) as engine:
        factory = create_session_factory(engine)
        if args.dry_run:
            async with factory() as session:
                counted = await holdings(session, args.guild)
        else:
            async with factory() as session, session.begin():
                counted = await delete_server(session, args.guild)
    if not counted:
        raise _unknown(args.guild)
    if args.dry_run:
        print(f"would delete from server {args.guild}: {_rows(counted)} (nothing deleted: --dry-run)")
    else:
        print(f"deleted every row of server {args.guild}: {_rows(counted)}")


async def _data_export(args: argparse.Namespace) -> None:
    from bot.clock import SystemClock
    from bot.services.privacy.actions import export_member
    from bot.services.privacy.servers import holdings
    from db.engine import create_session_factory

    async with opened_store(command_settings()) as engine, create_session_factory(engine)() as session:
        if not await holdings(session, args.guild):
            raise _unknown(args.guild)
        exported = await export_member(session, args.guild, args.user, SystemClock().now())
    print(json.dumps(exported, indent=2, ensure_ascii=False))


def add_data(sub: Any) -> None:
    """`paperclub data …`."""
    data = sub.add_parser(
        "data",
        help="a server's or a member's data: delete, export",
        description="What the bot keeps (README: Data the bot keeps): a server's data, a member's data.",
    )
    data_sub = data.add_subparsers(dest="data_command", required=True, metavar="DATA_COMMAND")
    delete = data_sub.add_parser(
        "delete",
        help="delete all of a server's data now",
        description="Delete every row the store holds of a server, in one transaction (the bot does so "
        "itself GUILD_DATA_GRACE_DAYS after it is removed from a server). Run it once the bot has left "
        "the server: while it is in it, members and organizers make new data.",
    )
    delete.add_argument("--guild", type=server_id, required=True, help="server id")
    delete.add_argument("--dry-run", action="store_true", help="print what would be deleted; delete nothing")
    delete.set_defaults(handler=_data_delete)
    export = data_sub.add_parser(
        "export",
        help="a member's data in a server, as JSON",
        description="Print everything the store holds of a member in a server as JSON (what /privacy "
        "shows them, row by row), for a request made outside Discord.",
    )
    export.add_argument("--guild", type=server_id, required=True, help="server id")
    export.add_argument("--user", type=user_id, required=True, help="the member's user id")
    export.set_defaults(handler=_data_export)
