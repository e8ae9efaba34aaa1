"""The foundation migration and the sessions models agree (tables sessions, papers, session_papers,
session_subscriptions), on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from db.base import Base

pytestmark = pytest.mark.empty_store  # the migrations from nothing, not the template copied

OWNED = {"sessions", "papers", "session_papers", "session_subscriptions"}


def _table_of(diff: tuple) -> str | None:
    for part in diff:
        table = getattr(part, "table", None)
        if table is not None:
            return table.name
        name = getattr(part, "name", None)
        if isinstance(part, str) and part in OWNED:
            return part
        if name in OWNED:
            return name
    return None


async def test_migration_matches_models(engine) -> None:
    def diffs(connection) -> list:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return compare_metadata(context, Base.metadata)

    async with engine.connect() as conn:
        found = await conn.run_sync(diffs)
    flat = [d for item in found for d in (item if isinstance(item, list) else [item])]
    ours = [d for d in flat if _table_of(d) in OWNED and not _added_by_another_feature(d)]
    assert ours == []


def _added_by_another_feature(diff: tuple) -> bool:
    """Other features may index these tables in their own migrations (e.g. ix_reading_...)."""
    if diff[0] != "remove_index":
        return False
    return not str(diff[1].name).startswith(tuple(f"ix_{table}_" for table in OWNED))
