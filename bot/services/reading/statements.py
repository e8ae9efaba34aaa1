"""The search's SQL per store (SQLite FTS5 with bm25, PostgreSQL tsvector with ts_rank); the query is
always a bound parameter."""

from __future__ import annotations

from sqlalchemy import bindparam, text

from bot.services.reading.hits import MARK_CLOSE, MARK_OPEN

# One pass over the matches: the MAX_RESULTS + 1 newest (rowid order is the index's own, so this stops
# early), each scored, then the page sorted by score; the window count is the number of matches up to
# that cap. Ranking every match of a very common word would cost time in proportion to all of them,
# for results nobody pages to; under the cap the ranking is exact.
SQLITE_PAGE = text(
    "SELECT kind, ref_id, rowid, total FROM ("
    "  SELECT kind, ref_id, rowid, score, count(*) OVER () AS total FROM ("
    "    SELECT rowid, kind, ref_id, bm25(reading_search, 0.0, 0.0, 0.0, 10.0, 4.0, 4.0, 2.0, 8.0) AS score"
    "    FROM reading_search WHERE reading_search MATCH :q AND guild_id = :g"
    "    ORDER BY rowid DESC LIMIT :cap))"
    "ORDER BY score, rowid DESC LIMIT :limit OFFSET :offset"
)
SQLITE_COUNT = text(
    "SELECT count(*) FROM (SELECT 1 FROM reading_search "
    "WHERE reading_search MATCH :q AND guild_id = :g LIMIT :cap)"
)
# The page's rows lie among the MAX_RESULTS + 1 newest matches, so one forward pass over the matches
# between the lowest and the highest of them finds them all: far cheaper than seeking each row id in
# every segment of the index (``rowid IN`` alone), and `+` keeps the IN list a plain filter.
SQLITE_SNIPPETS = text(
    "SELECT rowid, snippet(reading_search, -1, :mo, :mc, '…', 16) FROM reading_search "
    "WHERE reading_search MATCH :q AND rowid BETWEEN :lo AND :hi AND +rowid IN :ids"
).bindparams(bindparam("ids", expanding=True))

# The planner picks between a backward walk over the primary key (common words: the newest rows match)
# and the GIN bitmap (rare words), from the words' frequencies.
PG_PAGE = text(
    "SELECT n.kind, n.ref_id, n.id, count(*) OVER () AS total,"
    "  ts_rank(n.tsv, to_tsquery('english', :q), 1) AS score FROM ("
    "    SELECT id, kind, ref_id, tsv FROM reading_search"
    "    WHERE guild_id = :g AND tsv @@ to_tsquery('english', :q) ORDER BY id DESC LIMIT :cap) AS n "
    "ORDER BY score DESC, n.id DESC LIMIT :limit OFFSET :offset"
)
PG_COUNT = text(
    "SELECT count(*) FROM (SELECT 1 FROM reading_search "
    "WHERE guild_id = :g AND tsv @@ to_tsquery('english', :q) LIMIT :cap) AS m"
)
PG_SNIPPETS = text(
    "SELECT id, ts_headline('english', coalesce(nullif(concat_ws(' · ', nullif(body, ''), "
    "nullif(papers, ''), nullif(people, '')), ''), title), to_tsquery('english', :q), :hl) "
    "FROM reading_search WHERE id IN :ids"
).bindparams(bindparam("ids", expanding=True))
PG_HEADLINE = f"StartSel={MARK_OPEN}, StopSel={MARK_CLOSE}, MaxWords=24, MinWords=8, MaxFragments=2"

SQLITE_SUGGEST = text(
    "SELECT kind, ref_id, title FROM reading_search "
    "WHERE reading_search MATCH :q AND guild_id = :g AND kind IN ('paper', 'list') "
    "ORDER BY bm25(reading_search, 0.0, 0.0, 0.0, 10.0, 1.0, 1.0, 1.0, 1.0), rowid DESC LIMIT :limit"
)
PG_SUGGEST = text(
    "SELECT kind, ref_id, title FROM reading_search "
    "WHERE guild_id = :g AND kind IN ('paper', 'list') AND tsv @@ to_tsquery('english', :q) "
    "ORDER BY ts_rank(tsv, to_tsquery('english', :q), 1) DESC, id DESC LIMIT :limit"
)
