"""setup: on PostgreSQL, notify every change of what /setup show prints

Each insert, update or delete of a row of ``guild_settings``, ``site_settings`` or ``series_settings``
sends ``pg_notify('paperclub_setup', <guild id>)`` (a TRUNCATE sends ``*``: every guild). PostgreSQL
delivers a notification when the transaction that sent it commits, and never for one rolled back
(https://www.postgresql.org/docs/15/sql-notify.html), so each process's LISTEN connection learns of every
committed change, whichever process, CLI or SQL session made it, and /setup show's kept overview for that
guild is dropped (bot/services/setup/cache.py). SQLite needs no trigger: the cache there reads the WAL
index, which every commit changes.

Why it merges 0012 and 0013 (not a branch from 0001): its triggers attach to their tables. Branched
from 0001, alembic runs it first on a fresh database (measured), before those tables exist; with
``depends_on`` instead, alembic 1.20 fails a fresh upgrade on two dependencies (``KeyError: '0001'`` in its
head bookkeeping) and, with one, leaves a version table that disagrees with the scripts' heads.

Revision ID: 0017
Revises: 0012, 0013
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0017"
down_revision: str | tuple[str, ...] | None = ("0012", "0013")  # see "Why it merges" above
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("guild_settings", "site_settings", "series_settings")
CHANNEL = "paperclub_setup"  # bot/services/setup/cache.py listens here


def upgrade() -> None:
    """On PostgreSQL, notify ``paperclub_setup`` on every change to the settings tables."""
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(
        f"""
        CREATE FUNCTION paperclub_setup_notify() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'TRUNCATE' THEN
                PERFORM pg_notify('{CHANNEL}', '*');
            ELSIF TG_OP = 'DELETE' THEN
                PERFORM pg_notify('{CHANNEL}', OLD.guild_id::text);
            ELSE
                PERFORM pg_notify('{CHANNEL}', NEW.guild_id::text);
                IF TG_OP = 'UPDATE' AND OLD.guild_id IS DISTINCT FROM NEW.guild_id THEN
                    PERFORM pg_notify('{CHANNEL}', OLD.guild_id::text);
                END IF;
            END IF;
            RETURN NULL;
        END
        $$
        """
    )
    for table in TABLES:
        op.execute(
            f"CREATE TRIGGER {table}_setup_notify AFTER INSERT OR UPDATE OR DELETE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION paperclub_setup_notify()"
        )
        op.execute(
            f"CREATE TRIGGER {table}_setup_notify_truncate AFTER TRUNCATE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION paperclub_setup_notify()"
        )


def downgrade() -> None:
    """Drop the setup notify triggers and function."""
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in TABLES:
        op.execute(f"DROP TRIGGER IF EXISTS {table}_setup_notify_truncate ON {table}")
        op.execute(f"DROP TRIGGER IF EXISTS {table}_setup_notify ON {table}")
    op.execute("DROP FUNCTION IF EXISTS paperclub_setup_notify()")
