"""The series migration (0012) and the series models agree, on SQLite and PostgreSQL; the migration goes down
and up again; and it leaves the sessions table (and its search triggers) alone."""

from __future__ import annotations

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text

from db.base import Base
from db.migrate import alembic_config

pytestmark = pytest.mark.empty_store  # the migrations from nothing, not the template copied

OWNED = {"series", "series_weeks", "series_settings"}


def _tables(diff: object) -> set[str]:
    found = set()
    for part in diff if isinstance(diff, tuple) else ():
        table = getattr(part, "table", None)
        name = table.name if table is not None else getattr(part, "name", None)
        if isinstance(part, str):
            name = part
        if name in OWNED:
            found.add(name)
    return found


async def test_migration_matches_models(engine) -> None:
    def diffs(connection) -> list:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return compare_metadata(context, Base.metadata)

    async with engine.connect() as conn:
        found = await conn.run_sync(diffs)
    flat = [d for item in found for d in (item if isinstance(item, list) else [item])]
    assert [d for d in flat if _tables(d)] == []


async def test_down_and_up_again(engine) -> None:
    def cycle(connection) -> list[str]:
        config = alembic_config()
        config.attributes["connection"] = connection
        # One step below the series migration: alembic takes off what stands on it too (0017, which
        # merges the series and site branches, and 0020 on it). "series@-1" would mean only the newest.
        command.downgrade(config, "0012-1")
        gone = set(inspect(connection).get_table_names())
        command.upgrade(config, "heads")
        return sorted(OWNED & gone)

    async with engine.begin() as conn:
        assert await conn.run_sync(cycle) == []
        if conn.dialect.name == "sqlite":  # the reading search triggers on sessions are still there
            triggers = (
                await conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'trigger'"))
            ).all()
            assert any("session" in name for (name,) in triggers)
