"""Shared fixtures. Store fixtures run every store test on SQLite and, when TEST_DATABASE_URL is set,
on PostgreSQL.

Each test's store starts as a copy of one store migrated at the start of the session (per backend), not
migrated again: SQLite copies the template file with SQLite's backup API, PostgreSQL creates a database
per test from a template database (`CREATE DATABASE ... TEMPLATE`, one test ahead on a thread; the role
needs CREATEDB, as the deployment tests' does). The bot's start-up still runs its upgrade, which finds nothing to do. A test that
checks the migrations themselves is marked `empty_store`: its store starts empty, and the `engine`
fixture (or the bot's start-up) migrates it from nothing, as before. Rows every test of a kind needs (the
club's programme) are written once per worker and copied the same way (`filled_stores`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import sqlite3
import threading
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.demo.processes import drop_database
from db.engine import create_engine, create_session_factory
from db.migrate import upgrade_database

pytest_plugins = ["tests.harness"]

PG_URL = os.environ.get("TEST_DATABASE_URL", "")
T = TypeVar("T")

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
    config.addinivalue_line(
        "markers",
        "empty_store: checks the migrations: the store starts empty (not a copy of the migrated template)",
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
    """Where a test's store lives, and whether it starts empty (`empty_store`) or migrated."""

    def __init__(self, backend: str, url: str, *, migrated: bool, template: str = "") -> None:
        self.backend = backend
        self.url = url
        self.migrated = migrated
        self.template = template  # the migrated store copied: a file (SQLite) or a database's name

    def engine(self) -> AsyncEngine:
        """A new engine (its own connection pool) on this store."""
        return create_engine(self.url)


def _apart(work: Coroutine[object, object, None]) -> None:
    """Run `work` to the end on an event loop of its own in another thread (session fixtures are set up
    from inside a test's running loop, and must leave that loop alone)."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        thread.submit(asyncio.run, work).result()


async def _migrate(url: str) -> None:
    engine = create_engine(url)
    try:
        await upgrade_database(engine)
    finally:
        await engine.dispose()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite store migrated once for the session; its engine is disposed, so no connection is open."""
    path = tmp_path_factory.mktemp("template") / "paperclub.db"
    _apart(_migrate(f"sqlite+aiosqlite:///{path}"))
    return path


def copy_sqlite(source: Path, target: Path) -> None:
    """Copy a SQLite store with SQLite's own backup API (whatever its WAL still holds comes along), without
    waiting for the disk: a test's store need not outlive a crash."""
    with (
        contextlib.closing(sqlite3.connect(source)) as src,
        contextlib.closing(sqlite3.connect(target)) as dst,
    ):
        dst.execute("PRAGMA synchronous=OFF")
        src.backup(dst)


def _pg_url(database: str) -> str:
    return make_url(PG_URL).set(database=database).render_as_string(hide_password=False)


@contextlib.asynccontextmanager
async def _pg_admin() -> AsyncIterator[AsyncEngine]:
    admin = create_engine(PG_URL).execution_options(isolation_level="AUTOCOMMIT")
    try:
        yield admin
    finally:
        await admin.dispose()


async def _pg_execute(statement: str) -> None:
    async with _pg_admin() as admin, admin.connect() as conn:
        await conn.execute(text(statement))


async def _pg_drop(admin: AsyncEngine, name: str) -> None:
    """Drop a test's database, even with a connection the test left open or an autovacuum worker in it."""
    await drop_database(admin, name)


async def _pg_dropped(name: str) -> None:
    async with _pg_admin() as admin:
        await _pg_drop(admin, name)


@pytest.fixture(scope="session")
def postgres_template() -> Iterator[str]:
    """The name of a PostgreSQL database migrated once for the session (dropped at its end)."""
    name = f"pc_template_{uuid.uuid4().hex[:10]}"  # our own name, never input
    _apart(_pg_execute(f'CREATE DATABASE "{name}"'))
    try:
        _apart(_migrate(_pg_url(name)))  # its engine disposed: CREATE DATABASE ... TEMPLATE needs it unused
        yield name
    finally:
        _apart(_pg_dropped(name))


