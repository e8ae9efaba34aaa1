"""jobs: the ``claims`` table of keyed claims (bot/claims.py)

One row per thing one process does at a time (a session's Discord event, a series' organizer thread or
horizon, the command sync, a gateway identify slot), held by an owner until released or expired. Those
claims lived in ``app_state`` and ``job_runs`` before; their rows there are leases of a moment, dropped.

Revision ID: 0030
Revises: 0006
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import db.base

revision: str = "0030"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "claims",
        sa.Column("key", sa.String(length=100), nullable=False),
        sa.Column("owner", sa.String(length=40), nullable=False),
        sa.Column("expires_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_claims")),
    )
    op.execute("DELETE FROM job_runs WHERE name LIKE 'commands.sync:%' OR name LIKE 'gateway.identify.%'")
    op.execute("DELETE FROM app_state WHERE key LIKE 'event-claim:%' OR key LIKE 'series-thread-claim:%'")


def downgrade() -> None:
    op.drop_table("claims")
