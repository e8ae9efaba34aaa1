"""The test stores themselves (tests/conftest.py): a test's store is a copy of the session's migrated
template, at every head; an `empty_store` test's store has nothing in it until the `engine` fixture
migrates it."""

from __future__ import annotations

import contextlib
import os

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import make_url

from bot.demo.processes import temporary_database
from db.engine import create_engine
from db.migrate import alembic_config
from tests.conftest import StoreInfo

HEADS = set(ScriptDirectory.from_config(alembic_config()).get_heads())


async def _tables(store_info: StoreInfo) -> set[str]:
    engine = store_info.engine()
    try:
        async with engine.connect() as conn:
            return await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
    finally:
        await engine.dispose()


async def test_a_store_starts_migrated_to_every_head(store_info: StoreInfo) -> None:
    assert store_info.migrated
    engine = store_info.engine()
    try:
        async with engine.connect() as conn:
            versions = set((await conn.execute(text("SELECT version_num FROM alembic_version"))).scalars())
    finally:
        await engine.dispose()
    assert versions == HEADS


async def test_two_tests_do_not_share_a_store(store_info: StoreInfo) -> None:
    assert "scratch" not in await _tables(store_info)  # what the other of this pair made is not here
    engine = store_info.engine()
    try:
        async with engine.begin() as conn:
            await conn.execute(text("CREATE TABLE scratch (x INTEGER)"))
    finally:
        await engine.dispose()
    assert "scratch" in await _tables(store_info)


test_a_later_test_finds_the_template_unchanged = test_two_tests_do_not_share_a_store


@pytest.mark.empty_store
async def test_an_empty_store_test_starts_with_nothing(store_info: StoreInfo) -> None:
    assert not store_info.migrated
    assert await _tables(store_info) == set()


async def test_a_database_still_held_by_a_connection_is_dropped() -> None:
    """A test that leaves a connection open (a bot process not yet gone) does not fail the next teardown."""
    if not os.environ.get("TEST_DATABASE_URL"):
        pytest.skip("PostgreSQL only: TEST_DATABASE_URL is not set")
    url = os.environ["TEST_DATABASE_URL"]
    async with temporary_database(url, "pc_held") as held_url:
        holder = create_engine(held_url)
        conn = await holder.connect()  # left open on purpose: the drop must end it
        await conn.execute(text("SELECT 1"))
    name = make_url(held_url).database
    admin = create_engine(url)
    try:
        async with admin.connect() as check:
            gone = (
                await check.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name})
            ).first()
    finally:
        await admin.dispose()
        with contextlib.suppress(Exception):
            await conn.close()
        await holder.dispose()
    assert gone is None
