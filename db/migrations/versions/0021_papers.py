"""papers: what Semantic Scholar, Hugging Face and OpenReview know, and where each field came from

Every column is nullable and added in place (SQLite's ADD COLUMN, no table rebuild, so ``0004``'s search
triggers stay). ``field_sources`` maps a field to ``[source, fetched_at ISO]`` (bot/services/papers/merge.py).

Revision ID: 0021
Revises: 0001
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import db.base

revision: str = "0021"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = ("papers",)
depends_on: str | Sequence[str] | None = None

COLUMNS = (
    ("year", sa.Integer()),
    ("venue", sa.String(200)),
    ("decision", sa.String(100)),
    ("openreview_url", sa.String(512)),
    ("tldr", sa.Text()),
    ("citation_count", sa.Integer()),
    ("influential_citation_count", sa.Integer()),
    ("pdf_url", sa.String(512)),
    ("code_url", sa.String(512)),
    ("project_url", sa.String(512)),
    ("s2_id", sa.String(64)),
    ("s2_url", sa.String(512)),
    ("hf_url", sa.String(512)),
    ("hf_upvotes", sa.Integer()),
    ("hf_models", sa.Integer()),
    ("hf_datasets", sa.Integer()),
    ("hf_spaces", sa.Integer()),
    ("hf_top", sa.JSON()),
    ("field_sources", sa.JSON()),
    ("enriched_at", db.base.UTCDateTime(timezone=True)),
)


def upgrade() -> None:
    """Add the paper source columns to ``papers``."""
    for name, type_ in COLUMNS:
        op.add_column("papers", sa.Column(name, type_, nullable=True))


def downgrade() -> None:
    """Drop the paper source columns."""
    for name, _ in reversed(COLUMNS):
        op.drop_column("papers", name)
