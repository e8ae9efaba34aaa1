"""papers: when enrichment may ask the sources about a paper again after one of them failed for it

``enrich_failures`` counts the runs in a row a source failed for the paper; ``enrich_retry_at`` holds it
back until then (doubling, capped: bot/services/papers/enrich.py), so a long outage of one source does not
keep the same papers at the head of every run while the rest wait. Added in place (SQLite's ADD COLUMN,
no table rebuild, so ``0004``'s search triggers stay), after 0022 on the papers branch.

Revision ID: 0026
Revises: 0022
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import db.base

revision: str = "0026"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("papers", sa.Column("enrich_failures", sa.Integer(), nullable=False, server_default="0"))
    op.add_column("papers", sa.Column("enrich_retry_at", db.base.UTCDateTime(timezone=True), nullable=True))


def downgrade() -> None:
    op.drop_column("papers", "enrich_retry_at")
    op.drop_column("papers", "enrich_failures")
