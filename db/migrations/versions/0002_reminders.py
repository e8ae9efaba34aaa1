"""reminders: one row per reminder occurrence

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import db.base

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = ("reminders",)
depends_on: str | Sequence[str] | None = None

_LIVE_SQL = "status IN ('pending', 'sending') AND plan_key IS NOT NULL"


def upgrade() -> None:
    """Create the reminders table and its indexes."""
    op.create_table(
        "reminders",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(length=12), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=True),
        sa.Column("user_id", sa.BigInteger(), nullable=True),
        sa.Column("message", sa.Text(), nullable=True),
        sa.Column("due_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("next_attempt_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("session_id", sa.Integer(), nullable=True),
        sa.Column("offset_minutes", sa.Integer(), nullable=True),
        sa.Column("plan_key", sa.String(length=40), nullable=True),
        sa.Column("repeat", sa.String(length=10), nullable=True),
        sa.Column("repeat_timezone", sa.String(length=64), nullable=True),
        sa.Column("repeat_anchor_day", sa.Integer(), nullable=True),
        sa.Column("series_id", sa.Integer(), nullable=True),
        sa.Column("occurrence", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.String(length=300), nullable=True),
        sa.Column("claim_token", sa.String(length=32), nullable=True),
        sa.Column("claimed_at", db.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("sent_at", db.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("sent_message_id", sa.BigInteger(), nullable=True),
        sa.Column("delayed", sa.Boolean(), nullable=False),
        sa.Column("created_by", sa.BigInteger(), nullable=True),
        sa.Column("cancelled_by", sa.BigInteger(), nullable=True),
        sa.Column("created_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["sessions.id"],
            name=op.f("fk_reminders_session_id_sessions"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reminders")),
    )
    with op.batch_alter_table("reminders", schema=None) as batch_op:
        batch_op.create_index("ix_reminders_status_next_attempt", ["status", "next_attempt_at"], unique=False)
        batch_op.create_index("ix_reminders_guild_status", ["guild_id", "status"], unique=False)
        batch_op.create_index("ix_reminders_session", ["session_id"], unique=False)
        batch_op.create_index(
            "uq_reminders_live_plan",
            ["session_id", "plan_key"],
            unique=True,
            sqlite_where=sa.text(_LIVE_SQL),
            postgresql_where=sa.text(_LIVE_SQL),
        )


def downgrade() -> None:
    """Drop the reminders table and its indexes."""
    with op.batch_alter_table("reminders", schema=None) as batch_op:
        batch_op.drop_index("uq_reminders_live_plan")
        batch_op.drop_index("ix_reminders_session")
        batch_op.drop_index("ix_reminders_guild_status")
        batch_op.drop_index("ix_reminders_status_next_attempt")
    op.drop_table("reminders")
