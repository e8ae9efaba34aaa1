"""series: the club's weekly series, their weeks (one row per series and week date), per-guild settings

New tables only: the weeks link to ``sessions`` by a foreign key of their own, so ``sessions`` is not
rebuilt (a SQLite batch alter would drop the reading search triggers of 0004).

Revision ID: 0012
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import db.base

revision: str = "0012"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = ("series",)
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the series, series weeks and series settings tables."""
    op.create_table(
        "series",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("name_key", sa.String(length=100), nullable=False),
        sa.Column("weekday", sa.Integer(), nullable=False),
        sa.Column("start_time", sa.String(length=5), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("interval", sa.Integer(), nullable=False),
        sa.Column("first_date", sa.Date(), nullable=False),
        sa.Column("anchor_date", sa.Date(), nullable=False),
        sa.Column("until_date", sa.Date(), nullable=True),
        sa.Column("duration_minutes", sa.Integer(), nullable=False),
        sa.Column("signup_url", sa.String(length=600), nullable=True),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("sequence", sa.Integer(), nullable=False),
        sa.Column("board_channel_id", sa.BigInteger(), nullable=True),
        sa.Column("board_message_id", sa.BigInteger(), nullable=True),
        sa.Column("created_by", sa.BigInteger(), nullable=True),
        sa.Column("created_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_series")),
        sa.UniqueConstraint("guild_id", "name_key", name="uq_series_guild_name_key"),
    )
    op.create_index(op.f("ix_series_guild_id"), "series", ["guild_id"], unique=False)
    op.create_table(
        "series_weeks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("series_id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("week_date", sa.Date(), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("skip_reason", sa.String(length=200), nullable=True),
        sa.Column("session_id", sa.Integer(), nullable=True),
        sa.Column("created_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["series_id"], ["series.id"], name=op.f("fk_series_weeks_series_id_series"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["sessions.id"],
            name=op.f("fk_series_weeks_session_id_sessions"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_series_weeks")),
        sa.UniqueConstraint("series_id", "week_date", name="uq_series_weeks_series_date"),
        sa.UniqueConstraint("session_id", name="uq_series_weeks_session"),
    )
    op.create_index("ix_series_weeks_guild_date", "series_weeks", ["guild_id", "week_date"], unique=False)
    op.create_table(
        "series_settings",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("horizon_weeks", sa.Integer(), nullable=False),
        sa.Column("nudge_days", sa.Integer(), nullable=False),
        sa.Column("organizer_thread_id", sa.BigInteger(), nullable=True),
        sa.Column("created_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", name=op.f("pk_series_settings")),
    )


def downgrade() -> None:
    """Drop the series tables."""
    op.drop_table("series_settings")
    op.drop_index("ix_series_weeks_guild_date", table_name="series_weeks")
    op.drop_table("series_weeks")
    op.drop_index(op.f("ix_series_guild_id"), table_name="series")
    op.drop_table("series")
