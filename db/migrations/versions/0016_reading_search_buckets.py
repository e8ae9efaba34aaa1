"""reading: on PostgreSQL, find the newest matches of several words bucket by bucket, newest first

A second GIN index over each document's lexemes suffixed with its guild and id bucket, so a conjunction of
common words is found from a few short posting lists: ``reading_search_newest(q, guild, cap)`` walks the
buckets newest first (each candidate still checked with ``tsv @@ q``), then the plain index; a query
expected to be rare skips the walk. Its plan is built per call (``EXECUTE … USING``), without JIT. SQLite
is unchanged (FTS5 with ``ORDER BY rowid DESC`` already stops early).

Revision ID: 0016
Revises: 0014
Create Date: 2026-12-01
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from alembic import op

revision: str = "0016"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BUCKET_BITS = 13
"""A bucket is 8,192 consecutive index ids (ids are ref_id * 4 + kind): 2,048 papers and as many sessions.
At 100,000 papers (bench.reading_bench) the ranked query's p99 was 9.96-10.32 ms with 4,096-id buckets,
7.45-8.30 ms with 8,192 and 9.86 ms with 16,384: a two-word query's 251 newest matches span half as many
buckets (half the probes), while each bucket's posting lists stay short."""
WALK_BUCKETS = 128
"""Buckets walked before the rest comes from the plain index (about 260,000 papers, as 256 of 4,096 ids)."""
RARE_MATCHES = 200
"""At most this many matches estimated: fetched from the plain index, not bucket by bucket."""
INDEX = "ix_reading_search_buckets"

# Lexemes of a document, each suffixed with '#<guild in hex>.<bucket>'. Stored documents never hold '#':
# migration 0004 turns punctuation into spaces before parsing.
_BUCKETED = f"""
CREATE FUNCTION reading_search_bucketed(doc tsvector, guild bigint, doc_id bigint) RETURNS tsvector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
  SELECT array_to_tsvector(coalesce(
    array_agg(l || '#' || to_hex(guild) || '.' || (doc_id >> {BUCKET_BITS})::text), '{{}}'))
  FROM unnest(tsvector_to_array(doc)) AS l
$fn$
"""
# The same suffix on every lexeme of a tsquery of plain lexemes (the search's: letters and digits only,
# combined with & and |), so it matches a bucketed document exactly when the query matches the document.
_BUCKET_QUERY = """
CREATE FUNCTION reading_search_bucket_query(q tsquery, guild bigint, bucket bigint) RETURNS tsquery
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
  SELECT regexp_replace(q::text, '''([^'']*)''', '''\\1#' || to_hex(guild) || '.' || bucket::text || '''', 'g')::tsquery
$fn$
"""
_NEWEST_SIGNATURE = "reading_search_newest(q tsquery, guild bigint, cap integer, walk integer, rare real)"
# $1 q, $2 guild, $3 cap, $4 walk. ``(tsv @@ $1) IS TRUE`` is the exact check, written so that the planner
# does not also bitmap-AND the plain index into every bucket's scan.
_WALK_QUERY = f"""
WITH top AS (SELECT coalesce(max(r.id), 0) >> {BUCKET_BITS} AS bucket FROM reading_search r),
walked AS MATERIALIZED (
  SELECT m.id, m.kind, m.ref_id, m.tsv
  FROM top, generate_series(top.bucket, greatest(top.bucket - $4 + 1, 0), -1) AS b(n)
  CROSS JOIN LATERAL (
    SELECT r.id, r.kind, r.ref_id, r.tsv FROM reading_search r
    WHERE reading_search_bucketed(r.tsv, r.guild_id, r.id) @@ reading_search_bucket_query($1, $2, b.n)
      AND r.guild_id = $2 AND (r.tsv @@ $1) IS TRUE
    ORDER BY r.id DESC) AS m
  LIMIT $3)
SELECT * FROM (
  SELECT * FROM walked
  UNION ALL
  (SELECT r.id, r.kind, r.ref_id, r.tsv FROM reading_search r, top
   WHERE (SELECT count(*) FROM walked) < $3
     AND r.guild_id = $2 AND r.tsv @@ $1 AND r.id < (greatest(top.bucket - $4 + 1, 0) << {BUCKET_BITS})
   ORDER BY r.id DESC LIMIT $3)) AS found
ORDER BY id DESC LIMIT $3
"""
# What the search ran before this revision: the planner's choice between the backward walk and the bitmap.
_PLAIN_QUERY = """
SELECT r.id, r.kind, r.ref_id, r.tsv FROM reading_search r
WHERE r.guild_id = $2 AND r.tsv @@ $1 ORDER BY r.id DESC LIMIT $3
"""
# A rare conjunction (the planner's estimate of its matches at most ``rare``) has its matches fetched from
# the plain index at once: cheaper than probing every bucket for them. The estimate is the planner's own,
# read from EXPLAIN (which makes the function VOLATILE; it only reads).
_NEWEST = f"""
CREATE FUNCTION {
    _NEWEST_SIGNATURE.replace("walk integer", f"walk integer DEFAULT {WALK_BUCKETS}").replace(
        "rare real", f"rare real DEFAULT {RARE_MATCHES}"
    )
}
RETURNS TABLE (id bigint, kind varchar, ref_id integer, tsv tsvector)
LANGUAGE plpgsql VOLATILE SET jit = off AS $fn$
DECLARE
  plan json;
BEGIN
  EXECUTE format('EXPLAIN (FORMAT JSON) SELECT 1 FROM reading_search WHERE guild_id = %s AND tsv @@ %L::tsquery',
                 guild, q) INTO plan;
  IF (plan -> 0 -> 'Plan' ->> 'Plan Rows')::real <= rare THEN
    RETURN QUERY EXECUTE $q${_PLAIN_QUERY}$q$ USING q, guild, cap;
  ELSE
    RETURN QUERY EXECUTE $q${_WALK_QUERY}$q$ USING q, guild, cap, walk;
  END IF;
END;
$fn$
"""

