"""reading: drop 0016's bucketed search; PostgreSQL searches with the plain GIN statement again

Removes the bucketed GIN index, ``reading_search_newest()`` and its helpers, and gives 0014's flush its
own body back (it merges the plain index's pending list only). 0014's deferred flush stays: without it
two transactions writing one document at once fail or leave it stale (tests/reading/test_search_writes.py).
The downgrade builds the bucketed index again from the stored documents.

Revision ID: 0019
Revises: 0016
Create Date: 2027-01-04
"""

from __future__ import annotations

from collections.abc import Sequence

from db.migrate import revision_module

revision: str = "0019"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_0016 = revision_module("0016_reading_search_buckets.py")


def upgrade() -> None:
    """Drop 0016's bucketed search."""
    _0016.downgrade()


def downgrade() -> None:
    """Put 0016's bucketed search back."""
    _0016.upgrade()
