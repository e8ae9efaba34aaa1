"""Fixtures: a running stand-in with the default "Paper Club" guild, and a bare bot connected to it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.demo.running import connected
from standin import StandIn
from standin.openapi import SpecViolationError
from standin.server import DefaultGuild
from tests.standin.helpers import BareBot


@pytest.fixture
async def standin() -> AsyncIterator[StandIn]:
    """Fails the test at teardown if any request broke Discord's OpenAPI description (a test that sends
    one on purpose takes it with ``standin.take_violations()``)."""
    failure = ""
    try:
        async with StandIn() as server:
            await server.create_default_guild()
            yield server
    except SpecViolationError as exc:
        failure = str(exc)
    if failure:
        pytest.fail(failure, pytrace=False)


@pytest.fixture
def world(standin: StandIn) -> DefaultGuild:
    assert standin.default_guild is not None
    return standin.default_guild


@pytest.fixture
async def bot(standin: StandIn) -> AsyncIterator[BareBot]:
    async with connected(BareBot(), standin) as client:
        yield client
