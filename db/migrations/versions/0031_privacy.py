"""privacy: the servers the bot left (``guild_departures``), kept until their grace period ends

A table of its own on a branch of its own from ``0001``, so a store at any earlier head upgrades.

Revision ID: 0031
Revises: 0001
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import db.base

revision: str = "0031"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = ("privacy",)
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "guild_departures",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("left_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", name=op.f("pk_guild_departures")),
    )


def downgrade() -> None:
    op.drop_table("guild_departures")
