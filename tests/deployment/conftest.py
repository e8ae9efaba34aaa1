"""Fixtures for the deployment tests: a PostgreSQL database of its own per test (the processes share it,
as a deployment's do), and a stand-in."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import make_url

from db.engine import create_engine
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
    name = f"pc_deploy_{uuid.uuid4().hex[:10]}"
    admin = create_engine(PG_URL).execution_options(isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        async with admin.connect() as conn:
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        await admin.dispose()


@pytest.fixture
async def standin() -> AsyncIterator[StandIn]:
    async with StandIn() as server:
        yield server
