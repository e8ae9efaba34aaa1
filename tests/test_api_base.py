"""DISCORD_API_BASE: each accepted form reaches the stand-in, and the gateway is the one GET /gateway announces.

The bot here is our real PaperclubBot (build_bot, as `paperclub run` builds it) on an SQLite store, started
with ``connected(..., api_base=...)``, which asks GET /gateway exactly as the CLI does before connecting.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from bot.api_base import (
    DISCORD_GATEWAY,
    DISCORD_REST_BASE,
    apply_api_base,
    current_api_base,
    discover_gateway,
    restore_api_base,
)
from bot.client import build_bot
from bot.demo.running import connected
from bot.settings import SettingsError, load_settings
from standin.server import StandIn
from tests.cards import card_title


@pytest.fixture(autouse=True)
def _keep_api_base() -> Iterator[None]:
    saved = current_api_base()
    yield
    restore_api_base(saved)


async def _setup_show(standin: StandIn, api_base: str, tmp_path: Path) -> None:
    """Start our bot with this DISCORD_API_BASE and have an admin run /setup show through it."""
    world = await standin.create_default_guild()
    settings = load_settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'api.db'}",
        discord_api_base=api_base,
        discord_token="sandbox-token",
        dev_guild_id=None,
        arxiv_api_url="http://127.0.0.1:9/api/query",
    )
    bot = build_bot(settings)
    async with connected(bot, standin, api_base=settings.discord_api_base):
        result = await standin.invoke("setup show", member=world.admin)
        response = await result.response()
    assert card_title(response) == "Paper club settings"


@pytest.mark.parametrize("suffix", ["", "/", "/api", "/api/", "/api/v10", "/api/v10/"])
async def test_each_form_of_the_base_reaches_the_standin(suffix: str, tmp_path: Path) -> None:
    async with StandIn() as standin:
        await _setup_show(standin, standin.base_url + suffix, tmp_path)
        # REST went to /api/v10 once, never /api/v10/api/v10; the gateway was asked for, not guessed.
        assert standin.requests_to("GET", r"^/gateway$")
        assert not [r for r in standin.requests if r.path.startswith("/api/")]
        assert standin.gateway.identifies == 1


async def test_the_gateway_is_the_announced_one_not_the_derived(tmp_path: Path) -> None:
    """A server whose gateway lives on another port and path: only GET /gateway finds it."""
    async with StandIn(gateway_path="/elsewhere/ws") as standin:
        assert standin.gateway_port != standin.port
        await _setup_show(standin, f"{standin.base_url}/api/v10", tmp_path)
        assert standin.gateway.identifies == 1  # nothing answers at the derived ws://host:port/gateway/


async def test_announced_gateway_is_used_for_identify() -> None:
    async with StandIn(gateway_path="/elsewhere/ws") as standin:
        apply_api_base(standin.base_url)
        assert str(current_api_base()[1]) == f"ws://127.0.0.1:{standin.port}/gateway/"  # derived
        gateway = await discover_gateway(standin.base_url)
        assert str(gateway) == f"ws://127.0.0.1:{standin.gateway_port}/elsewhere/ws"
        assert current_api_base() == (f"{standin.base_url}/api/v10", gateway)


@pytest.mark.parametrize("status", [404, 500])
async def test_unanswered_gateway_call_falls_back_to_the_derived_address(
    status: int, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with StandIn() as standin:
        standin.fail_next("GET", r"^/gateway$", status=status)
        await _setup_show(standin, standin.base_url, tmp_path)
        assert standin.gateway.identifies == 1
    assert f"not answered (HTTP {status}); using the derived gateway" in caplog.text


async def test_no_server_at_all_falls_back_quietly_to_the_derived_address() -> None:
    gateway = await discover_gateway("http://127.0.0.1:9", timeout=5)
    assert str(gateway) == "ws://127.0.0.1:9/gateway/"


async def _answering(url: object) -> web.AppRunner:
    async def gateway(_request: web.Request) -> web.Response:
        return web.json_response({"url": url})

    app = web.Application()
    app.router.add_get("/api/v10/gateway", gateway)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    return runner


async def test_plain_ws_gateway_off_this_machine_is_refused() -> None:
    """The token goes to the gateway in IDENTIFY: the plain-http rule of DISCORD_API_BASE holds there too."""
    runner = await _answering("ws://gateway.example.com/")
    try:
        port = runner.addresses[0][1]
        with pytest.raises(SettingsError, match=r"^DISCORD_API_BASE's server announces the gateway ws://"):
            await discover_gateway(f"http://127.0.0.1:{port}")
    finally:
        await runner.cleanup()


@pytest.mark.parametrize(
    ("announced", "expected"),
    [
        ("wss://gateway.example.com", "wss://gateway.example.com"),  # as Discord answers: no trailing slash
        (None, "derived"),
        ("https://not-a-websocket/", "derived"),
        (42, "derived"),
    ],
)
async def test_what_the_server_announces(announced: object, expected: str) -> None:
    runner = await _answering(announced)
    base = f"http://127.0.0.1:{runner.addresses[0][1]}"
    try:
        gateway = await discover_gateway(base)
    finally:
        await runner.cleanup()
    derived = base.replace("http://", "ws://") + "/gateway/"
    assert str(gateway) == (derived if expected == "derived" else expected)


async def test_discord_itself_is_not_asked_and_unchanged() -> None:
    apply_api_base(None)
    assert await discover_gateway(None) == DISCORD_GATEWAY
    assert current_api_base() == (DISCORD_REST_BASE, DISCORD_GATEWAY)
