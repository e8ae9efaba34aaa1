"""The /setup show cache's rules (bot/services/setup/cache.py): SQLite's WAL-index mark changes on every
commit of any process and on nothing else; a value read while the mark moved is not kept."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Awaitable, Callable, Hashable
from pathlib import Path

from bot.services.setup.cache import NoWatch, OverviewCache, WalIndexWatch


def _wal_database(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("CREATE TABLE t (x INTEGER)")
    return connection


def test_wal_index_mark_moves_on_another_process_commit_only(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    ours = _wal_database(path)
    watch = WalIndexWatch(path)
    first = watch.token(1)
    assert first is not None
    ours.execute("SELECT * FROM t").fetchall()
    assert watch.token(1) == first  # reads change nothing
    script = f"import sqlite3; c = sqlite3.connect({str(path)!r}); c.execute('INSERT INTO t VALUES (1)'); c.commit()"
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
    second = watch.token(1)
    assert second is not None
    assert second != first
    ours.execute("BEGIN")
    ours.execute("INSERT INTO t VALUES (2)")
    assert watch.token(1) == second  # not yet committed
    ours.execute("ROLLBACK")
    assert watch.token(1) == second  # rolled back: nothing published
    ours.execute("INSERT INTO t VALUES (3)")
    assert watch.token(1) != second
    ours.close()
    watch.close()


def test_no_wal_index_no_caching(tmp_path: Path) -> None:
    watch = WalIndexWatch(tmp_path / "missing.db")
    assert watch.token(1) is None


class _Mark:
    def __init__(self) -> None:
        self.value = 0

    def token(self, guild_id: int) -> Hashable | None:
        return self.value


async def test_a_value_read_while_the_mark_moved_is_not_kept() -> None:
    mark = _Mark()
    cache: OverviewCache[str] = OverviewCache(mark)

    async def racing() -> str:
        mark.value += 1  # another process commits while we read
        return "old"

    async def fresh() -> str:
        return "new"

    assert await cache.get(1, racing) == "old"
    assert await cache.get(1, fresh) == "new"  # not served the racing read
    assert await cache.get(1, racing) == "new"  # kept now (nothing changed since)
    cache.invalidate(1)
    assert await cache.get(1, fresh) == "new"
    assert (cache.hits, cache.misses) == (1, 3)


async def test_nothing_kept_while_a_write_runs_or_without_a_watch() -> None:
    mark = _Mark()
    cache: OverviewCache[str] = OverviewCache(mark)
    assert await cache.get(1, _value("a")) == "a"
    with cache.writing(1):
        assert await cache.get(1, _value("b")) == "b"
        assert await cache.get(1, _value("c")) == "c"
    assert await cache.get(1, _value("d")) == "d"
    assert await cache.get(1, _value("e")) == "d"
    blind: OverviewCache[str] = OverviewCache(NoWatch())
    assert await blind.get(1, _value("a")) == "a"
    assert await blind.get(1, _value("b")) == "b"


def _value(text: str) -> Callable[[], Awaitable[str]]:
    async def read() -> str:
        return text

    return read
