"""Fixtures for the reading feature: the club's real programme (examples/club.yaml) in the test's store."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.services.programme.files import import_text
from tests.conftest import FilledStores, StoreInfo

CLUB_YAML = Path(__file__).resolve().parents[2] / "examples" / "club.yaml"
GUILD = 1

TABLES = [
    "guild_settings",
    "papers",
    "sessions",
    "session_papers",
    "reading_lists",
    "reading_list_items",
    "site_settings",
]


def without_website(text: str) -> str:
    """A programme (YAML) without its ``website`` section: what another server imports, since the section's
    address (its slug) is the first server's."""
    return re.sub(r"(?ms)^website:\n.*?(?=^\S)", "", text)


async def import_club(factory: async_sessionmaker[AsyncSession], guild_id: int = GUILD) -> None:
    """examples/club.yaml into ``guild_id`` (into any but the first one, without its website section)."""
    text = CLUB_YAML.read_text(encoding="utf-8")
    text = text if guild_id == GUILD else without_website(text)
    await import_text(factory, text, suffix=".yaml", guild_id=guild_id)


@pytest.fixture
async def club(
    store_info: StoreInfo,
    engine: AsyncEngine,
    session_factory: async_sessionmaker[AsyncSession],
    filled_stores: FilledStores,
) -> async_sessionmaker[AsyncSession]:
    """The store with examples/club.yaml imported into guild 1."""
    # imported once per worker, then copied into each test's store
    await filled_stores.fill(store_info, engine, "reading-club", import_club)
    return session_factory


async def snapshot(factory: async_sessionmaker[AsyncSession]) -> dict[str, list[tuple[object, ...]]]:
    """Every row of the reading-related tables and of the search index, sorted (for 'nothing changed')."""
    out: dict[str, list[tuple[object, ...]]] = {}
    async with factory() as session:
        for table in [*TABLES, "reading_search"]:
            columns = (
                "kind, ref_id, guild_id, title, people, papers, body, ids"
                if table == "reading_search"
                else "*"
            )
            rows = (await session.execute(text(f"SELECT {columns} FROM {table}"))).all()
            out[table] = sorted((tuple(row) for row in rows), key=repr)
    return out
