"""site: a per-guild content generation, kept by the database itself, so an unchanged page costs one read

``site_generations (guild_id, generation)`` moves on in the same transaction as every write to what the
site shows. This revision creates the table and, on PostgreSQL, the mark and flush machinery; the row
triggers on the followed tables were made by ``db.migrate``. Revision 0018 removes all of it.

Revision ID: 0015
Revises: 0013
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import sqlalchemy as sa
from alembic import op
from sqlalchemy import text
from sqlalchemy.engine import Connection

revision: str = "0015"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The reading search flush's advisory lock (0014's LOCK_CLASS and key), taken before a generation's row.
SEARCH_LOCK_CLASS = 0x52534541
_MARKED = "paperclub.site_generations"


# ---------------------------------------------------------------- the row triggers (once db/site_generations.py)

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


def create_triggers(connection: Connection) -> list[str]:
    """Create every missing trigger (of the tables that exist); the names created."""
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
    """Every trigger of ours (this revision's downgrade, and 0018's upgrade)."""
    tables, present = _existing(connection)
    for table in GUILD_OF:
        if connection.dialect.name == "postgresql":
            if f"{PREFIX}{table}" in present:
                connection.execute(text(f"DROP TRIGGER {PREFIX}{table} ON {table}"))
            connection.execute(text(f"DROP FUNCTION IF EXISTS {PREFIX}{table}_trigger()"))
            continue
        for event in EVENTS:
            connection.execute(text(f"DROP TRIGGER IF EXISTS {PREFIX}{table}_{event.lower()}"))


# ---------------------------------------------------------------- PostgreSQL: mark, then flush at commit

_PG_FUNCTIONS = (
    f"""
CREATE FUNCTION site_generation_mark(g bigint) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  marked text := coalesce(current_setting('{_MARKED}', true), '');
BEGIN
  IF g IS NULL OR position(',' || g::text || ',' IN marked) > 0 THEN
    RETURN;
  END IF;
  IF marked = '' THEN
    INSERT INTO site_generation_flushes (txid) VALUES (txid_current()) ON CONFLICT DO NOTHING;
    marked := ',';
  END IF;
  PERFORM set_config('{_MARKED}', marked || g::text || ',', true);
END;
$fn$
""",
    f"""
CREATE FUNCTION site_generation_flush() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  marked text := coalesce(current_setting('{_MARKED}', true), '');
  guild bigint;
BEGIN
  DELETE FROM site_generation_flushes WHERE txid = NEW.txid;
  PERFORM set_config('{_MARKED}', '', true);  -- a write after this flush registers a new one
  FOR guild IN
    SELECT DISTINCT x::bigint FROM unnest(string_to_array(trim(both ',' FROM marked), ',')) AS x
    WHERE x <> '' ORDER BY 1
  LOOP
    PERFORM pg_advisory_xact_lock({SEARCH_LOCK_CLASS}, hashtext(current_schema() || ':' || guild::text));
    INSERT INTO site_generations (guild_id, generation) VALUES (guild, 1)
      ON CONFLICT (guild_id) DO UPDATE SET generation = site_generations.generation + 1;
  END LOOP;
  RETURN NULL;
END;
$fn$
""",
)


def _upgrade_postgresql() -> None:
    # UNLOGGED: a row lives only inside the transaction that wrote it.
    op.execute("CREATE UNLOGGED TABLE site_generation_flushes (txid bigint PRIMARY KEY)")
    for function in _PG_FUNCTIONS:
        op.execute(function)
    op.execute(
        "CREATE CONSTRAINT TRIGGER sg_flush AFTER INSERT ON site_generation_flushes "
        "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION site_generation_flush()"
    )


def _downgrade_postgresql() -> None:
    op.execute("DROP TABLE site_generation_flushes")  # and its constraint trigger
    op.execute("DROP FUNCTION site_generation_flush()")
    op.execute("DROP FUNCTION site_generation_mark(bigint)")


def upgrade() -> None:
    """Create the ``site_generations`` table and the triggers that move it on."""
    op.create_table(
        "site_generations",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("generation", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", name=op.f("pk_site_generations")),
    )
    if op.get_bind().dialect.name == "postgresql":
        _upgrade_postgresql()


def downgrade() -> None:
    """Drop the site generation triggers, functions and table."""
    drop_triggers(op.get_bind())
    if op.get_bind().dialect.name == "postgresql":
        _downgrade_postgresql()
    op.drop_table("site_generations")
