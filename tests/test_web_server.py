"""The bot's web server: off unless WEB_PORT is set; features' routes are served once the bot is up,
and the server stops with the bot."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest
from aiohttp import web

from bot.web import WebServer


async def test_routes_added_before_start_are_served_and_stop_closes_the_port() -> None:
    server = WebServer("127.0.0.1", 0, public_url=None)
    routes = web.RouteTableDef()

    @routes.get("/hello")
    async def hello(request: web.Request) -> web.Response:
        return web.Response(text="hi")

    server.add_routes(routes)
    await server.start()
    try:
        assert server.bound_port != 0
        assert server.public_url == f"http://127.0.0.1:{server.bound_port}"
        async with aiohttp.ClientSession() as http, http.get(f"{server.public_url}/hello") as answer:
            assert answer.status == 200
            assert await answer.text() == "hi"
        with pytest.raises(RuntimeError, match="before the web server starts"):
            server.add_routes(routes)
    finally:
        await server.stop()
    async with aiohttp.ClientSession() as http:
        with pytest.raises(aiohttp.ClientConnectionError):
            await http.get(f"http://127.0.0.1:{server.bound_port}/hello")


def test_public_url_setting_wins() -> None:
    server = WebServer("127.0.0.1", 8080, public_url="https://club.example.org/")
    assert server.public_url == "https://club.example.org"


@pytest.fixture
def bot_settings_overrides(arxiv: Any) -> dict[str, Any]:
    return {"arxiv_api_url": arxiv.url, "web_port": 0}


async def test_the_bot_serves_when_web_port_is_set(discord_env) -> None:
    web_server = discord_env.bot.web
    assert web_server is not None
    assert web_server.started
    async with aiohttp.ClientSession() as http, http.get(f"{web_server.public_url}/no-such-page") as answer:
        assert answer.status == 404


async def test_no_web_server_by_default(store_info) -> None:
    from bot.client import build_bot
    from bot.settings import load_settings

    bot = build_bot(load_settings(database_url=store_info.url, web_port=None))
    try:
        assert bot.web is None
    finally:
        await bot.engine.dispose()
