"""Run an unmodified discord.py client against a :class:`StandIn` (for tests, benches and the demo)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import TypeVar

import discord

from bot.api_base import apply_api_base, current_api_base, discover_gateway, restore_api_base
from standin.server import StandIn

ClientT = TypeVar("ClientT", bound=discord.Client)
FAST_GUILD_READY = 0.05

log = logging.getLogger("paperclub.demo")


@contextlib.asynccontextmanager
async def connected(
    client: ClientT,
    standin: StandIn,
    *,
    token: str = "sandbox-token",
    timeout: float = 10.0,
    api_base: str | None = None,
) -> AsyncIterator[ClientT]:
    """Point discord.py at ``standin`` (or ``api_base``), start ``client`` until ready; close and restore after.
    discord.py's 2 s wait after the last GUILD_CREATE is cut to 50 ms (a private attribute)."""
    saved = current_api_base()
    apply_api_base(api_base or standin.base_url)
    try:
        await discover_gateway(api_base or standin.base_url, timeout=timeout)
    except BaseException:
        restore_api_base(saved)
        raise
    state = client._connection
    state.guild_ready_timeout = min(state.guild_ready_timeout, FAST_GUILD_READY)
    runner = asyncio.create_task(client.start(token), name="sandbox-client")
    try:
        waiter = asyncio.ensure_future(_ready(client, standin, timeout))
        done, _ = await asyncio.wait({runner, waiter}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if runner in done:
            waiter.cancel()
            runner.result()  # re-raise why the client stopped
            raise RuntimeError("the client stopped before it was ready")
        if waiter not in done:
            waiter.cancel()
            raise TimeoutError("the client did not become ready")
        waiter.result()
        yield client
    finally:
        await client.close()
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(runner, timeout)
        restore_api_base(saved)  # another client in this process may still use its own stand-in
        _name_leftovers()


def _name_leftovers() -> None:
    """Log the tasks still pending once the client closed (WARNING for the client's own runner)."""
    current = asyncio.current_task()
    for task in asyncio.all_tasks():
        if task is current or task.done():
            continue
        coro = task.get_coro()
        where = getattr(coro, "__qualname__", repr(coro))
        level = logging.WARNING if task.get_name() == "sandbox-client" else logging.DEBUG
        log.log(level, "task still pending after the client closed: %s (%s)", task.get_name(), where)


async def _ready(client: discord.Client, standin: StandIn, timeout: float) -> None:
    await standin.wait_connected(timeout)
    await client.wait_until_ready()
