"""Revisions 0018–0020 take the caches' machinery out of the store: a store at the heads before them
(0015's site generations with their triggers, 0016's bucketed search, 0017's notify triggers) upgrades with
its content intact; each goes down one step (`paperclub db downgrade`) with what it removed back, and up
again; on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import text, update
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.cli import main
from bot.services.reading.search import search
from bot.services.site import pages
from bot.services.site.config import live_site
from db.engine import create_engine, create_session_factory
from db.migrate import alembic_config, downgrade_database, revision_module, upgrade_database
from db.models import Paper
from tests.conftest import StoreInfo
from tests.site.conftest import GUILD, OCTOBER, SLUG, enable_site, import_club

pytestmark = pytest.mark.empty_store  # from nothing to the old heads, then on: not the template copied

# the ORM reads 0021-0027 and 0032
OLD_HEADS = {"0002", "0023", "0024", "0006", "0015", "0016", "0017", "0026", "0027", "0032"}
NEW_HEADS = {"0034", "0023", "0024", "0030", "0018", "0025", "0020", "0028", "0027", "0033", "0032"}
UNDOES = {"0018": "0015", "0019": "0016", "0020": "0017", "0025": "0019"}
ON_TOP = {"0019": "0025"}  # undoing 0019 undoes the head that stands on it
QUERIES = ("environments", "user simulators", "AutoEnv", "terminal agents benchmark")


def _versions(connection: Connection) -> set[str]:
    return set(connection.execute(text("SELECT version_num FROM alembic_version")).scalars())


def _machinery(connection: Connection) -> set[str]:
    """Which of the removed revisions' objects the store holds, by the revision that made them."""
    found = set()
    if connection.dialect.name == "sqlite":
        rows = connection.execute(text("SELECT type, name FROM sqlite_master")).all()
        if ("table", "site_generations") in rows:
            found.add("0015 table")
        if any(kind == "trigger" and name.startswith("sg_") for kind, name in rows):
            found.add("0015 triggers")
        return found
    names = set(
        connection.execute(
            text(
                "SELECT c.relname FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace "
                "UNION ALL SELECT p.proname FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace "
                "UNION ALL SELECT t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                "WHERE c.relnamespace = current_schema()::regnamespace"
            )
        ).scalars()
    )
    if {"site_generations", "site_generation_flushes", "site_generation_mark"} & names:
        found.add("0015 table")
    if any(name.startswith("sg_") and name != "sg_flush" for name in names):
        found.add("0015 triggers")
    if {"ix_reading_search_buckets", "reading_search_newest", "reading_search_bucketed"} & names:
        found.add("0016")
    if any(name.endswith("_setup_notify") for name in names) or "paperclub_setup_notify" in names:
        found.add("0017")
    return found


def _expected(backend: str, revisions: set[str]) -> set[str]:
    """What :func:`_machinery` finds with ``revisions`` applied (0016 and 0017 are PostgreSQL only)."""
    found = {"0015 table", "0015 triggers"} if "0015" in revisions else set()
    if backend == "postgresql":
        found |= {r for r in ("0016", "0017") if r in revisions}
    return found


def _to_old_heads(connection: Connection) -> None:
    """A store as the release before left it: every head of then, and the site generation triggers that
    its db.migrate created after each upgrade."""
    config = alembic_config()
    config.attributes["connection"] = connection
    for revision in sorted(OLD_HEADS):
        command.upgrade(config, revision)
    revision_module("0015_site_generations.py").create_triggers(connection)


async def _seen(factory: async_sessionmaker[AsyncSession]) -> dict[str, Any]:
    """What members see: search results per query, and the club page's values."""
    out: dict[str, Any] = {}
    async with factory() as session:
        for query in QUERIES:
            found = await search(session, GUILD, query, per_page=10)
            out[query] = (found.total, found.any_word, [(h.kind, h.ref_id) for h in found.hits])
        live = await live_site(session, SLUG)
        assert live is not None
        out["home"] = await pages.home_page(session, live, OCTOBER)
    return out


@pytest.fixture
async def fresh(store_info: StoreInfo) -> AsyncIterator[AsyncEngine]:
    """An empty store (not migrated)."""
    engine = store_info.engine()
    try:
        yield engine
    finally:
        await engine.dispose()


