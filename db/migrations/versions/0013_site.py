"""site: the public website's per-guild settings and members' personal calendar feeds

Also indexes ``sessions (guild_id, updated_at)`` for the Atom feed (newest changes first), under a name
of this feature's own (``ix_site_...``) so the sessions schema check leaves it to us.

Revision ID: 0013
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import db.base

revision: str = "0013"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = ("site",)
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the site settings and calendar token tables and the sessions index for the feed."""
    op.create_table(
        "site_settings",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("slug", sa.String(length=40), nullable=True),
        sa.Column("title", sa.String(length=100), nullable=False),
        sa.Column("about", sa.Text(), nullable=True),
        sa.Column("created_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", name=op.f("pk_site_settings")),
        sa.UniqueConstraint("slug", name="uq_site_settings_slug"),
    )
    op.create_table(
        "site_calendar_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", db.base.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_site_calendar_tokens")),
        sa.UniqueConstraint("guild_id", "user_id", name="uq_site_calendar_tokens_guild_user"),
        sa.UniqueConstraint("token_hash", name="uq_site_calendar_tokens_token_hash"),
    )
    op.create_index("ix_site_sessions_guild_updated", "sessions", ["guild_id", "updated_at"], unique=False)


def downgrade() -> None:
    """Drop the site tables and the sessions feed index."""
    op.drop_index("ix_site_sessions_guild_updated", table_name="sessions")
    op.drop_table("site_calendar_tokens")
    op.drop_table("site_settings")