_CLEAN_PLAIN = "PERFORM gin_clean_pending_list('ix_reading_search_tsv'::regclass);"
_CLEAN_BOTH = _CLEAN_PLAIN + f"\n    PERFORM gin_clean_pending_list('{INDEX}'::regclass);"


def _reading_0014() -> ModuleType:
    """Migration 0014's module (its flush function), loaded from its file."""
    path = Path(__file__).with_name("0014_reading_search_flush.py")
    spec = importlib.util.spec_from_file_location("paperclub_migration_0014_reading_search_flush", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _flush_function(clean_both: bool) -> str:
    flush: str = _reading_0014()._FLUSH_FUNCTION
    assert _CLEAN_PLAIN in flush
    if clean_both:
        flush = flush.replace(_CLEAN_PLAIN, _CLEAN_BOTH)
    return flush.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)


def upgrade() -> None:
    """On PostgreSQL, add the bucketed search index and its newest-first search function."""
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(_BUCKETED)
    op.execute(_BUCKET_QUERY)
    op.execute(_NEWEST)
    op.execute(
        f"CREATE INDEX {INDEX} ON reading_search USING gin (reading_search_bucketed(tsv, guild_id, id))"
    )
    op.execute(_flush_function(clean_both=True))


def downgrade() -> None:
    """On PostgreSQL, drop the bucketed search and restore 0014's flush."""
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(_flush_function(clean_both=False))
    op.execute(f"DROP INDEX {INDEX}")
    op.execute(f"DROP FUNCTION {_NEWEST_SIGNATURE}")
    op.execute("DROP FUNCTION reading_search_bucket_query(tsquery, bigint, bigint)")
    op.execute("DROP FUNCTION reading_search_bucketed(tsvector, bigint, bigint)")
