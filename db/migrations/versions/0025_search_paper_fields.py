"""reading + papers: a paper's search document also holds its TLDR, venue and decision

The sources' fields (0021) join the list notes in the paper document's body, and an update of ``tldr``,
``venue`` or ``decision`` rewrites the document as one of its title does. SQLite: 0004's paper triggers are
recreated with the new document; PostgreSQL: 0014's write function and its ``rs_papers`` marking trigger.
Existing papers are re-indexed; the downgrade puts the old documents back.

On the reading branch after 0019; it needs the papers branch's 0021 (the columns), so it depends on it.

Revision ID: 0025
Revises: 0019
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

from alembic import op

from db.migrate import revision_module

revision: str = "0025"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = "0021"

_OLD_EVENTS = "UPDATE OF title, authors, arxiv_id, doi, url"
_NEW_EVENTS = "UPDATE OF title, authors, arxiv_id, doi, url, tldr, venue, decision"

# The body: the list notes, then what the sources said (each part only when there is one).
_NEW_PAPER_DOC = """
SELECT p.id * 4 + 2, 'paper', p.id, p.guild_id, p.title, coalesce(p.authors, ''), '',
  trim(coalesce((SELECT {agg}(li.note, ' · ') FROM reading_list_items li
                 WHERE li.paper_id = p.id AND li.note IS NOT NULL), '')
       || ' ' || coalesce(p.tldr, '') || ' ' || coalesce(p.venue, '') || ' ' || coalesce(p.decision, '')),
  trim(coalesce(p.arxiv_id, '') || ' ' || coalesce(p.doi, '') || ' '
       || CASE WHEN p.arxiv_id IS NULL AND p.doi IS NULL THEN coalesce(p.url, '') ELSE '' END)
FROM papers p WHERE {where}
"""


def _reading(new: bool) -> ModuleType:
    """0004's module; with ``new``, its paper document (and so its triggers' bodies) is this revision's."""
    module = revision_module("0004_reading.py")
    if new:
        setattr(module, "_PAPER_DOC", _NEW_PAPER_DOC)  # noqa: B010 (a loaded module: no static attribute)
    return module


# ---------------------------------------------------------------- SQLite: 0004's paper triggers


def _sqlite(new: bool) -> None:
    reading = _reading(new)
    for name, body in reading._sqlite_triggers().items():
        if not name.startswith(("rs_papers_", "rs_list_items_")):
            continue  # the other triggers do not write paper documents
        if new:
            body = body.replace(f"AFTER {_OLD_EVENTS} ON papers", f"AFTER {_NEW_EVENTS} ON papers")
        op.execute(f"DROP TRIGGER IF EXISTS {name}")
        op.execute(f"CREATE TRIGGER {name} {body}")
    op.execute("DELETE FROM reading_search WHERE kind = 'paper'")
    op.execute(reading._sqlite_insert(reading._PAPER_DOC, "1 = 1"))


# ---------------------------------------------------------------- PostgreSQL: 0014's writer and marking


def _postgresql(new: bool) -> None:
    flush = revision_module("0014_reading_search_flush.py")
    reading = _reading(new)
    op.execute(
        f"CREATE OR REPLACE FUNCTION {flush._WRITE_SIGNATURE} RETURNS void LANGUAGE sql AS $fn$\n"
        f"{flush._write_function(reading)};\n$fn$"
    )
    table, events, _body = flush._MARK_TRIGGERS["rs_papers"]
    if new:
        events = events.replace(_OLD_EVENTS, _NEW_EVENTS)
    op.execute(f"DROP TRIGGER rs_papers ON {table}")
    op.execute(
        f"CREATE TRIGGER rs_papers AFTER {events} ON {table} FOR EACH ROW EXECUTE FUNCTION rs_papers_trigger()"
    )
    op.execute("SELECT reading_search_write('{}'::integer[], ARRAY(SELECT id FROM papers), '{}'::integer[])")


def upgrade() -> None:
    """Index a paper's TLDR, venue and decision."""
    if op.get_bind().dialect.name == "postgresql":
        _postgresql(new=True)
    else:
        _sqlite(new=True)


def downgrade() -> None:
    """Index papers as 0004 did."""
    if op.get_bind().dialect.name == "postgresql":
        _postgresql(new=False)
    else:
        _sqlite(new=False)
