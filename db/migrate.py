"""Apply alembic migrations programmatically (at start-up and by `paperclub db upgrade`).

Each feature's migration branches from the foundation revision, so we upgrade
to ``heads``: every branch, in dependency order.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


def alembic_config(url: str | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if url:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def _upgrade(connection: Connection) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, "heads")


async def upgrade_database(engine: AsyncEngine) -> None:
    """Bring the store up to date; a no-op when it already is."""
    async with engine.begin() as conn:
        await conn.run_sync(_upgrade)
