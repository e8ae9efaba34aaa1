"""suggestions: the message "Suggest this paper" was used on (channel and message ids, nullable)

Added in place (SQLite's ADD COLUMN, no table rebuild), on its own branch from ``0003``.

Revision ID: 0023
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = ("suggestion_source",)
depends_on: str | Sequence[str] | None = None

COLUMNS = ("source_channel_id", "source_message_id")


def upgrade() -> None:
    """Add the source channel and message ids to ``suggestions``."""
    for name in COLUMNS:
        op.add_column("suggestions", sa.Column(name, sa.BigInteger(), nullable=True))


def downgrade() -> None:
    """Drop the suggestion source columns."""
    for name in reversed(COLUMNS):
        op.drop_column("suggestions", name)
