"""club page: the site's intro and Discord invite, and sessions dated only

``site_settings.intro`` (the home page's opening, Markdown) and ``site_settings.discord_invite`` (the
link "Bring it to the Discord" gives), and ``sessions.date_only`` (a past session the club dated without
a time: shown as its date only). Added in place with server defaults (SQLite's ADD COLUMN, no table
rebuild, so ``0004``'s search triggers on sessions stay), on a branch of its own from ``0001`` (standing
on the site's ``0013``), so a store at any earlier head upgrades.

Revision ID: 0027
Revises: 0001
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0027"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = ("club_page",)
depends_on: str | Sequence[str] | None = "0013"


def upgrade() -> None:
    op.add_column("site_settings", sa.Column("intro", sa.Text(), nullable=True))
    op.add_column("site_settings", sa.Column("discord_invite", sa.String(200), nullable=True))
    op.add_column("sessions", sa.Column("date_only", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    op.drop_column("sessions", "date_only")
    op.drop_column("site_settings", "discord_invite")
    op.drop_column("site_settings", "intro")
