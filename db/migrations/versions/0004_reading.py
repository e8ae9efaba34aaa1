"""reading: reading lists, saved searches, and the full-text index kept in step by triggers

``reading_search`` holds one document per session, paper and reading list (row id ``ref_id * 4 + kind``),
rewritten by triggers in the same transaction as any write; cancelled sessions are not indexed. SQLite: an
FTS5 table (porter, diacritics folded); PostgreSQL: a weighted generated ``tsvector`` with a GIN index. Both
split words as bot/services/reading/search.py splits queries.

Revision ID: 0004
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import db.base

revision: str = "0004"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = ("reading",)
depends_on: str | Sequence[str] | None = None

# ---------------------------------------------------------------- document queries (both dialects)
# `{agg}` is group_concat (SQLite) or string_agg (PostgreSQL); `{where}` picks the rows to (re)index.

_COLUMNS = "id, kind, ref_id, guild_id, title, people, papers, body, ids"

_SESSION_DOC = """
SELECT s.id * 4 + 1, 'session', s.id, s.guild_id, s.title, coalesce(s.presenter_name, ''),
  coalesce((SELECT {agg}(x.t, ' · ') FROM (
      SELECT p.title AS t FROM session_papers sp JOIN papers p ON p.id = sp.paper_id
      WHERE sp.session_id = s.id ORDER BY sp.position) AS x), ''),
  coalesce(s.description, ''),
  coalesce((SELECT {agg}(x.i, ' ') FROM (
      SELECT trim(coalesce(p.arxiv_id, '') || ' ' || coalesce(p.doi, '')) AS i
      FROM session_papers sp JOIN papers p ON p.id = sp.paper_id
      WHERE sp.session_id = s.id ORDER BY sp.position) AS x), '')
FROM sessions s WHERE s.status <> 'cancelled' AND {where}
"""

_PAPER_DOC = """
SELECT p.id * 4 + 2, 'paper', p.id, p.guild_id, p.title, coalesce(p.authors, ''), '',
  coalesce((SELECT {agg}(li.note, ' · ') FROM reading_list_items li
            WHERE li.paper_id = p.id AND li.note IS NOT NULL), ''),
  trim(coalesce(p.arxiv_id, '') || ' ' || coalesce(p.doi, '') || ' '
       || CASE WHEN p.arxiv_id IS NULL AND p.doi IS NULL THEN coalesce(p.url, '') ELSE '' END)
