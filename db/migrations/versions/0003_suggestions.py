"""suggestions: suggestions, votes, presenter volunteers, polls

Revision ID: 0003
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import db.base

revision: str = "0003"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = ("suggestions",)
depends_on: str | Sequence[str] | None = None

_ACTIVE = "status IN ('open', 'shortlisted', 'accepted')"


def upgrade() -> None:
    """Create the suggestion, vote, volunteer and poll tables."""
    op.create_table(
        "suggestions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("submitter_id", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("topic", sa.String(length=50), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("review_note", sa.Text(), nullable=True),
        sa.Column("reviewed_by", sa.BigInteger(), nullable=True),
        sa.Column("reviewed_at", db.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("channel_id", sa.BigInteger(), nullable=True),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("session_id", sa.Integer(), nullable=True),
        sa.Column("created_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["paper_id"], ["papers.id"], name=op.f("fk_suggestions_paper_id_papers"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["sessions.id"],
            name=op.f("fk_suggestions_session_id_sessions"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_suggestions")),
    )
    op.create_index("ix_suggestions_guild_status", "suggestions", ["guild_id", "status"])
    op.create_index(
        "ix_suggestions_guild_submitter_created", "suggestions", ["guild_id", "submitter_id", "created_at"]
    )
    op.create_index(op.f("ix_suggestions_paper_id"), "suggestions", ["paper_id"])
    op.create_index(
        "uq_suggestions_active_paper",
        "suggestions",
        ["guild_id", "paper_id"],
        unique=True,
        sqlite_where=sa.text(_ACTIVE),
        postgresql_where=sa.text(_ACTIVE),
    )

    for table in ("suggestion_votes", "suggestion_volunteers"):
        op.create_table(
            table,
            sa.Column("suggestion_id", sa.Integer(), nullable=False),
            sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
            sa.Column("created_at", db.base.UTCDateTime(timezone=True), nullable=False),
            sa.ForeignKeyConstraint(
                ["suggestion_id"],
                ["suggestions.id"],
                name=op.f(f"fk_{table}_suggestion_id_suggestions"),
                ondelete="CASCADE",
            ),
            sa.PrimaryKeyConstraint("suggestion_id", "user_id", name=op.f(f"pk_{table}")),
        )

    op.create_table(
        "suggestion_polls",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("created_by", sa.BigInteger(), nullable=False),
        sa.Column("ends_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("total_votes", sa.Integer(), nullable=True),
        sa.Column("winner_suggestion_id", sa.Integer(), nullable=True),
        sa.Column("ended_at", db.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("created_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["winner_suggestion_id"],
            ["suggestions.id"],
            name=op.f("fk_suggestion_polls_winner_suggestion_id_suggestions"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_suggestion_polls")),
    )
    op.create_index(op.f("ix_suggestion_polls_guild_id"), "suggestion_polls", ["guild_id"])
    op.create_index("ix_suggestion_polls_status_ends", "suggestion_polls", ["status", "ends_at"])

    op.create_table(
        "suggestion_poll_options",
        sa.Column("poll_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("suggestion_id", sa.Integer(), nullable=False),
        sa.Column("votes", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["poll_id"],
            ["suggestion_polls.id"],
            name=op.f("fk_suggestion_poll_options_poll_id_suggestion_polls"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["suggestion_id"],
            ["suggestions.id"],
            name=op.f("fk_suggestion_poll_options_suggestion_id_suggestions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("poll_id", "position", name=op.f("pk_suggestion_poll_options")),
    )


def downgrade() -> None:
    """Drop the suggestion tables."""
    op.drop_table("suggestion_poll_options")
    op.drop_index("ix_suggestion_polls_status_ends", table_name="suggestion_polls")
    op.drop_index(op.f("ix_suggestion_polls_guild_id"), table_name="suggestion_polls")
    op.drop_table("suggestion_polls")
    op.drop_table("suggestion_volunteers")
    op.drop_table("suggestion_votes")
    op.drop_index("uq_suggestions_active_paper", table_name="suggestions")
    op.drop_index(op.f("ix_suggestions_paper_id"), table_name="suggestions")
    op.drop_index("ix_suggestions_guild_submitter_created", table_name="suggestions")
    op.drop_index("ix_suggestions_guild_status", table_name="suggestions")
    op.drop_table("suggestions")
