"""The test stores themselves (tests/conftest.py): a test's store is a copy of the session's migrated
template, at every head; an `empty_store` test's store has nothing in it until the `engine` fixture
migrates it."""

from __future__ import annotations

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

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
