"""Our bot as separate ``paperclub run`` processes against one stand-in; waits are on log lines."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import aiohttp
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.metrics import parse_metrics
from db.engine import create_engine
from standin.server import StandIn

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GabcDE.abcdefghijklmnopqrstuvwxyz0123456789AB"
_LISTENING = re.compile(r"web server listening on [^:]+:(\d+)")


@contextlib.asynccontextmanager
async def temporary_database(url: str, prefix: str) -> AsyncIterator[str]:
    """The URL of a new, empty PostgreSQL database beside ``url``'s (needs CREATEDB), dropped afterwards."""
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"  # our own name, never input
    admin = create_engine(url).execution_options(isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as conn:
            await conn.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            yield make_url(url).set(database=name).render_as_string(hide_password=False)
        finally:
            await drop_database(admin, name)
    finally:
        await admin.dispose()


_OWN_BACKENDS = text(
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
    "WHERE datname = :name AND usename = current_user AND pid <> pg_backend_pid()"
)


async def drop_database(admin: AsyncEngine, name: str, *, attempts: int = 20) -> None:
    """Drop a throwaway database processes may still hold: end our role's connections, then a plain DROP
    (WITH (FORCE) refuses another role's autovacuum: postgresql.org/docs/current/sql-dropdatabase.html)."""
    for attempt in range(attempts):
        try:
            async with admin.connect() as conn:
                await conn.execute(_OWN_BACKENDS, {"name": name})
                await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
            return
        except DBAPIError:
            if attempt == attempts - 1:
                raise
            await asyncio.sleep(0.1 * (attempt + 1))


def process_env(standin: StandIn, database_url: str, **extra: str) -> dict[str, str]:
    """The environment of one process: the stand-in, the store, a web server on any free port."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/tmp"),
        "DISCORD_TOKEN": TOKEN,
        "DISCORD_API_BASE": standin.base_url,
        "DATABASE_URL": database_url,
        "WEB_PORT": "0",
        "LOG_LEVEL": "INFO",
        "ARXIV_API_URL": "http://127.0.0.1:9/api/query",  # nothing leaves this machine
        "DATABASE_POOL_SIZE": "3",
        "DATABASE_MAX_OVERFLOW": "7",
        **extra,
    }


class BotProcess:
    """One ``paperclub`` process (``python -m bot ARGS``, or ``python SCRIPT ARGS``) and its log."""

    def __init__(
        self,
        name: str,
        env: dict[str, str],
        *,
        args: Sequence[str] = ("run",),
        script: Path | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.name = name
        self.env = env
        self.args = list(args)
        self.script = script
        self.cwd = cwd
        self.lines: list[str] = []
        self.proc: asyncio.subprocess.Process | None = None
        port = env.get("WEB_PORT", "0")
        self.port: int | None = int(port) if port.isdigit() and port != "0" else None  # else from the log
        self._changed = asyncio.Condition()
        self._reader: asyncio.Task[None] | None = None

    async def start(self) -> BotProcess:
        """Start the process and read its log in the background; return self."""
        command = [str(self.script)] if self.script else ["-m", "bot"]
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            *command,
            *self.args,
            env=self.env,
            cwd=self.cwd,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        self._reader = asyncio.create_task(self._read(), name=f"log-{self.name}")
        return self

    async def _read(self) -> None:
        assert self.proc is not None
        assert self.proc.stderr is not None
        while raw := await self.proc.stderr.readline():
            line = raw.decode(errors="replace").rstrip("\n")
            found = _LISTENING.search(line)
            if found and self.port is None:
                self.port = int(found[1])
            async with self._changed:
                self.lines.append(line)
                self._changed.notify_all()
        async with self._changed:
            self._changed.notify_all()  # the process ended

    @property
    def exited(self) -> bool:
        """The process has ended (its log is closed)."""
        if self._reader is not None and self._reader.done():
            return True
        return self.proc is not None and self.proc.returncode is not None

    async def wait_for(self, predicate: Callable[[list[str]], Any], timeout: float = 60.0) -> Any:
        """Until ``predicate(lines)`` is truthy (returned); AssertionError with the log's end otherwise."""

        def met() -> Any:
            return predicate(self.lines) or self.exited

        async with self._changed:
            try:
                await asyncio.wait_for(self._changed.wait_for(met), timeout)
            except TimeoutError:
                raise AssertionError(f"{self.name}: timed out; its log ends:\n{self.tail()}") from None
        result = predicate(self.lines)
        if not result:
            raise AssertionError(f"{self.name} exited ({self.proc and self.proc.returncode}):\n{self.tail()}")
        return result

    async def wait_ready(self, timeout: float = 90.0) -> None:
        """Until discord.py is ready (every shard has its guilds) and the web server listens."""
        await self.wait_for(lambda lines: any("ready as " in line for line in lines), timeout)
        await self.wait_for(lambda _: self.port is not None, timeout)

    def count(self, text: str) -> int:
        """How many log lines contain ``text``."""
        return sum(text in line for line in self.lines)

    def tail(self, n: int = 40) -> str:
        """The last ``n`` log lines."""
        return "\n".join(self.lines[-n:])

    @property
    def url(self) -> str:
        """The base URL of the process's web server."""
        assert self.port is not None, f"{self.name} has no web server yet"
        return f"http://127.0.0.1:{self.port}"

    async def get(self, path: str) -> tuple[int, str]:
        """``GET`` a path from the process's web server: status and body."""
        async with aiohttp.ClientSession() as http, http.get(f"{self.url}{path}") as answer:
            return answer.status, await answer.text()

    async def metrics(self) -> dict[Any, float]:
        """The process's ``/metrics``, parsed."""
        status, body = await self.get("/metrics")
        assert status == 200, body
        return parse_metrics(body)

    def kill(self) -> None:
        """kill -9: no shutdown, claims and leases left behind."""
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGKILL)

    async def wait(self, timeout: float = 60.0) -> int:
        """Wait for the process to exit and return its exit code."""
        assert self.proc is not None
        try:
            code = await asyncio.wait_for(self.proc.wait(), timeout)
        except TimeoutError:
            raise AssertionError(f"{self.name} did not exit; its log ends:\n{self.tail()}") from None
        if self._reader is not None:
            await asyncio.wait_for(self._reader, timeout)
        return code

    async def stop(self, timeout: float = 60.0) -> int:
        """SIGTERM (systemd's stop) and wait; kill -9 if it does not exit in time."""
        if self.proc is None or self.proc.returncode is not None:
            return self.proc.returncode if self.proc and self.proc.returncode is not None else 0
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGTERM)
        try:
            return await self.wait(timeout)
        except AssertionError:
            self.kill()
            await self.wait(timeout)
            raise
