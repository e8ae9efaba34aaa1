"""jobs: the claims and leases of periodic background jobs (bot/jobs.py)

Revision ID: 0006
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import db.base

revision: str = "0006"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = ("jobs",)
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the ``job_runs`` table."""
    op.create_table(
        "job_runs",
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("next_run_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("claimed_due", db.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("lease_owner", sa.String(length=40), nullable=True),
        sa.Column("lease_until", db.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("last_started_at", db.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("last_finished_at", db.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.String(length=300), nullable=True),
        sa.Column("runs", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_job_runs")),
    )


def downgrade() -> None:
    """Drop the ``job_runs`` table."""
    op.drop_table("job_runs")
