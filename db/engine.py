"""Engine and session factory. Built in main() (or by tests), never at import time."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

SQLITE_BUSY_TIMEOUT_MS = 15_000
SQLITE_CACHE_KIB = 32_768


# DATABASE_URL spellings and the async driver each stands for (libpq's postgresql:// means asyncpg).
DRIVERS = {
    "sqlite+aiosqlite": "sqlite+aiosqlite",
    "postgresql+asyncpg": "postgresql+asyncpg",
    "postgresql": "postgresql+asyncpg",
    "postgres": "postgresql+asyncpg",
}
URL_FORMS = "must start with sqlite+aiosqlite://, postgresql:// or postgresql+asyncpg://"


def normalise_database_url(url: str) -> str:
    """A DATABASE_URL in the engine's form (asyncpg driver, ``sslmode=`` as ``ssl=``); ValueError otherwise."""
    scheme = url.split("://", 1)[0] if "://" in url else ""
    driver = DRIVERS.get(scheme)
    if driver is None:
        raise ValueError(URL_FORMS)
    if driver == "sqlite+aiosqlite":
        return url
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ValueError("is not a valid URL") from None
    changed = parsed.set(drivername=driver)
    if "sslmode" in parsed.query:
        query = dict(parsed.query)
        query.setdefault("ssl", query.pop("sslmode"))
        changed = changed.set(query=query)
    return url if changed == parsed else changed.render_as_string(hide_password=False)


def describe_database(url: str | URL) -> str:
    """Which database this is, for messages: backend, host, port and name, never the user's password."""
    try:
        parsed = make_url(url) if isinstance(url, str) else url
    except ArgumentError:
        return "the database in DATABASE_URL"
    if parsed.get_backend_name() == "sqlite":
        return f"the SQLite database {Path(parsed.database).resolve() if parsed.database else '(no file)'}"
    host = parsed.host or "localhost"
    where = f"{host}:{parsed.port or 5432}"
    user = f" as {parsed.username}" if parsed.username else ""
    return f"the PostgreSQL database {parsed.database or '(default)'} on {where}{user}"


def without_password(text: str, url: str) -> str:
    """``text`` with the password of the database ``url`` (if any) as ``[password]``."""
    with contextlib.suppress(ArgumentError):
        if password := make_url(url).password:
            text = text.replace(str(password), "[password]")
    return text


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    """Every SQLite connection: foreign keys, WAL, a busy timeout, a larger cache, no pysqlite BEGIN."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA synchronous=NORMAL")
    # 32 MiB (default 2 MiB), filled as read: a large store's full-text index fits in memory.
    cursor.execute(f"PRAGMA cache_size=-{SQLITE_CACHE_KIB}")
    cursor.close()
    dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself (pysqlite's own defers it)


READ_ONLY_OPTION = "paperclub_read_only"
ONE_STATEMENT_OPTION = "paperclub_one_statement"


def _sqlite_begin_immediate(conn: Any) -> None:
    """BEGIN IMMEDIATE, so writers queue on busy_timeout (read-only: deferred BEGIN; one-statement: none)."""
    options = conn.get_execution_options()
    if options.get(ONE_STATEMENT_OPTION):
        return
    conn.exec_driver_sql("BEGIN" if options.get(READ_ONLY_OPTION) else "BEGIN IMMEDIATE")


def create_engine(
    url: str, *, search_path: str | None = None, pool_size: int = 10, max_overflow: int = 20
) -> AsyncEngine:
    """An AsyncEngine for `url`; `search_path`, `pool_size` and `max_overflow` apply to PostgreSQL only."""
    url = normalise_database_url(url)
    parsed = make_url(url)
    kwargs: dict[str, Any] = {}
    if parsed.get_backend_name() == "sqlite":
        if parsed.database in (None, "", ":memory:"):
            raise ValueError("use a file for SQLite (in-memory databases are per connection)")
        kwargs["connect_args"] = {"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}
    else:
        kwargs.update(pool_size=pool_size, max_overflow=max_overflow, pool_pre_ping=True)
        if search_path:
            kwargs["connect_args"] = {"server_settings": {"search_path": search_path}}
    engine = create_async_engine(url, **kwargs)
    if parsed.get_backend_name() == "sqlite":
        event.listen(engine.sync_engine, "connect", _sqlite_connect)
        event.listen(engine.sync_engine, "begin", _sqlite_begin_immediate)
    return engine


def create_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """A session factory for ``engine`` whose objects stay readable after commit."""
    return async_sessionmaker(engine, expire_on_commit=False)


def read_only_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions for code that only reads (the website): same pool; on SQLite a plain (deferred) BEGIN."""
    return async_sessionmaker(engine.execution_options(**{READ_ONLY_OPTION: True}), expire_on_commit=False)


def one_statement_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """One-statement reads outside any transaction (https://www.sqlite.org/lang_transaction.html)."""
    if backend_name(engine) == "sqlite":
        bound = engine.execution_options(**{ONE_STATEMENT_OPTION: True})
    else:
        bound = engine.execution_options(isolation_level="AUTOCOMMIT")
    return async_sessionmaker(bound, expire_on_commit=False)


def backend_name(engine: AsyncEngine) -> str:
    """'sqlite' or 'postgresql'."""
    return engine.dialect.name
