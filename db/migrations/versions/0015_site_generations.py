"""site: a per-guild content generation, kept by the database itself, so an unchanged page costs one read

``site_generations (guild_id, generation)`` moves on in the same transaction as every write to what the
site's pages and feeds show (sessions, their papers, papers, reading lists and items, suggestions and
votes, series and their weeks and settings, the guild's and the site's settings). A web handler reads
it with the site (one statement) and answers a kept body built at the same generation with no other read.

This revision creates the table and, on PostgreSQL, the mark and flush machinery. The row triggers on
the followed tables are :mod:`db.site_generations`' (kept by ``db.migrate`` after every upgrade, since
those tables belong to other branches, which may create them after this one or rebuild them).

Revision ID: 0015
Revises: 0013
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from db.site_generations import drop_triggers

revision: str = "0015"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The reading search flush's advisory lock (0014's LOCK_CLASS and key), taken before a generation's row.
SEARCH_LOCK_CLASS = 0x52534541
_MARKED = "paperclub.site_generations"


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
    op.create_table(
        "site_generations",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("generation", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", name=op.f("pk_site_generations")),
    )
    if op.get_bind().dialect.name == "postgresql":
        _upgrade_postgresql()


def downgrade() -> None:
    drop_triggers(op.get_bind())
    if op.get_bind().dialect.name == "postgresql":
        _downgrade_postgresql()
    op.drop_table("site_generations")
