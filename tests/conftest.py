"""Shared fixtures. Store fixtures run every store test on SQLite and, when TEST_DATABASE_URL is set,
on PostgreSQL (a fresh schema per test)."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from db.engine import create_engine, create_session_factory
from db.migrate import upgrade_database

pytest_plugins = ["tests.harness"]

PG_URL = os.environ.get("TEST_DATABASE_URL", "")

STORE_PARAMS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param(
        "postgresql",
        id="postgresql",
        marks=pytest.mark.skipif(not PG_URL, reason="TEST_DATABASE_URL not set"),
    ),
]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "sqlite_only: checks SQLite-only machinery; runs on the SQLite store only"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A `sqlite_only` test has nothing to check on PostgreSQL: leave that variant out (not skip it)."""
    keep, drop = [], []
    for item in items:
        callspec = getattr(item, "callspec", None)
        on_postgres = callspec is not None and callspec.params.get("store_info") == "postgresql"
        (drop if on_postgres and item.get_closest_marker("sqlite_only") else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


class StoreInfo:
    """Where a test's store lives: the URL and (PostgreSQL) the schema."""

    def __init__(self, backend: str, url: str, search_path: str | None) -> None:
        self.backend = backend
        self.url = url
        self.search_path = search_path

    def engine(self) -> AsyncEngine:
        return create_engine(self.url, search_path=self.search_path)


@pytest.fixture(params=STORE_PARAMS)
async def store_info(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[StoreInfo]:
    backend: str = request.param
    if backend == "sqlite":
        yield StoreInfo("sqlite", f"sqlite+aiosqlite:///{tmp_path / 'paperclub.db'}", None)
        return
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(PG_URL)
    async with admin.begin() as conn:
        await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield StoreInfo("postgresql", PG_URL, schema)
    finally:
        async with admin.begin() as conn:
            await conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        await admin.dispose()


@pytest.fixture
async def engine(store_info: StoreInfo) -> AsyncIterator[AsyncEngine]:
    eng = store_info.engine()
    await upgrade_database(eng)
    try:
        yield eng
    finally:
        await eng.dispose()


@pytest.fixture
def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return create_session_factory(engine)