FROM papers p WHERE {where}
"""

_LIST_DOC = """
SELECT l.id * 4 + 3, 'list', l.id, l.guild_id, l.name, '', '', coalesce(l.description, ''), ''
FROM reading_lists l WHERE {where}
"""


def _create_tables() -> None:
    op.create_table(
        "reading_lists",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("normalized_name", sa.String(length=100), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("created_by", sa.BigInteger(), nullable=True),
        sa.Column("created_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reading_lists")),
        sa.UniqueConstraint("guild_id", "normalized_name", name="uq_reading_lists_guild_name"),
    )
    op.create_table(
        "reading_list_items",
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("note", sa.String(length=500), nullable=True),
        sa.Column("added_by", sa.BigInteger(), nullable=True),
        sa.Column("added_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["list_id"],
            ["reading_lists.id"],
            name=op.f("fk_reading_list_items_list_id_reading_lists"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["paper_id"],
            ["papers.id"],
            name=op.f("fk_reading_list_items_paper_id_papers"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("list_id", "paper_id", name=op.f("pk_reading_list_items")),
    )
    op.create_index(op.f("ix_reading_list_items_paper_id"), "reading_list_items", ["paper_id"], unique=False)
    # "Which sessions read this paper?" (search results, lists) looks session_papers up by paper;
    # its primary key starts with session_id, so without this it scans the table. (A wish for the
    # core model: index=True on SessionPaper.paper_id.)
    op.create_index("ix_reading_session_papers_paper_id", "session_papers", ["paper_id"], unique=False)
    op.create_table(
        "reading_search_queries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("query", sa.String(length=200), nullable=False),
        sa.Column("created_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reading_search_queries")),
        sa.UniqueConstraint("guild_id", "query", name="uq_reading_search_queries_guild_query"),
    )


# ---------------------------------------------------------------- SQLite: FTS5 + triggers


def _sqlite_insert(doc: str, where: str) -> str:
    columns = _COLUMNS.replace("id,", "rowid,", 1)
    return f"INSERT INTO reading_search({columns}) " + doc.format(agg="group_concat", where=where) + ";"


def _sqlite_delete(rowid_expr: str) -> str:
    return f"DELETE FROM reading_search WHERE rowid = {rowid_expr};"


def _sqlite_sessions_of_paper(paper: str) -> str:
    """Re-index every session that reads paper `paper` (OLD.id / NEW.id)."""
    return (
        "DELETE FROM reading_search WHERE rowid IN "
        f"(SELECT session_id * 4 + 1 FROM session_papers WHERE paper_id = {paper});\n"
        + _sqlite_insert(
            _SESSION_DOC, f"s.id IN (SELECT session_id FROM session_papers WHERE paper_id = {paper})"
        )
    )


def _sqlite_session(ref: str) -> str:
    return _sqlite_delete(f"{ref} * 4 + 1") + _sqlite_insert(_SESSION_DOC, f"s.id = {ref}")


def _sqlite_paper(ref: str) -> str:
    return _sqlite_delete(f"{ref} * 4 + 2") + _sqlite_insert(_PAPER_DOC, f"p.id = {ref}")


def _sqlite_list(ref: str) -> str:
    return _sqlite_delete(f"{ref} * 4 + 3") + _sqlite_insert(_LIST_DOC, f"l.id = {ref}")


def _sqlite_triggers() -> dict[str, str]:
    return {
        "rs_sessions_ai": f"AFTER INSERT ON sessions BEGIN {_sqlite_session('NEW.id')} END",
        "rs_sessions_au": (
            "AFTER UPDATE OF title, description, presenter_name, status ON sessions "
            f"BEGIN {_sqlite_session('NEW.id')} END"
        ),
        "rs_sessions_ad": f"AFTER DELETE ON sessions BEGIN {_sqlite_delete('OLD.id * 4 + 1')} END",
        "rs_session_papers_ai": f"AFTER INSERT ON session_papers BEGIN {_sqlite_session('NEW.session_id')} END",
        "rs_session_papers_au": (
            "AFTER UPDATE ON session_papers "
            f"BEGIN {_sqlite_session('OLD.session_id')} {_sqlite_session('NEW.session_id')} END"
        ),
        "rs_session_papers_ad": f"AFTER DELETE ON session_papers BEGIN {_sqlite_session('OLD.session_id')} END",
        "rs_papers_ai": f"AFTER INSERT ON papers BEGIN {_sqlite_paper('NEW.id')} END",
        "rs_papers_au": (
            "AFTER UPDATE OF title, authors, arxiv_id, doi, url ON papers "
            f"BEGIN {_sqlite_paper('NEW.id')} {_sqlite_sessions_of_paper('NEW.id')} END"
        ),
        "rs_papers_ad": f"AFTER DELETE ON papers BEGIN {_sqlite_delete('OLD.id * 4 + 2')} END",
        "rs_list_items_ai": f"AFTER INSERT ON reading_list_items BEGIN {_sqlite_paper('NEW.paper_id')} END",
        "rs_list_items_au": (
            "AFTER UPDATE OF note, paper_id ON reading_list_items "
            f"BEGIN {_sqlite_paper('OLD.paper_id')} {_sqlite_paper('NEW.paper_id')} END"
        ),
        "rs_list_items_ad": f"AFTER DELETE ON reading_list_items BEGIN {_sqlite_paper('OLD.paper_id')} END",
        "rs_lists_ai": f"AFTER INSERT ON reading_lists BEGIN {_sqlite_list('NEW.id')} END",
        "rs_lists_au": f"AFTER UPDATE OF name, description ON reading_lists BEGIN {_sqlite_list('NEW.id')} END",
        "rs_lists_ad": f"AFTER DELETE ON reading_lists BEGIN {_sqlite_delete('OLD.id * 4 + 3')} END",
    }


def _upgrade_sqlite() -> None:
    op.execute(
        "CREATE VIRTUAL TABLE reading_search USING fts5("
        "kind UNINDEXED, ref_id UNINDEXED, guild_id UNINDEXED, title, people, papers, body, ids, "
        "tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    # Merge the index's segments as soon as two share a level (FTS5's default waits for four). Every
    # write is its own small segment, and a query reads every segment: bm25() counts each word's
    # rows across all of them and each row id is sought in each. With two per level a store of
    # 120,000 documents (bench/reading_bench.py --n 100000) keeps 8 segments instead of 18, and a
    # search on common words costs about a quarter less, for some more merging work on writes.
    op.execute("INSERT INTO reading_search(reading_search, rank) VALUES('automerge', 2)")
    for name, body in _sqlite_triggers().items():
        op.execute(f"CREATE TRIGGER {name} {body}")
    for doc in (_SESSION_DOC, _PAPER_DOC, _LIST_DOC):  # index what is already stored
        op.execute(_sqlite_insert(doc, "1 = 1"))


def _downgrade_sqlite() -> None:
    for name in _sqlite_triggers():
        op.execute(f"DROP TRIGGER IF EXISTS {name}")
    op.execute("DROP TABLE IF EXISTS reading_search")


# ---------------------------------------------------------------- PostgreSQL: tsvector + GIN + triggers

# Punctuation (ASCII, Latin-1, general) becomes a space before parsing, as bot/services/reading/search.py does
# with queries; listed as code-point ranges so the result does not depend on the locale.
_PG_PUNCT = r"[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e\u00a0-\u00bf\u2010-\u2027\u2030-\u205e]+"


def _pg_vector(column: str, weight: str) -> str:
    return (
        f"setweight(to_tsvector('english'::regconfig, regexp_replace({column}, '{_PG_PUNCT}', ' ', 'g')), "
        f"'{weight}')"
    )


_PG_FUNCTIONS = {
    "reading_search_session_doc(sid integer)": (
        "DELETE FROM reading_search WHERE id = sid::bigint * 4 + 1;\n"
        f"INSERT INTO reading_search ({_COLUMNS}) "
        + _SESSION_DOC.format(agg="string_agg", where="s.id = sid")
    ),
    "reading_search_paper_doc(pid integer)": (
        "DELETE FROM reading_search WHERE id = pid::bigint * 4 + 2;\n"
        f"INSERT INTO reading_search ({_COLUMNS}) " + _PAPER_DOC.format(agg="string_agg", where="p.id = pid")
    ),
    "reading_search_list_doc(lid integer)": (
        "DELETE FROM reading_search WHERE id = lid::bigint * 4 + 3;\n"
        f"INSERT INTO reading_search ({_COLUMNS}) " + _LIST_DOC.format(agg="string_agg", where="l.id = lid")
    ),
}

_PG_TRIGGERS = {
    # name: (table, events, plpgsql body)
    "rs_sessions": (
        "sessions",
        "INSERT OR DELETE OR UPDATE OF title, description, presenter_name, status",
        """
        IF TG_OP = 'DELETE' THEN
          DELETE FROM reading_search WHERE id = OLD.id::bigint * 4 + 1;
        ELSE
          PERFORM reading_search_session_doc(NEW.id);
        END IF;
        """,
    ),
    "rs_session_papers": (
        "session_papers",
        "INSERT OR DELETE OR UPDATE",
        """
        IF TG_OP <> 'INSERT' THEN PERFORM reading_search_session_doc(OLD.session_id); END IF;
        IF TG_OP <> 'DELETE' THEN PERFORM reading_search_session_doc(NEW.session_id); END IF;
        """,
    ),
    "rs_papers": (
        "papers",
        "INSERT OR DELETE OR UPDATE OF title, authors, arxiv_id, doi, url",
        """
        IF TG_OP = 'DELETE' THEN
          DELETE FROM reading_search WHERE id = OLD.id::bigint * 4 + 2;
        ELSE
          PERFORM reading_search_paper_doc(NEW.id);
          IF TG_OP = 'UPDATE' THEN
            PERFORM reading_search_session_doc(sp.session_id)
              FROM session_papers sp WHERE sp.paper_id = NEW.id;
          END IF;
        END IF;
        """,
    ),
    "rs_list_items": (
        "reading_list_items",
        "INSERT OR DELETE OR UPDATE OF note, paper_id",
        """
        IF TG_OP <> 'INSERT' THEN PERFORM reading_search_paper_doc(OLD.paper_id); END IF;
        IF TG_OP <> 'DELETE' THEN PERFORM reading_search_paper_doc(NEW.paper_id); END IF;
        """,
    ),
    "rs_lists": (
        "reading_lists",
        "INSERT OR DELETE OR UPDATE OF name, description",
        """
        IF TG_OP = 'DELETE' THEN
          DELETE FROM reading_search WHERE id = OLD.id::bigint * 4 + 3;
        ELSE
          PERFORM reading_search_list_doc(NEW.id);
        END IF;
        """,
    ),
}


def _upgrade_postgresql() -> None:
    vector = " || ".join(
        _pg_vector(column, weight)
        for column, weight in (("title", "A"), ("ids", "A"), ("people", "B"), ("papers", "B"), ("body", "C"))
    )
    op.execute(
        "CREATE TABLE reading_search ("
        "id bigint PRIMARY KEY, kind varchar(10) NOT NULL, ref_id integer NOT NULL, "
        "guild_id bigint NOT NULL, title text NOT NULL, people text NOT NULL, papers text NOT NULL, "
        f"body text NOT NULL, ids text NOT NULL, tsv tsvector GENERATED ALWAYS AS ({vector}) STORED)"
    )
    op.execute("CREATE INDEX ix_reading_search_tsv ON reading_search USING gin (tsv)")
    op.execute("CREATE INDEX ix_reading_search_guild ON reading_search (guild_id, kind)")
    for signature, body in _PG_FUNCTIONS.items():
        op.execute(f"CREATE FUNCTION {signature} RETURNS void LANGUAGE sql AS $fn$\n{body};\n$fn$")
    for name, (table, events, body) in _PG_TRIGGERS.items():
        op.execute(
            f"CREATE FUNCTION {name}_trigger() RETURNS trigger LANGUAGE plpgsql AS $fn$\n"
            f"BEGIN\n{body}\nRETURN NULL;\nEND;\n$fn$"
        )
        op.execute(
            f"CREATE TRIGGER {name} AFTER {events} ON {table} FOR EACH ROW EXECUTE FUNCTION {name}_trigger()"
        )
    for doc in (_SESSION_DOC, _PAPER_DOC, _LIST_DOC):  # index what is already stored
        op.execute(f"INSERT INTO reading_search ({_COLUMNS}) " + doc.format(agg="string_agg", where="true"))


def _downgrade_postgresql() -> None:
    for name, (table, _events, _body) in _PG_TRIGGERS.items():
        op.execute(f"DROP TRIGGER IF EXISTS {name} ON {table}")
        op.execute(f"DROP FUNCTION IF EXISTS {name}_trigger()")
    for signature in _PG_FUNCTIONS:
        op.execute(f"DROP FUNCTION IF EXISTS {signature}")
    op.execute("DROP TABLE IF EXISTS reading_search")


def upgrade() -> None:
    """Create the reading tables and the full-text index with its triggers for this dialect."""
    _create_tables()
    if op.get_bind().dialect.name == "sqlite":
        _upgrade_sqlite()
    else:
        _upgrade_postgresql()


def downgrade() -> None:
    """Drop the full-text index, its triggers and the reading tables."""
    if op.get_bind().dialect.name == "sqlite":
        _downgrade_sqlite()
    else:
        _downgrade_postgresql()
    op.drop_table("reading_search_queries")
    op.drop_index("ix_reading_session_papers_paper_id", table_name="session_papers")
    op.drop_index(op.f("ix_reading_list_items_paper_id"), table_name="reading_list_items")
    op.drop_table("reading_list_items")
    op.drop_table("reading_lists")