async def test_a_store_at_the_old_heads_upgrades_with_its_content(fresh: AsyncEngine, store_info) -> None:
    async with fresh.begin() as conn:
        await conn.run_sync(_to_old_heads)
        assert await conn.run_sync(_versions) == OLD_HEADS
        assert await conn.run_sync(_machinery) == _expected(store_info.backend, OLD_HEADS)
    factory = create_session_factory(fresh)
    await import_club(factory)  # written through the old triggers
    await enable_site(factory)
    before = await _seen(factory)
    assert before["AutoEnv"][0] > 0
    await upgrade_database(fresh)
    async with fresh.connect() as conn:
        assert await conn.run_sync(_versions) == NEW_HEADS
        assert await conn.run_sync(_machinery) == set()
    assert await _seen(factory) == before
    async with factory() as session, session.begin():  # and the index still follows writes
        await session.execute(update(Paper).where(Paper.title == "AutoEnv").values(title="AutoEnvy"))
    async with factory() as session:
        assert (await search(session, GUILD, "AutoEnvy")).total == before["AutoEnv"][0]


@pytest.mark.parametrize("revision", sorted(UNDOES))
async def test_each_revision_goes_down_one_step_and_up_again(
    engine: AsyncEngine, session_factory: async_sessionmaker[AsyncSession], store_info, revision: str
) -> None:
    await import_club(session_factory)
    await enable_site(session_factory)
    before = await _seen(session_factory)
    await downgrade_database(engine, revision)
    down = NEW_HEADS - {ON_TOP.get(revision, revision)} | {UNDOES[revision]}
    async with engine.connect() as conn:
        assert await conn.run_sync(_versions) == down
        assert await conn.run_sync(_machinery) == _expected(store_info.backend, down)
    assert await _seen(session_factory) == before
    if revision == "0018":  # the triggers are back, and move the guild's generation again
        async with session_factory() as session:
            generation = await session.scalar(
                text("SELECT coalesce(max(generation), 0) FROM site_generations")
            )
        async with session_factory() as session, session.begin():
            await session.execute(update(Paper).where(Paper.guild_id == GUILD).values(authors="Someone"))
        async with session_factory() as session:
            moved = await session.scalar(text("SELECT max(generation) FROM site_generations"))
        assert moved > generation
    if revision == "0019" and store_info.backend == "postgresql":  # the bucketed walk answers again
        async with session_factory() as session:
            newest = await session.scalar(
                text(
                    "SELECT count(*) FROM reading_search_newest(to_tsquery('english', 'user & simulators'), "
                    ":g, 251)"
                ),
                {"g": GUILD},
            )
        assert newest == before["user simulators"][0]
    await upgrade_database(engine)
    async with engine.connect() as conn:
        assert await conn.run_sync(_versions) == NEW_HEADS
        assert await conn.run_sync(_machinery) == set()
    seen = await _seen(session_factory)
    assert {q: seen[q] for q in QUERIES} == {q: before[q] for q in QUERIES}


def test_the_cli_undoes_one_migration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    path = tmp_path / "club.db"
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LOG_LEVEL", raising=False)
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{path}")

    async def migrate() -> None:
        engine = create_engine(f"sqlite+aiosqlite:///{path}")
        await upgrade_database(engine)
        await engine.dispose()

    asyncio.run(migrate())

    def versions() -> set[str]:
        with sqlite3.connect(path) as conn:
            return {row[0] for row in conn.execute("SELECT version_num FROM alembic_version")}

    assert main(["db", "downgrade", "0018"]) == 0
    assert "migration 0018 undone" in capsys.readouterr().out
    assert versions() == NEW_HEADS - {"0018"} | {"0015"}
    assert main(["db", "downgrade", "9999"]) == 2
    assert "cannot undo migration 9999" in capsys.readouterr().err
    assert main(["db", "upgrade"]) == 0
    assert versions() == NEW_HEADS


async def test_the_paper_record_columns_go_down_one_step_and_up_again(engine: AsyncEngine) -> None:
    """0021 (the outside sources' fields) undone leaves papers as 0001 made them, and comes back."""

    def columns(connection: Connection) -> set[str]:
        from sqlalchemy import inspect

        return {column["name"] for column in inspect(connection).get_columns("papers")}

    await downgrade_database(engine, "0021")
    async with engine.connect() as conn:
        assert "0021" not in await conn.run_sync(_versions)
        assert not {"tldr", "field_sources", "enriched_at"} & await conn.run_sync(columns)
    await upgrade_database(engine)
    async with engine.connect() as conn:
        assert await conn.run_sync(_versions) == NEW_HEADS
        assert {"tldr", "field_sources", "enriched_at"} <= await conn.run_sync(columns)
