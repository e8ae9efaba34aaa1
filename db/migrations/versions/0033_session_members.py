"""session members: who stays out of the recording, questions for the presenter, Interested beside Remind me

Revision ID: 0033
Revises: 0031
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import db.base

revision: str = "0033"
down_revision: str | None = "0031"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "session_subscriptions", sa.Column("asked", sa.Boolean(), server_default=sa.true(), nullable=False)
    )
    op.add_column(
        "session_subscriptions",
        sa.Column("interested", sa.Boolean(), server_default=sa.false(), nullable=False),
    )
    op.create_table(
        "recording_opt_outs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("created_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["sessions.id"],
            name=op.f("fk_recording_opt_outs_session_id_sessions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_recording_opt_outs")),
        sa.UniqueConstraint("session_id", "user_id", name="uq_recording_opt_outs_session_user"),
    )
    op.create_index(op.f("ix_recording_opt_outs_user_id"), "recording_opt_outs", ["user_id"])
    op.create_table(
        "recording_preferences",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("created_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "user_id", name=op.f("pk_recording_preferences")),
    )
    op.create_index(op.f("ix_recording_preferences_user_id"), "recording_preferences", ["user_id"])
    op.create_table(
        "session_questions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("named", sa.Boolean(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=True),
        sa.Column("text", sa.String(length=1000), nullable=False),
        sa.Column("created_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["sessions.id"],
            name=op.f("fk_session_questions_session_id_sessions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_session_questions")),
    )
    op.create_index(op.f("ix_session_questions_session_id"), "session_questions", ["session_id"])
    op.create_index(op.f("ix_session_questions_user_id"), "session_questions", ["user_id"])


def downgrade() -> None:
    op.drop_table("session_questions")
    op.drop_table("recording_preferences")
    op.drop_table("recording_opt_outs")
    with op.batch_alter_table("session_subscriptions") as batch_op:
        batch_op.drop_column("interested")
        batch_op.drop_column("asked")
