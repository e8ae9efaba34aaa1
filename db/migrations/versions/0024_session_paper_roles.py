"""session_papers: each paper's role in its session, ``main`` or ``against`` (read against the main ones)

Added in place with a server default (SQLite's ADD COLUMN, no table rebuild, so ``0004``'s search triggers
stay), on its own branch from ``0001``: every paper stored before is a main paper, as it was shown.

Revision ID: 0024
Revises: 0001
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = ("session_paper_roles",)
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("session_papers", sa.Column("role", sa.String(10), nullable=False, server_default="main"))


def downgrade() -> None:
    op.drop_column("session_papers", "role")
