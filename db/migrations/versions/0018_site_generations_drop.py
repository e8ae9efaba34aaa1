"""site: drop 0015's content generations; every page is built from the store at each request

Removes the ``site_generations`` table, its row triggers on the tables the site shows and, on PostgreSQL,
the mark-and-flush functions: all that revision 0015 and ``db.migrate`` made. The downgrade puts them back
as they were (the triggers on whichever followed tables exist), so the release before runs again.

Revision ID: 0018
Revises: 0015
Create Date: 2027-01-04
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

from db.migrate import revision_module

revision: str = "0018"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_0015 = revision_module("0015_site_generations.py")


def upgrade() -> None:
    """Drop 0015's site generations."""
    _0015.downgrade()


def downgrade() -> None:
    """Put 0015's site generations and their triggers back."""
    _0015.upgrade()
    _0015.create_triggers(op.get_bind())
