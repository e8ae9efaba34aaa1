"""The `paperclub` command line: run, demo, db upgrade, sync-commands, import, export, invite-url."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from sqlalchemy.exc import DBAPIError

from bot.settings import Settings, SettingsError, load_settings

log = logging.getLogger("paperclub")


def _settings() -> Settings:
    from bot.logs import setup_logging

    settings = load_settings()
    token = settings.discord_token.get_secret_value() if settings.discord_token else ""
    setup_logging(settings.log_level, secrets=[token, token.strip()])
    return settings


async def _run(args: argparse.Namespace) -> int:
    import discord

    from bot.app import build_bot

    settings = _settings()
    token = settings.require_token()
    bot = build_bot(settings, sync_commands="auto")
    try:
        async with bot:
            await bot.start(token)
    except discord.LoginFailure:
        raise SettingsError(
            "DISCORD_TOKEN was refused by Discord: reset the token in the developer portal."
        ) from None
    except discord.PrivilegedIntentsRequired:
        raise SettingsError("Discord refused the intents: the bot needs no privileged intents.") from None
    return 0


async def _db_upgrade(args: argparse.Namespace) -> int:
    from db.engine import create_engine
    from db.migrate import upgrade_database

    settings = _settings()
    engine = create_engine(settings.database_url)
    try:
        await upgrade_database(engine)
    finally:
        await engine.dispose()
    print("database is up to date")
    return 0


async def _sync_commands(args: argparse.Namespace) -> int:
    from bot.app import build_bot

    settings = _settings()
    token = settings.require_token()
    bot = build_bot(settings, sync_commands="force", start_background=False)
    async with bot:
        await bot.login(token)  # runs setup_hook, which syncs
    print(f"synced {len(bot.synced_commands)} commands")
    return 0


async def _demo(args: argparse.Namespace) -> int:
    from bot.demo.runner import run_demo

    return await run_demo(verbose=args.verbose)


async def _import(args: argparse.Namespace) -> int:
    from bot.services.reading.files import import_file

    settings = _settings()
    return await import_file(settings, Path(args.file), guild_id=args.guild)


async def _export(args: argparse.Namespace) -> int:
    from bot.services.reading.files import export_file

    settings = _settings()
    return await export_file(settings, Path(args.file), guild_id=args.guild)


# -- invite-url ------------------------------------------------------------------------------------------------
def _client_id(text: str) -> int:
    """An application id: a snowflake (a positive integer of at most 64 bits)."""
    if not (text.isascii() and text.isdigit()) or not 0 < int(text) < 1 << 64:
        raise argparse.ArgumentTypeError(f"{text!r} is not an application id (the digits of a Discord id)")
    return int(text)


async def _invite_url(args: argparse.Namespace) -> int:
    """Print the invite URL with exactly the bot's required permissions (bot.permissions)."""
    from bot.permissions import invite_url

    client_id: int | None = args.client_id
    if client_id is None:
        import discord

        from bot.api_base import apply_api_base

        settings = _settings()
        token = settings.require_token()
        apply_api_base(settings.discord_api_base)
        client = discord.Client(intents=discord.Intents.none())
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
    return 0


def _add_invite_url(sub: Any) -> None:
    invite = sub.add_parser(
        "invite-url",
        help="print the URL that adds the bot to a server with the permissions it needs",
        description="Print the bot's invite URL (scopes bot and applications.commands, exactly the "
        "permissions in bot/permissions.py). The application id is read with DISCORD_TOKEN unless "
        "--client-id is given.",
    )
    invite.add_argument(
        "--client-id", type=_client_id, default=None, help="the application id (no token needed)"
    )
    invite.set_defaults(handler=_invite_url)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="paperclub", description="A Discord bot for a research paper club.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="run the bot (needs DISCORD_TOKEN)", description="Run the bot.")
    run.set_defaults(handler=_run)

    demo = sub.add_parser(
        "demo",
        help="offline tour against the local Discord stand-in (no token, no network)",
        description="Start the local Discord stand-in, run the bot against it and print a scripted tour.",
    )
    demo.add_argument("--verbose", action="store_true", help="also print the bot's log")
    demo.set_defaults(handler=_demo)

    db = sub.add_parser("db", help="database maintenance", description="Database maintenance.")
    db_sub = db.add_subparsers(dest="db_command", required=True, metavar="DB_COMMAND")
    upgrade = db_sub.add_parser(
        "upgrade", help="apply migrations", description="Apply every pending migration."
    )
    upgrade.set_defaults(handler=_db_upgrade)

    sync = sub.add_parser(
        "sync-commands",
        help="push slash commands to Discord now",
        description="Log in, sync the application commands (to DEV_GUILD_ID if set) and exit.",
    )
    sync.set_defaults(handler=_sync_commands)

    imp = sub.add_parser(
        "import",
        help="import a club programme (YAML or JSON)",
        description="Validate a YAML/JSON programme, then write it in one transaction.",
    )
    imp.add_argument("file", help="path to a .yaml/.yml/.json file")
    imp.add_argument("--guild", type=int, default=None, help="guild id (default: the file's guild_id)")
    imp.set_defaults(handler=_import)

    exp = sub.add_parser(
        "export",
        help="export the club programme (YAML or JSON)",
        description="Write settings, sessions and reading lists to a YAML/JSON file.",
    )
    exp.add_argument("file", help="path to a .yaml/.yml/.json file")
    exp.add_argument("--guild", type=int, required=True, help="guild id to export")
    exp.set_defaults(handler=_export)
    _add_invite_url(sub)
    return parser


def describe_database_error(exc: DBAPIError) -> str:
    """One line on why the store can't be used, without the URL (it may hold a password)."""
    reason = " ".join(str(exc.orig).split())[:200] if exc.orig is not None else type(exc).__name__
    return f"cannot use the database in DATABASE_URL ({reason}): check that it is reachable and writable."


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handler: Callable[[argparse.Namespace], Coroutine[Any, Any, int]] = args.handler
    try:
        return asyncio.run(handler(args))
    except SettingsError as exc:
        print(f"paperclub: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except DBAPIError as exc:
        print(f"paperclub: {describe_database_error(exc)}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(
            f"paperclub: cannot connect ({type(exc).__name__}: {exc}): check DATABASE_URL and the network.",
            file=sys.stderr,
        )
        return 1
