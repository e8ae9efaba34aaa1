"""Point discord.py at another Discord-compatible API (DISCORD_API_BASE).

discord.py has no public option for its base URLs, so this module sets the
class attributes that hold them. Every place in discord.py 2.7 that holds
the Discord API's address is listed here; anything else is derived from them:

* ``discord.http.Route.BASE`` -- every REST route. The interaction-webhook
  adapter (``discord.webhook.async_``) and the sync webhook adapter build
  their routes with this same ``Route`` class, so interaction responses and
  follow-ups follow it too.
* ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`` -- the gateway used on
  the first IDENTIFY and after an INVALID_SESSION. Resumes use the
  ``resume_gateway_url`` that READY carries, which the server chooses.

Call :func:`apply_api_base` before the client logs in. ``None`` restores
Discord's own addresses.
"""

from __future__ import annotations

import discord.gateway
import discord.http
import yarl

DISCORD_REST_BASE = "https://discord.com/api/v10"
DISCORD_GATEWAY = yarl.URL("wss://gateway.discord.gg/")


def gateway_url_for(base: str) -> yarl.URL:
    """The gateway address that belongs to an HTTP base URL (http→ws, https→wss)."""
    url = yarl.URL(base.rstrip("/"))
    scheme = "wss" if url.scheme == "https" else "ws"
    return url.with_scheme(scheme).with_path(url.path.rstrip("/") + "/gateway/")


def apply_api_base(base: str | None) -> None:
    """Send every REST, webhook and gateway call to ``base`` (e.g. ``http://127.0.0.1:8123``)."""
    if not base:
        discord.http.Route.BASE = DISCORD_REST_BASE
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = DISCORD_GATEWAY
        return
    root = base.rstrip("/")
    discord.http.Route.BASE = f"{root}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = gateway_url_for(root)


def current_api_base() -> tuple[str, yarl.URL]:
    """The addresses in force now (to put back with :func:`restore_api_base`)."""
    return discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY


def restore_api_base(saved: tuple[str, yarl.URL]) -> None:
    discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = saved
