"""Migration 0022 creates paper_aliases exactly as db/models/sessions.py declares it, on SQLite and
PostgreSQL, and goes down one step and up again."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text

from db.base import Base
from db.migrate import downgrade_database, upgrade_database

pytestmark = pytest.mark.empty_store  # the migrations from nothing, not the template copied


def _tables(connection) -> set[str]:
    return set(inspect(connection).get_table_names())


async def test_migration_matches_the_alias_model(engine) -> None:
    def diffs(connection) -> list:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return compare_metadata(context, Base.metadata)

    async with engine.connect() as conn:
        found = await conn.run_sync(diffs)
    flat = [d for item in found for d in (item if isinstance(item, list) else [item])]
    assert [d for d in flat if "paper_aliases" in repr(d)] == []


async def test_the_alias_table_goes_down_one_step_and_up_again(engine) -> None:
    await downgrade_database(engine, "0022")
    async with engine.connect() as conn:
        assert "paper_aliases" not in await conn.run_sync(_tables)
        versions = set((await conn.execute(text("SELECT version_num FROM alembic_version"))).scalars())
        assert "0022" not in versions
        # 0021 stays: it is listed, or implied by 0025 (reading's head, which depends on it)
        assert versions & {"0021", "0025"}
    await upgrade_database(engine)
    async with engine.connect() as conn:
        assert "paper_aliases" in await conn.run_sync(_tables)
