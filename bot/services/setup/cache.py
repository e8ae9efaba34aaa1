"""/setup show's kept overviews, correct when any process (or the CLI) changes a setting.

An entry is kept with a *token* read just before the store read that filled it, and served only while the
token is unchanged. A token is ``(this process's generation for the guild, the store's change mark)``:

* This process's generation: :meth:`OverviewCache.invalidate`, called by /setup's writes after their
  commit and before they answer, so the next call reads the store.
* SQLite (:class:`WalIndexWatch`): the WAL-index header in the ``-shm`` file, which SQLite rewrites on
  every commit by any connection of any process (https://www.sqlite.org/walformat.html, "the WAL-index
  header": a change counter, the last frame, checksums and salts). Read with one ``pread`` on the event
  loop's thread (no hop to aiosqlite's thread). Unchanged header: no commit has been published since the
  token was read, so the kept overview is what the store holds. A torn read only looks changed (a miss).
  No ``-shm`` file (not WAL, or a different file at that path than the one opened): no caching.
* PostgreSQL (:class:`NotifyWatch`): migration 0017's triggers ``pg_notify`` the guild's id on every
  insert, update or delete of the three tables, delivered at COMMIT; one LISTEN connection per process
  bumps that guild's generation as each arrives. Caching is off until LISTEN is in place and again from the
  moment the connection is lost (each reconnection starts a new epoch: nothing kept before it is served).
  What a commit of another process changes is therefore served stale only until its notification has
  reached this process (a local round trip: well under a millisecond, measured in the tests by waiting on
  :meth:`NotifyWatch.seen`, never by sleeping).

Why it is needed: the read is one statement, but on SQLite it is several hops to aiosqlite's thread and on
PostgreSQL a round trip to the server; either costs more than the rest of the call (see bench/roundtrip.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Iterator
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from sqlalchemy.ext.asyncio import AsyncEngine

log = logging.getLogger("paperclub.setup.cache")

CHANNEL = "paperclub_setup"  # migration 0017's triggers notify here
WAL_INDEX_HEADER = 96  # two 48-byte copies of the WAL-index header at the start of the -shm file
MAX_ENTRIES = 10_000
RECONNECT_AFTER = (0.1, 0.5, 1.0, 5.0)  # seconds between LISTEN attempts (the last repeats)
HEARTBEAT, HEARTBEAT_TIMEOUT = 5.0, 3.0  # seconds: how often the LISTEN connection is asked, how long it has

T = TypeVar("T")


class ChangeWatch(Protocol):
    """The store's change mark for a guild, or None when changes cannot be seen (then nothing is kept)."""

    def token(self, guild_id: int) -> Hashable | None: ...


class NoWatch:
    """No way to see other processes' commits: nothing is cached."""

    def token(self, guild_id: int) -> Hashable | None:
        return None


class WalIndexWatch:
    """Every commit to a SQLite database in WAL mode, by any connection of any process, from its ``-shm``."""

    def __init__(self, database: str | os.PathLike[str]) -> None:
        self.shm = Path(f"{os.path.abspath(os.fspath(database))}-shm")  # where SQLite put it at start-up
        self._fd: int | None = None
        self._identity: tuple[int, int] | None = None

    def _open(self) -> int | None:
        try:
            stat = os.stat(self.shm)
        except OSError:
            self.close()
            return None
        identity = (stat.st_dev, stat.st_ino)
        if self._fd is not None and identity == self._identity:
            return self._fd
        self.close()  # another file now at that path (the old one was deleted): start over
        try:
            self._fd = os.open(self.shm, os.O_RDONLY)
        except OSError:
            return None
        self._identity = identity
        return self._fd

    def token(self, guild_id: int) -> Hashable | None:
        fd = self._open()
        if fd is None:
            return None
        try:
            header = os.pread(fd, WAL_INDEX_HEADER, 0)
        except OSError:
            return None
        return header if len(header) == WAL_INDEX_HEADER else None

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
        self._fd = self._identity = None


