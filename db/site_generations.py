"""The triggers that move ``site_generations`` (migration 0015) on every write to what the site shows.

They follow other features' tables (sessions, papers, the reading lists, suggestions, series, settings),
which their own migration branches create and may rebuild (a SQLite batch alter drops a table's
triggers), so they are not tied to one revision: :func:`ensure_triggers` creates whichever is missing,
after every upgrade to ``heads`` (``db.migrate``, in the same transaction and under the same lock), when
every table exists. Migration 0015 creates the table and, on PostgreSQL, the functions they call.

SQLite: a row trigger per table and event upserts the guild's row (SQLite has one writer at a time).

PostgreSQL: the row triggers only *mark* the guild in a transaction-local setting (a string test: no
write per row, so a bulk load of 100,000 papers costs no more than one), and the first mark registers
the transaction in ``site_generation_flushes``, whose deferred constraint trigger bumps each marked guild
once, at COMMIT, in guild order. A guild's generation row is so locked only from its commit's flush to
the commit's end; before it, the flush takes the reading search flush's advisory lock for that guild
(migration 0014: same class and key), so every transaction takes a guild's search lock before its
generation lock and two committing transactions cannot wait on each other in a cycle.

A savepoint rolled back undoes its marks with it (the setting and the registration are both undone);
a guild marked needlessly costs one rebuild of its pages, never a stale one.
"""

from __future__ import annotations

from typing import Final

from sqlalchemy import text
from sqlalchemy.engine import Connection

#: table → the SQL giving the guild a row (``{row}``: NEW or OLD) belongs to.
GUILD_OF: Final[dict[str, str]] = {
    "sessions": "{row}.guild_id",
    "session_papers": "(SELECT s.guild_id FROM sessions s WHERE s.id = {row}.session_id)",
    "papers": "{row}.guild_id",
    "reading_lists": "{row}.guild_id",
    "reading_list_items": "(SELECT l.guild_id FROM reading_lists l WHERE l.id = {row}.list_id)",
    "suggestions": "{row}.guild_id",
    "suggestion_votes": "(SELECT g.guild_id FROM suggestions g WHERE g.id = {row}.suggestion_id)",
    "series": "{row}.guild_id",
    "series_weeks": "{row}.guild_id",
    "series_settings": "{row}.guild_id",
    "guild_settings": "{row}.guild_id",
    "site_settings": "{row}.guild_id",
}
EVENTS: Final = ("INSERT", "UPDATE", "DELETE")
PREFIX: Final = "sg_"


def trigger_names(dialect: str) -> set[str]:
    """Every trigger :func:`ensure_triggers` keeps (SQLite: one per table and event)."""
    if dialect == "postgresql":
        return {f"{PREFIX}{table}" for table in GUILD_OF}
    return {f"{PREFIX}{table}_{event.lower()}" for table in GUILD_OF for event in EVENTS}


def _sqlite_bump(guild: str) -> str:
    # "WHERE true"-style filter: SQLite's parser needs a WHERE before ON CONFLICT in INSERT … SELECT.
    return (
        f"INSERT INTO site_generations (guild_id, generation) SELECT g, 1 FROM (SELECT {guild} AS g) "
        "WHERE g IS NOT NULL ON CONFLICT (guild_id) DO UPDATE SET generation = site_generations.generation + 1;"
    )


def _sqlite_trigger(table: str, event: str) -> str:
    guild = GUILD_OF[table]
    old, new = guild.format(row="OLD"), guild.format(row="NEW")
    bumps = {
        "INSERT": [_sqlite_bump(new)],
        "DELETE": [_sqlite_bump(old)],
        # the guild changed (never, in practice): both move on
        "UPDATE": [_sqlite_bump(old), _sqlite_bump(f"CASE WHEN {new} IS NOT {old} THEN {new} END")],
    }[event]
    return (
        f"CREATE TRIGGER IF NOT EXISTS {PREFIX}{table}_{event.lower()} AFTER {event} ON {table} "
        f"BEGIN {' '.join(bumps)} END"
    )


def _pg_trigger(table: str) -> tuple[str, str]:
    guild = GUILD_OF[table]
    name = f"{PREFIX}{table}"
    function = (
        f"CREATE OR REPLACE FUNCTION {name}_trigger() RETURNS trigger LANGUAGE plpgsql AS $fn$\nBEGIN\n"
        f"IF TG_OP <> 'INSERT' THEN PERFORM site_generation_mark({guild.format(row='OLD')}); END IF;\n"
        f"IF TG_OP <> 'DELETE' THEN PERFORM site_generation_mark({guild.format(row='NEW')}); END IF;\n"
        "RETURN NULL;\nEND;\n$fn$"
    )
    trigger = (
        f"CREATE TRIGGER {name} AFTER INSERT OR UPDATE OR DELETE ON {table} "
        f"FOR EACH ROW EXECUTE FUNCTION {name}_trigger()"
    )
    return function, trigger


def _existing(connection: Connection) -> tuple[set[str], set[str]]:
    """(tables, triggers of ours) in the connection's schema."""
    if connection.dialect.name == "postgresql":
        tables = set(
            connection.execute(
                text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
            ).scalars()
        )
        triggers = set(
            connection.execute(
                text(
                    "SELECT t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                    "JOIN pg_namespace n ON n.oid = c.relnamespace "
                    "WHERE n.nspname = current_schema() AND NOT t.tgisinternal"
                )
            ).scalars()
        )
    else:
        rows = connection.execute(text("SELECT type, name FROM sqlite_master")).all()
        tables = {name for kind, name in rows if kind == "table"}
        triggers = {name for kind, name in rows if kind == "trigger"}
    return tables, {t for t in triggers if t.startswith(PREFIX)}


def ensure_triggers(connection: Connection) -> list[str]:
    """Create every missing trigger (of the tables that exist); the names created, for the log."""
    tables, present = _existing(connection)
    if "site_generations" not in tables:
        return []  # migration 0015 has not run (a downgrade)
    created = []
    for table in GUILD_OF:
        if table not in tables:
            continue
        if connection.dialect.name == "postgresql":
            if f"{PREFIX}{table}" in present:
                continue
            for statement in _pg_trigger(table):
                connection.execute(text(statement))
            created.append(f"{PREFIX}{table}")
            continue
        for event in EVENTS:
            if f"{PREFIX}{table}_{event.lower()}" not in present:
                connection.execute(text(_sqlite_trigger(table, event)))
                created.append(f"{PREFIX}{table}_{event.lower()}")
    return created


def drop_triggers(connection: Connection) -> None:
    """Every trigger of ours (migration 0015's downgrade)."""
    tables, present = _existing(connection)
    for table in GUILD_OF:
        if connection.dialect.name == "postgresql":
            if f"{PREFIX}{table}" in present:
                connection.execute(text(f"DROP TRIGGER {PREFIX}{table} ON {table}"))
            connection.execute(text(f"DROP FUNCTION IF EXISTS {PREFIX}{table}_trigger()"))
            continue
        for event in EVENTS:
            connection.execute(text(f"DROP TRIGGER IF EXISTS {PREFIX}{table}_{event.lower()}"))
