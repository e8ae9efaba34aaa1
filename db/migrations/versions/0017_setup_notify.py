"""setup: on PostgreSQL, notify every change of what /setup show prints

Each write to ``guild_settings``, ``site_settings`` or ``series_settings`` sends ``pg_notify('paperclub_setup',
<guild id>)`` (``*`` on TRUNCATE), delivered on commit only (https://www.postgresql.org/docs/15/sql-notify.html).
It merges 0012 and 0013 rather than branching from 0001, as its triggers need those tables to exist first.

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