class NotifyWatch:
    """Migration 0017's notifications, on one LISTEN connection of this process's engine (PostgreSQL)."""

    def __init__(self, engine: AsyncEngine, *, channel: str = CHANNEL) -> None:
        self.engine = engine
        self.channel = channel
        self._epoch = 0
        self._listening = False
        self._generations: dict[int, int] = {}
        self._waiters: list[tuple[int, int, asyncio.Future[None]]] = []  # (guild, after, woken)
        self._task: asyncio.Task[None] | None = None
        self.connected = asyncio.Event()  # set while LISTEN is in place
        self.disconnected = asyncio.Event()  # set while it is not (caching off)
        self.disconnected.set()
        self.backend_pid: int | None = None  # the LISTEN connection's server process

    def token(self, guild_id: int) -> Hashable | None:
        if not self._listening:
            return None
        return (self._epoch, self._generations.get(guild_id, 0))

    def generation(self, guild_id: int) -> int:
        return self._generations.get(guild_id, 0)

    async def seen(self, guild_id: int, after: int, timeout: float = 10.0) -> None:
        """Wait until a notification for ``guild_id`` beyond generation ``after`` has arrived (tests, and
        bench.roundtrip's --churn)."""
        if self.generation(guild_id) > after:
            return
        woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        waiter = (guild_id, after, woken)
        self._waiters.append(waiter)
        try:
            await asyncio.wait_for(woken, timeout)
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)

    def _notified(self, _connection: Any, _pid: int, _channel: str, payload: str) -> None:
        if payload.isdigit():
            guild_id = int(payload)
            self._generations[guild_id] = self._generations.get(guild_id, 0) + 1
        else:  # a TRUNCATE, or anything else: everything may have changed
            self._epoch += 1
        for guild, after, woken in self._waiters:
            if self.generation(guild) > after and not woken.done():
                woken.set_result(None)

    def _lost(self) -> None:
        self._listening = False
        self.connected.clear()
        self.disconnected.set()
        self._epoch += 1

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="setup-cache-listen")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._lost()

    async def _run(self) -> None:
        attempt = 0
        while True:
            try:
                await self._listen_once()
                attempt = 0
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001  any failure: caching stays off, and we try again
                log.warning(
                    "setup cache: cannot LISTEN (%s); /setup show reads the store", type(exc).__name__
                )
            self._lost()
            await asyncio.sleep(RECONNECT_AFTER[min(attempt, len(RECONNECT_AFTER) - 1)])
            attempt += 1

    async def _listen_once(self) -> None:
        raw = await self.engine.raw_connection()
        connection: Any = raw.driver_connection  # asyncpg.Connection
        raw.detach()  # ours for as long as it lives, outside the pool's count
        closed = asyncio.Event()
        try:
            connection.add_termination_listener(lambda _c: closed.set())
            await connection.add_listener(self.channel, self._notified)
            if connection.is_in_transaction():  # LISTEN would only take effect at a COMMIT
                raise RuntimeError("the LISTEN connection is inside a transaction")
            self._epoch += 1  # nothing kept before LISTEN is trusted
            self._listening = True
            self.backend_pid = connection.get_server_pid()
            self.disconnected.clear()
            self.connected.set()
            while not closed.is_set():
                # A connection that died silently (a half-open TCP link) would deliver nothing and never
                # say so: ask it something now and then, and give up on it when it does not answer.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(closed.wait(), HEARTBEAT)
                if not closed.is_set():
                    await asyncio.wait_for(connection.fetchval("SELECT 1"), HEARTBEAT_TIMEOUT)
        finally:
            self._lost()
            with contextlib.suppress(Exception):
                await asyncio.shield(connection.close(timeout=2))


def watch_for(engine: AsyncEngine) -> NoWatch | WalIndexWatch | NotifyWatch:
    """The change watch for this engine's store."""
    if engine.dialect.name == "postgresql":
        return NotifyWatch(engine)
    database = engine.url.database
    if engine.dialect.name == "sqlite" and database and database != ":memory:":
        return WalIndexWatch(database)
    return NoWatch()


class OverviewCache(Generic[T]):
    """Values per guild, each served only while its token (this process's generation, the store's mark)
    is the one read before the store read that produced it."""

    def __init__(self, watch: ChangeWatch, *, max_entries: int = MAX_ENTRIES) -> None:
        self.watch = watch
        self.max_entries = max_entries
        self._entries: OrderedDict[int, tuple[Hashable, T]] = OrderedDict()
        self._local: dict[int, int] = {}
        self._writing: dict[int, int] = {}
        self.hits = 0
        self.misses = 0

    def _token(self, guild_id: int) -> Hashable | None:
        if guild_id in self._writing:
            return None
        mark = self.watch.token(guild_id)
        return None if mark is None else (self._local.get(guild_id, 0), mark)

    async def get(self, guild_id: int, read: Callable[[], Awaitable[T]]) -> T:
        """The kept value while nothing changed, else ``await read()`` (kept if nothing changed during it)."""
        token = self._token(guild_id)
        if token is not None:
            kept = self._entries.get(guild_id)
            if kept is not None and kept[0] == token:
                self.hits += 1
                return kept[1]
        self.misses += 1
        value = await read()
        if token is not None and self._token(guild_id) == token:
            self._entries[guild_id] = (token, value)
            self._entries.move_to_end(guild_id)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        else:
            self._entries.pop(guild_id, None)
        return value

    def invalidate(self, guild_id: int) -> None:
        """This process changed the guild's settings (after the commit, before answering)."""
        self._local[guild_id] = self._local.get(guild_id, 0) + 1
        self._entries.pop(guild_id, None)

    @contextlib.contextmanager
    def writing(self, guild_id: int) -> Iterator[None]:
        """Around a command that writes the guild's settings and answers itself: nothing is kept or served
        for the guild while it runs (so a call between its commit and its answer reads the store), and
        what was kept before is dropped when it ends."""
        self._writing[guild_id] = self._writing.get(guild_id, 0) + 1
        self.invalidate(guild_id)
        try:
            yield
        finally:
            self.invalidate(guild_id)
            left = self._writing[guild_id] - 1
            if left:
                self._writing[guild_id] = left
            else:
                del self._writing[guild_id]
