"""setup: drop 0017's notify triggers; /setup show reads the store at every call

Removes ``paperclub_setup_notify()`` and its triggers on ``guild_settings``, ``site_settings`` and
``series_settings`` (PostgreSQL only; SQLite had none). The downgrade creates them again.

Revision ID: 0020
Revises: 0017
Create Date: 2027-01-04
"""

from __future__ import annotations

from collections.abc import Sequence

from db.migrate import revision_module

revision: str = "0020"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_0017 = revision_module("0017_setup_notify.py")


def upgrade() -> None:
    """Drop 0017's setup notify triggers."""
    _0017.downgrade()


def downgrade() -> None:
    """Put 0017's setup notify triggers back."""
    _0017.upgrade()
