"""reading: on PostgreSQL, write each search document once per transaction, in id order

The triggers only mark what changed (``reading_search_dirty``); a deferred constraint trigger flushes at
COMMIT, rewriting each marked document once, sorted by id, under a per-guild advisory lock (so two
transactions never overwrite each other with a stale document). Statement triggers would not do: asyncpg's
``executemany`` fires them once per row. Inside a writing transaction, a search sees the index as before it.

Revision ID: 0014
Revises: 0004
Create Date: 2026-12-14
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from alembic import op

revision: str = "0014"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _reading_0004() -> ModuleType:
    """Migration 0004's module (its document queries and triggers), loaded from its file."""
    path = Path(__file__).with_name("0004_reading.py")
    spec = importlib.util.spec_from_file_location("paperclub_migration_0004_reading", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------- marking (row triggers)

# Kinds as in the index's row id (ref_id * 4 + kind).
SESSION, PAPER, LIST = 1, 2, 3
# Advisory lock class for "writing this guild's search documents" (two-int form; the objid is a hash
# of the schema and the guild, so stores in other schemas of one database do not wait on each other).
LOCK_CLASS = 0x52534541  # "RSEA"
CLEAN_PENDING_AFTER = 256  # documents written by one flush from which it merges the GIN pending list

_TABLES_SQL = (
    # UNLOGGED: their rows live only inside the transaction that wrote them (a crash empties them,
    # which is what it would leave anyway), so they cost no WAL.
    "CREATE UNLOGGED TABLE reading_search_dirty ("
    "txid bigint NOT NULL, kind smallint NOT NULL, ref_id integer NOT NULL, "
    "PRIMARY KEY (txid, kind, ref_id))",
    "CREATE UNLOGGED TABLE reading_search_flushes (txid bigint PRIMARY KEY)",
)

# The flush is registered once per transaction: a transaction-local setting remembers that it was (it is
# undone with a rolled-back savepoint, as the registration itself is, and the flush clears it).
_REGISTERED = "paperclub.reading_search_flush"
_MARK_FUNCTIONS = (
    f"""
CREATE FUNCTION reading_search_register() RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  IF current_setting('{_REGISTERED}', true) IS DISTINCT FROM txid_current()::text THEN
    INSERT INTO reading_search_flushes (txid) VALUES (txid_current()) ON CONFLICT DO NOTHING;
    PERFORM set_config('{_REGISTERED}', txid_current()::text, true);
  END IF;
END;
$fn$
""",
    """
CREATE FUNCTION reading_search_mark(k smallint, ref integer) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  IF ref IS NOT NULL THEN
    INSERT INTO reading_search_dirty (txid, kind, ref_id) VALUES (txid_current(), k, ref) ON CONFLICT DO NOTHING;
    PERFORM reading_search_register();
  END IF;
END;
$fn$
""",
)


def _mark(kind: int, *refs: str) -> str:
    return "\n".join(f"PERFORM reading_search_mark({kind}::smallint, {ref});" for ref in refs)


_OLD_AND_NEW = "IF TG_OP <> 'INSERT' THEN {old} END IF;\nIF TG_OP <> 'DELETE' THEN {new} END IF;"


def _old_and_new(kind: int, column: str) -> str:
    return _OLD_AND_NEW.format(old=_mark(kind, f"OLD.{column}"), new=_mark(kind, f"NEW.{column}"))


_MARK_TRIGGERS = {
    # name: (table, events, plpgsql body); 0004's triggers had the same names, tables and events.
    "rs_sessions": (
        "sessions",
        "INSERT OR DELETE OR UPDATE OF title, description, presenter_name, status",
        _old_and_new(SESSION, "id"),
    ),
    "rs_session_papers": (
        "session_papers",
        "INSERT OR DELETE OR UPDATE",
        _old_and_new(SESSION, "session_id"),
    ),
    "rs_papers": (
        "papers",
        "INSERT OR DELETE OR UPDATE OF title, authors, arxiv_id, doi, url",
        _old_and_new(PAPER, "id")
        + f"""
        IF TG_OP = 'UPDATE' THEN  -- the sessions that read it show its title and ids
          INSERT INTO reading_search_dirty (txid, kind, ref_id)
            SELECT txid_current(), {SESSION}, sp.session_id FROM session_papers sp WHERE sp.paper_id = NEW.id
            ON CONFLICT DO NOTHING;
          PERFORM reading_search_register();
        END IF;
        """,
    ),
    "rs_list_items": (
        "reading_list_items",
        "INSERT OR DELETE OR UPDATE OF note, paper_id",
        _old_and_new(PAPER, "paper_id"),
    ),
    "rs_lists": (
        "reading_lists",
        "INSERT OR DELETE OR UPDATE OF name, description",
        _old_and_new(LIST, "id"),
    ),
}


# ---------------------------------------------------------------- writing (at commit)

_UPSERT = (
    " ON CONFLICT (id) DO UPDATE SET kind = EXCLUDED.kind, ref_id = EXCLUDED.ref_id, "
    "guild_id = EXCLUDED.guild_id, title = EXCLUDED.title, people = EXCLUDED.people, "
    "papers = EXCLUDED.papers, body = EXCLUDED.body, ids = EXCLUDED.ids "
    "WHERE (reading_search.guild_id, reading_search.title, reading_search.people, reading_search.papers, "
    "reading_search.body, reading_search.ids) IS DISTINCT FROM "
    "(EXCLUDED.guild_id, EXCLUDED.title, EXCLUDED.people, EXCLUDED.papers, EXCLUDED.body, EXCLUDED.ids)"
)


_WRITE_SIGNATURE = "reading_search_write(sids integer[], pids integer[], lids integer[])"


def _write_function(old: ModuleType) -> str:
    """Drop the documents whose row is gone (or whose session is cancelled), then upsert the others in one
    statement, sorted by id, so a bulk load lays the table out in id order."""
    gone = " OR ".join(
        f"(r.id IN (SELECT x::bigint * 4 + {kind} FROM unnest({refs}) AS x) "
        f"AND NOT EXISTS (SELECT 1 FROM {table} t WHERE t.id = r.ref_id AND {indexed}))"
        for kind, refs, table, indexed in (
            (SESSION, "sids", "sessions", "t.status <> 'cancelled'"),
            (PAPER, "pids", "papers", "true"),
            (LIST, "lids", "reading_lists", "true"),
        )
    )
    documents = " UNION ALL ".join(
        f"({doc.format(agg='string_agg', where=where)})"
        for doc, where in (
            (old._SESSION_DOC, "s.id = ANY(sids)"),
            (old._PAPER_DOC, "p.id = ANY(pids)"),
            (old._LIST_DOC, "l.id = ANY(lids)"),
        )
    )
    columns = old._COLUMNS
    return (
        f"DELETE FROM reading_search r WHERE {gone};\n"
        f"INSERT INTO reading_search ({columns}) SELECT * FROM ({documents}) AS d ({columns}) ORDER BY d.id"
        + _UPSERT
    )


_FLUSH_FUNCTION = f"""
CREATE FUNCTION reading_search_flush() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  sids integer[];
  pids integer[];
  lids integer[];
  guild bigint;
BEGIN
  DELETE FROM reading_search_flushes WHERE txid = NEW.txid;
  PERFORM set_config('{_REGISTERED}', '', true);  -- a write after this flush registers a new one
  WITH taken AS (DELETE FROM reading_search_dirty WHERE txid = NEW.txid RETURNING kind, ref_id)
  SELECT coalesce(array_agg(ref_id) FILTER (WHERE kind = {SESSION}), '{{}}'),
         coalesce(array_agg(ref_id) FILTER (WHERE kind = {PAPER}), '{{}}'),
         coalesce(array_agg(ref_id) FILTER (WHERE kind = {LIST}), '{{}}')
    INTO sids, pids, lids FROM taken;
  FOR guild IN
    SELECT g FROM (
      SELECT r.guild_id AS g FROM reading_search r WHERE r.id IN (
        SELECT x::bigint * 4 + {SESSION} FROM unnest(sids) AS x
        UNION ALL SELECT x::bigint * 4 + {PAPER} FROM unnest(pids) AS x
        UNION ALL SELECT x::bigint * 4 + {LIST} FROM unnest(lids) AS x)
      UNION SELECT s.guild_id FROM sessions s WHERE s.id = ANY(sids)
      UNION SELECT p.guild_id FROM papers p WHERE p.id = ANY(pids)
      UNION SELECT l.guild_id FROM reading_lists l WHERE l.id = ANY(lids)) AS guilds
    ORDER BY g
  LOOP
    PERFORM pg_advisory_xact_lock({LOCK_CLASS}, hashtext(current_schema() || ':' || guild::text));
  END LOOP;
  -- New statements from here: under READ COMMITTED they see what committed while we waited.
  PERFORM reading_search_write(sids, pids, lids);
  -- A large write leaves its GIN entries in the index's pending list, which every search then scans
  -- in full until a VACUUM (with all of a bulk load in it the planner even prefers a sequential scan):
  -- merge them into the index now, in bulk.
  IF coalesce(cardinality(sids), 0) + coalesce(cardinality(pids), 0) + coalesce(cardinality(lids), 0)
     >= {CLEAN_PENDING_AFTER} THEN
    PERFORM gin_clean_pending_list('ix_reading_search_tsv'::regclass);
  END IF;
  RETURN NULL;
END;
$fn$
"""


def _upgrade_postgresql() -> None:
    old = _reading_0004()
    for name, (table, _events, _body) in old._PG_TRIGGERS.items():
        op.execute(f"DROP TRIGGER {name} ON {table}")
        op.execute(f"DROP FUNCTION {name}_trigger()")
    for signature in old._PG_FUNCTIONS:
        op.execute(f"DROP FUNCTION {signature}")
    for statement in _TABLES_SQL:
        op.execute(statement)
    for function in _MARK_FUNCTIONS:
        op.execute(function)
    op.execute(
        f"CREATE FUNCTION {_WRITE_SIGNATURE} RETURNS void LANGUAGE sql AS $fn$\n{_write_function(old)};\n$fn$"
    )
    op.execute(_FLUSH_FUNCTION)
    op.execute(
        "CREATE CONSTRAINT TRIGGER rs_flush AFTER INSERT ON reading_search_flushes "
        "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION reading_search_flush()"
    )
    for name, (table, events, body) in _MARK_TRIGGERS.items():
        op.execute(
            f"CREATE FUNCTION {name}_trigger() RETURNS trigger LANGUAGE plpgsql AS $fn$\n"
            f"BEGIN\n{body}\nRETURN NULL;\nEND;\n$fn$"
        )
        op.execute(
            f"CREATE TRIGGER {name} AFTER {events} ON {table} FOR EACH ROW EXECUTE FUNCTION {name}_trigger()"
        )
    # What 0004's triggers left behind: dead rows and documents out of id order. Rewrite the table in id
    # order (it also rebuilds the GIN index compactly) and refresh the planner's statistics.
    op.execute("CLUSTER reading_search USING reading_search_pkey")
    op.execute("ANALYZE reading_search")


def _downgrade_postgresql() -> None:
    old = _reading_0004()
    for name, (table, _events, _body) in _MARK_TRIGGERS.items():
        op.execute(f"DROP TRIGGER {name} ON {table}")
        op.execute(f"DROP FUNCTION {name}_trigger()")
    op.execute("DROP TABLE reading_search_flushes")  # and its constraint trigger
    op.execute("DROP TABLE reading_search_dirty")
    op.execute("DROP FUNCTION reading_search_flush()")
    op.execute(f"DROP FUNCTION {_WRITE_SIGNATURE}")
    op.execute("DROP FUNCTION reading_search_mark(smallint, integer)")
    op.execute("DROP FUNCTION reading_search_register()")
    for signature, body in old._PG_FUNCTIONS.items():
        op.execute(f"CREATE FUNCTION {signature} RETURNS void LANGUAGE sql AS $fn$\n{body};\n$fn$")
    for name, (table, events, body) in old._PG_TRIGGERS.items():
        op.execute(
            f"CREATE FUNCTION {name}_trigger() RETURNS trigger LANGUAGE plpgsql AS $fn$\n"
            f"BEGIN\n{body}\nRETURN NULL;\nEND;\n$fn$"
        )
        op.execute(
            f"CREATE TRIGGER {name} AFTER {events} ON {table} FOR EACH ROW EXECUTE FUNCTION {name}_trigger()"
        )


def upgrade() -> None:
    """On PostgreSQL, write search documents once per transaction, at commit."""
    # SQLite keeps 0004's FTS5 triggers: FTS5 has no dead rows to leave behind, and SQLite has neither
    # deferred nor statement-level triggers.
    if op.get_bind().dialect.name == "postgresql":
        _upgrade_postgresql()


def downgrade() -> None:
    """On PostgreSQL, put back 0004's per-row search triggers."""
    if op.get_bind().dialect.name == "postgresql":
        _downgrade_postgresql()
