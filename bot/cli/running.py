"""`paperclub run`, `demo`, `sync-commands` and `invite-url`: the bot on Discord (or the stand-in)."""

from __future__ import annotations

import argparse
import asyncio
import signal
from typing import Any

from bot.cli.common import command_settings, discord_failures
from bot.settings import SettingsError


async def _run(args: argparse.Namespace) -> None:
    from bot.api_base import discover_gateway
    from bot.client import build_bot

    settings = command_settings()
    token = settings.require_token()
    with discord_failures(settings):
        bot = build_bot(settings, sync_commands="auto")
        await discover_gateway(settings.discord_api_base)
        async with bot:
            # SIGTERM and SIGINT close the bot: sends in flight finish, job runs and leases are handed back.
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(signum, lambda: asyncio.ensure_future(bot.close()))
            await bot.start(token)
        await bot.close()  # returns when the shutdown a signal began has finished


async def _sync_commands(args: argparse.Namespace) -> None:
    from bot.client import build_bot

    settings = command_settings()
    token = settings.require_token()
    with discord_failures(settings):
        bot = build_bot(settings, sync_commands="force", start_background=False)
        async with bot:
            await bot.login(token)  # runs setup_hook, which syncs
    print(f"synced {len(bot.synced_commands)} commands")


async def _demo(args: argparse.Namespace) -> int:
    from bot.demo.runner import run_demo

    return await run_demo(verbose=args.verbose)


def _client_id(text: str) -> int:
    """An application id: a snowflake (a positive integer of at most 64 bits)."""
    if not (text.isascii() and text.isdigit()) or not 0 < int(text) < 1 << 64:
        raise argparse.ArgumentTypeError(f"{text!r} is not an application id (the digits of a Discord id)")
    return int(text)


NO_CLIENT_ID = (
    "invite-url needs the bot's application id: pass it with --client-id ID (Discord developer portal → your "
    "application → General Information → Application ID), or set DISCORD_TOKEN and it is read from Discord."
)


async def _invite_url(args: argparse.Namespace) -> None:
    """Print the invite URL with exactly the bot's required permissions (bot.permissions)."""
    from bot.permissions import invite_url

    client_id: int | None = args.client_id
    if client_id is None:
        import discord

        from bot.api_base import apply_api_base

        settings = command_settings()
        if settings.discord_token is None or not settings.discord_token.get_secret_value().strip():
            raise SettingsError(NO_CLIENT_ID)
        token = settings.require_token()
        apply_api_base(settings.discord_api_base)
        # The guilds intent only because discord.py warns without it; this client never opens the gateway.
        client = discord.Client(intents=discord.Intents(guilds=True))
        try:
            async with client:
                await client.login(token)  # discord.py reads GET /oauth2/applications/@me here
                client_id = client.application_id or (await client.application_info()).id
        except discord.LoginFailure:
            raise SettingsError(
                "DISCORD_TOKEN was refused by Discord: reset the token in the developer portal, "
                "or pass --client-id."
            ) from None
    print(invite_url(client_id))


def add_invite_url(sub: Any) -> None:
    """`paperclub invite-url`."""
    invite = sub.add_parser(
        "invite-url",
        help="print the URL that adds the bot to a server with the permissions it needs",
        description="Print the bot's invite URL (scopes bot and applications.commands, exactly the "
        "permissions in bot/permissions.py). The application id is read with DISCORD_TOKEN unless "
        "--client-id is given (the developer portal shows it: your application → General Information → "
        "Application ID).",
    )
    invite.add_argument("--client-id", type=_client_id, help="the application id (no token needed)")
    invite.set_defaults(handler=_invite_url)


def add_run(sub: Any) -> None:
    """`paperclub run` and `paperclub demo`."""
    run = sub.add_parser("run", help="run the bot (needs DISCORD_TOKEN)", description="Run the bot.")
    run.set_defaults(handler=_run)

    demo = sub.add_parser(
        "demo",
        help="offline tour against the local Discord stand-in (no token, no network)",
        description="Start the local Discord stand-in, run the bot against it and print a scripted tour.",
    )
    demo.add_argument("--verbose", action="store_true", help="also print the bot's log")
    demo.set_defaults(handler=_demo)


def add_sync(sub: Any) -> None:
    """`paperclub sync-commands`."""
    sync = sub.add_parser(
        "sync-commands",
        help="push slash commands to Discord now",
        description="Log in, sync the application commands (to DEV_GUILD_ID if set) and exit.",
    )
    sync.set_defaults(handler=_sync_commands)
