"""site: a per-guild content generation, kept by the database itself, so an unchanged page costs one read

``site_generations (guild_id, generation)`` moves on in the same transaction as every write to what the
site's pages and feeds show: sessions, their papers, papers, reading lists and their items, suggestions
and their votes (the shortlist), series, their weeks and settings, the guild's settings (zones, topics)
and the site's own settings. A web handler reads it with the site (one statement) and answers a kept
body built at the same generation with no other read; whichever process wrote, its triggers moved it.

SQLite: a row trigger per table and event upserts the row (SQLite has one writer at a time).

PostgreSQL: the row triggers only *mark* the guild in a transaction-local setting (a string test; no
write per row, so a bulk load of 100,000 papers costs no more than one), and the first mark registers
the transaction in ``site_generation_flushes``, whose deferred constraint trigger bumps each marked
guild once, at COMMIT, in guild order. The row lock on a guild's generation is so held only from its
commit's flush to the commit's end. Before it, the flush takes the reading search flush's advisory lock
for the same guild (migration 0014: same class and key), so every transaction takes a guild's search
lock before its generation lock and two committing transactions cannot wait on each other in a cycle.

A savepoint rolled back undoes its marks with it (the setting and the registration are both undone),
and a guild marked needlessly only costs one rebuild of its pages.

Revision ID: 0015
Revises: 0013
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
# The tables it follows come from these features' migrations (0014: reading, after 0004, and its lock).
depends_on: str | Sequence[str] | None = ("0003", "0012", "0014")

#: table → the SQL expression (of a row: ``{row}`` is NEW or OLD) giving the guild it belongs to.
GUILD_OF: dict[str, str] = {
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
EVENTS = ("INSERT", "UPDATE", "DELETE")
# The reading search flush's advisory lock (0014's LOCK_CLASS and key), taken before a generation's row.
SEARCH_LOCK_CLASS = 0x52534541
_MARKED = "paperclub.site_generations"


def _trigger(table: str, event: str) -> str:
    return f"sg_{table}_{event.lower()}"


# ---------------------------------------------------------------- SQLite: row triggers, immediate


def _sqlite_bump(guild: str) -> str:
    # "WHERE true": SQLite's parser needs it before ON CONFLICT in INSERT … SELECT.
    return (
        f"INSERT INTO site_generations (guild_id, generation) SELECT g, 1 FROM (SELECT {guild} AS g) "
        "WHERE g IS NOT NULL ON CONFLICT (guild_id) DO UPDATE SET generation = site_generations.generation + 1;"
    )


def _upgrade_sqlite() -> None:
    for table, guild in GUILD_OF.items():
        for event in EVENTS:
            rows = {"INSERT": ("NEW",), "DELETE": ("OLD",), "UPDATE": ("OLD", "NEW")}[event]
            bumps = [_sqlite_bump(guild.format(row=rows[0]))]
            if len(rows) == 2:  # the guild changed (never, in practice): both move on
                new = guild.format(row="NEW")
                bumps.append(_sqlite_bump(f"CASE WHEN {new} IS NOT {guild.format(row='OLD')} THEN {new} END"))
            op.execute(
                f"CREATE TRIGGER {_trigger(table, event)} AFTER {event} ON {table} "
                f"BEGIN {' '.join(bumps)} END"
            )


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


def _pg_body(table: str) -> str:
    guild = GUILD_OF[table]
    return (
        f"IF TG_OP <> 'INSERT' THEN PERFORM site_generation_mark({guild.format(row='OLD')}); END IF;\n"
        f"IF TG_OP <> 'DELETE' THEN PERFORM site_generation_mark({guild.format(row='NEW')}); END IF;"
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
    for table in GUILD_OF:
        name = f"sg_{table}"
        op.execute(
            f"CREATE FUNCTION {name}_trigger() RETURNS trigger LANGUAGE plpgsql AS $fn$\n"
            f"BEGIN\n{_pg_body(table)}\nRETURN NULL;\nEND;\n$fn$"
        )
        op.execute(
            f"CREATE TRIGGER {name} AFTER INSERT OR UPDATE OR DELETE ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION {name}_trigger()"
        )


def _downgrade_postgresql() -> None:
    for table in GUILD_OF:
        op.execute(f"DROP TRIGGER sg_{table} ON {table}")
        op.execute(f"DROP FUNCTION sg_{table}_trigger()")
    op.execute("DROP TABLE site_generation_flushes")  # and its constraint trigger
    op.execute("DROP FUNCTION site_generation_flush()")
    op.execute("DROP FUNCTION site_generation_mark(bigint)")


def upgrade() -> None:
    op.create_table(
        "site_generations",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("generation", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", name=op.f("pk_site_generations")),
    )
    if op.get_bind().dialect.name == "postgresql":
        _upgrade_postgresql()
    else:
        _upgrade_sqlite()


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _downgrade_postgresql()
    else:
        for table in GUILD_OF:
            for event in EVENTS:
                op.execute(f"DROP TRIGGER {_trigger(table, event)}")
    op.drop_table("site_generations")
