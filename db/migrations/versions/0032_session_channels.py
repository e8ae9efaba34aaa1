"""session channels: a session (and a series) held in one of the server's voice or stage channels, and how
far the bot has taken its hour

``sessions.channel_id`` / ``channel_name`` and ``series.channel_id`` / ``channel_name`` (None: held at a link,
as before), ``sessions.hour_stage`` (None, ``active`` or ``completed``: the voice or stage event started or
ended by the bot). Added in place, nullable (SQLite's ADD COLUMN, no table rebuild, so ``0004``'s search
triggers on sessions stay), on a branch of its own from ``0001`` standing on the series' ``0012``, so a store
at any earlier head upgrades.

Revision ID: 0032
Revises: 0001
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0032"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = ("session_channels",)
depends_on: str | Sequence[str] | None = "0012"


def upgrade() -> None:
    for table in ("sessions", "series"):
        op.add_column(table, sa.Column("channel_id", sa.BigInteger(), nullable=True))
        op.add_column(table, sa.Column("channel_name", sa.String(100), nullable=True))
    op.add_column("sessions", sa.Column("hour_stage", sa.String(20), nullable=True))


def downgrade() -> None:
    op.drop_column("sessions", "hour_stage")
    for table in ("series", "sessions"):
        op.drop_column(table, "channel_name")
        op.drop_column(table, "channel_id")
