"""Fixtures for the deployment tests: a PostgreSQL database of its own per test (the processes share it,
as a deployment's do), and a stand-in."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from alembic.script import ScriptDirectory

from bot.demo.processes import temporary_database
from db.migrate import alembic_config
from standin.server import StandIn
from tests.conftest import PG_URL

requires_postgres = pytest.mark.skipif(not PG_URL, reason="TEST_DATABASE_URL not set")

# Counted from the scripts, not listed by hand: an empty database runs every revision once, and ends at
# every feature branch's head.
_SCRIPTS = ScriptDirectory.from_config(alembic_config())
MIGRATIONS = sum(1 for _ in _SCRIPTS.walk_revisions())
HEADS = set(_SCRIPTS.get_heads())


@pytest.fixture
async def pg_database() -> AsyncIterator[str]:
    """The URL of a new, empty PostgreSQL database (the role needs CREATEDB; .ci/run grants it)."""
    async with temporary_database(PG_URL, "pc_deploy") as url:
        yield url


@pytest.fixture
async def standin() -> AsyncIterator[StandIn]:
    async with StandIn() as server:
        yield server
