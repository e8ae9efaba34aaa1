"""Fixtures: a running stand-in with the default "Paper Club" guild, and a bare bot connected to it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.demo.running import connected
from standin import StandIn
from standin.openapi import SpecViolationError
from standin.server import DefaultGuild
from standin.state import CREATE_EVENTS, MANAGE_EVENTS, PIN_MESSAGES
from tests.standin.helpers import BareBot

# The stand-in's own tests drive a bare bot that creates, edits and deletes events and pins a message:
# its role grants those (and @everyone the rest), nothing of paperclub's invite.
BARE_BOT_PERMISSIONS = CREATE_EVENTS | MANAGE_EVENTS | PIN_MESSAGES


@pytest.fixture
async def standin() -> AsyncIterator[StandIn]:
    """Fails the test at teardown if any request broke Discord's OpenAPI description (a test that sends
    one on purpose takes it with ``standin.take_violations()``)."""
    failure = ""
    try:
        async with StandIn(bot_permissions=BARE_BOT_PERMISSIONS) as server:
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
