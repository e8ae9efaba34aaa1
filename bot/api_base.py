"""Point discord.py at another Discord-compatible API (DISCORD_API_BASE): REST base and gateway."""

from __future__ import annotations

import logging

import aiohttp
import discord.gateway
import discord.http
import yarl

from bot.settings import LOOPBACK_HOSTS, SettingsError, api_addresses

log = logging.getLogger("paperclub.api")

DISCORD_REST_BASE = "https://discord.com/api/v10"
DISCORD_GATEWAY = yarl.URL("wss://gateway.discord.gg/")
GATEWAY_LOOKUP_TIMEOUT = 10.0


def apply_api_base(base: str | None) -> None:
    """Send REST and webhook calls to ``base`` (root, ``…/api`` or ``…/api/vN``), the gateway to its own."""
    if not base:
        discord.http.Route.BASE = DISCORD_REST_BASE
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = DISCORD_GATEWAY
        return
    addresses = api_addresses(base)
    discord.http.Route.BASE = addresses.rest
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(addresses.gateway)


async def discover_gateway(base: str | None, *, timeout: float = GATEWAY_LOOKUP_TIMEOUT) -> yarl.URL:
    """Use the gateway ``GET /gateway`` announces (else the derived one); SettingsError if ws:// off-host."""
    if not base:
        return discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    addresses = api_addresses(base)
    derived = yarl.URL(addresses.gateway)
    where = f"{addresses.rest}/gateway"
    announced: object = None
    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as http,
            http.get(where, allow_redirects=False) as response,
        ):
            if response.status != 200:
                reason = f"HTTP {response.status}"
            else:
                data = await response.json(content_type=None)
                announced = data.get("url") if isinstance(data, dict) else None
                reason = "no gateway url in the answer"
    except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
        reason = f"{type(exc).__name__}: {exc}".rstrip(": ")
    gateway = _usable(announced) if isinstance(announced, str) else None
    if gateway is None and isinstance(announced, str):
        reason = f"not a ws(s) url: {announced[:100]!r}"
    if gateway is None:
        log.warning("GET %s not answered (%s); using the derived gateway %s", where, reason, derived)
        gateway = derived
    elif gateway.scheme == "ws" and (gateway.host or "") not in LOOPBACK_HOSTS:
        raise SettingsError(
            f"DISCORD_API_BASE's server announces the gateway {gateway} (plain ws off this machine, so the "
            "token would travel unencrypted): the server must announce a wss:// gateway."
        )
    else:
        log.info("gateway from GET %s: %s", where, gateway)
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = gateway
    return gateway


def _usable(text: str) -> yarl.URL | None:
    try:
        url = yarl.URL(text)
    except ValueError:
        return None
    return url if url.scheme in ("ws", "wss") and url.host else None


def current_api_base() -> tuple[str, yarl.URL]:
    """The addresses in force now (to put back with :func:`restore_api_base`)."""
    return discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY


def restore_api_base(saved: tuple[str, yarl.URL]) -> None:
    """Put back the Discord API and gateway addresses ``current_api_base`` saved."""
    discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = saved
