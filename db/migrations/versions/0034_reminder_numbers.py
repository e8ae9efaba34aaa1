"""reminders: organizers' reminders numbered per server, apart from the automatic ones

Existing organizers' reminders are numbered in each server in the order they were made (a repeat's
occurrences share their first one's number); automatic ones have none. A member's Remind me records how she
asked (``session_subscriptions.via``: "command" for /remind me, else the button), so her DM says what to
press or run to stop it.

Revision ID: 0034
Revises: 0002
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0034"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_LIVE_NUMBER_SQL = "status IN ('pending', 'sending') AND number IS NOT NULL"
_NUMBER_EXISTING = """
UPDATE reminders SET number = (
    SELECT COUNT(DISTINCT COALESCE(other.series_id, other.id)) FROM reminders AS other
    WHERE other.guild_id = reminders.guild_id AND other.kind = 'custom'
    AND COALESCE(other.series_id, other.id) <= COALESCE(reminders.series_id, reminders.id)
) WHERE kind = 'custom'
"""


def upgrade() -> None:
    """Add ``number``, number the organizers' reminders, and keep a live number unique per server."""
    with op.batch_alter_table("reminders", schema=None) as batch_op:
        batch_op.add_column(sa.Column("number", sa.Integer(), nullable=True))
    op.execute(_NUMBER_EXISTING)
    with op.batch_alter_table("reminders", schema=None) as batch_op:
        batch_op.create_index(
            "uq_reminders_live_number",
            ["guild_id", "number"],
            unique=True,
            sqlite_where=sa.text(_LIVE_NUMBER_SQL),
            postgresql_where=sa.text(_LIVE_NUMBER_SQL),
        )
    with op.batch_alter_table("session_subscriptions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("via", sa.String(length=10), nullable=True))


def downgrade() -> None:
    """Drop the numbers (reminders are then known by their row ids again) and how members asked."""
    with op.batch_alter_table("session_subscriptions", schema=None) as batch_op:
        batch_op.drop_column("via")
    with op.batch_alter_table("reminders", schema=None) as batch_op:
        batch_op.drop_index("uq_reminders_live_number")
        batch_op.drop_column("number")
