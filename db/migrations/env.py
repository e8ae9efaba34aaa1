"""Alembic environment. Run through db.migrate (programmatic), which hands us a connection."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

import db.models  # noqa: F401  (registers every table)
from db.base import Base

target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Run the migrations on the connection the caller passed in, or on an engine from the config URL."""
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    # Stand-alone `alembic` use: build an engine from the URL in the config.
    from db.engine import create_engine

    async def _main() -> None:
        engine = create_engine(context.config.get_main_option("sqlalchemy.url") or "")
        async with engine.begin() as conn:
            await conn.run_sync(_run)
        await engine.dispose()

    asyncio.run(_main())


if context.is_offline_mode():
    raise SystemExit("offline migrations are not supported; use `paperclub db upgrade`")
run_migrations_online()