class PgStores:
    """This worker's PostgreSQL stores, made on a thread of their own one test ahead: a test takes the
    database made while the previous test ran, and its drop runs while the next one does."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="pg-stores", daemon=True)
        self.thread.start()
        self.admin = create_engine(PG_URL).execution_options(isolation_level="AUTOCOMMIT")
        self.spare: dict[str, concurrent.futures.Future[str]] = {}  # template -> a database made from it
        self.drops: list[concurrent.futures.Future[None]] = []

    def _on_thread(self, work: Coroutine[object, object, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(work, self.loop)

    async def _create(self, template: str) -> str:
        name = f"pc_test_{uuid.uuid4().hex[:12]}"  # our own name, never input
        async with self.admin.connect() as conn:
            await conn.execute(
                text(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
            )
        return name

    async def take(self, template: str) -> str:
        """A new database copied from ``template`` ("" for an empty one); the next one is started now."""
        made = self.spare.pop(template, None) or self._on_thread(self._create(template))
        self.spare[template] = self._on_thread(self._create(template))
        return await asyncio.wrap_future(made)

    def drop(self, name: str) -> None:
        """Drop a test's database in the background (even with a connection the test left open)."""
        self.drops.append(self._on_thread(drop_database(self.admin, name)))

    def close(self) -> None:
        """Drop the spares, wait for every drop, and stop the thread."""
        for made in self.spare.values():
            self.drop(made.result())
        for dropped in self.drops:
            dropped.result()
        self._on_thread(self.admin.dispose()).result()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()


@pytest.fixture(scope="session")
def pg_stores(postgres_template: str) -> Iterator[PgStores]:
    """This worker's PostgreSQL store maker (closed before the template it copies is dropped)."""
    stores = PgStores()
    yield stores
    stores.close()


@pytest.fixture(params=STORE_PARAMS)
async def store_info(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[StoreInfo]:
    """The test's own store: a copy of the session's migrated template, or empty (`empty_store`)."""
    backend: str = request.param
    migrated = request.node.get_closest_marker("empty_store") is None
    if backend == "sqlite":
        path = tmp_path / "paperclub.db"
        source = str(request.getfixturevalue("sqlite_template")) if migrated else ""
        if source:
            copy_sqlite(Path(source), path)
        yield StoreInfo("sqlite", f"sqlite+aiosqlite:///{path}", migrated=migrated, template=source)
        return
    stores: PgStores = request.getfixturevalue("pg_stores")
    source = request.getfixturevalue("postgres_template") if migrated else ""
    name = await stores.take(source)
    try:
        yield StoreInfo("postgresql", _pg_url(name), migrated=migrated, template=source)
    finally:
        stores.drop(name)


@pytest.fixture
async def engine(store_info: StoreInfo) -> AsyncIterator[AsyncEngine]:
    """An engine on the test's store, migrated (an `empty_store` test's migrated here, from empty)."""
    eng = store_info.engine()
    if not store_info.migrated:
        await upgrade_database(eng)
    try:
        yield eng
    finally:
        await eng.dispose()


@pytest.fixture
def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return create_session_factory(engine)


Fill = Callable[[async_sessionmaker[AsyncSession]], Awaitable[None]]


class FilledStores:
    """Stores filled once per worker (e.g. with the club's programme), copied into a test's store as the
    migrated template is: a fixture that writes the same rows for every test writes them once."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.templates: dict[tuple[str, str], str] = {}  # (backend, key) -> file or database

    async def fill(self, store_info: StoreInfo, engine: AsyncEngine, key: str, fill: Fill) -> None:
        """Make the test's store, none of whose connections is in use yet, a copy of one ``fill`` filled."""
        await engine.dispose()
        template = self.templates.get((store_info.backend, key)) or await self._make(store_info, key, fill)
        if store_info.backend == "sqlite":
            copy_sqlite(Path(template), Path(str(make_url(store_info.url).database)))
            return
        name = str(make_url(store_info.url).database)
        async with _pg_admin() as admin:
            await _pg_drop(admin, name)
            async with admin.connect() as conn:
                await conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))

    async def _make(self, store_info: StoreInfo, key: str, fill: Fill) -> str:
        assert store_info.template, "a filled store starts from the migrated one (not `empty_store`)"
        if store_info.backend == "sqlite":
            template = str(self.folder / f"{key}.db")
            copy_sqlite(Path(store_info.template), Path(template))
            url = f"sqlite+aiosqlite:///{template}"
        else:
            template = f"pc_filled_{uuid.uuid4().hex[:10]}"  # our own name, never input
            await _pg_execute(f'CREATE DATABASE "{template}" TEMPLATE "{store_info.template}"')
            url = _pg_url(template)
        engine = create_engine(url)
        try:
            await fill(create_session_factory(engine))
        finally:
            await engine.dispose()
        self.templates[(store_info.backend, key)] = template
        return template


@pytest.fixture(scope="session")
def filled_stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FilledStores]:
    """This worker's filled stores (their PostgreSQL databases dropped at the end)."""
    stores = FilledStores(tmp_path_factory.mktemp("filled"))
    yield stores
    for (backend, _), template in stores.templates.items():
        if backend == "postgresql":
            _apart(_pg_dropped(template))
