"""What the `paperclub` commands share: settings, one-line failures (store, Discord), ids, the parser."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from typing import NoReturn

from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.settings import Settings, SettingsError, api_addresses, load_settings
from db.engine import describe_database, without_password

# Each command imports what it needs when it runs, so `paperclub --help` loads no feature.
MAX_ID = 2**63 - 1  # the store keeps ids in signed 64-bit columns; Discord's snowflakes fit


class CommandFailed(Exception):
    """A command could not do its job: one line for the user, and the exit code (1; 2 for bad input)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def command_settings() -> Settings:
    """The settings, with logging set up (secrets redacted)."""
    from bot.logs import setting_secrets, setup_logging

    loaded = load_settings()
    setup_logging(loaded.log_level, secrets=setting_secrets(loaded))
    return loaded


@contextlib.contextmanager
def discord_failures(settings: Settings) -> Iterator[None]:
    """What can go wrong in `run` and `sync-commands`, each as its own one line (never the token)."""
    import aiohttp
    import discord

    try:
        with database_failures(settings):
            yield
    except discord.LoginFailure:
        raise SettingsError(
            "DISCORD_TOKEN was refused by Discord: reset the token in the developer portal."
        ) from None
    except discord.PrivilegedIntentsRequired:
        raise SettingsError("Discord refused the intents: the bot needs no privileged intents.") from None
    except discord.HTTPException as exc:
        guild = settings.dev_guild_id
        if guild is not None and f"/guilds/{guild}/commands" in str(exc.response.url):
            raise SettingsError(
                f"DEV_GUILD_ID is {guild}, but the bot cannot sync commands to that server "
                f"({exc.status} {exc.text or 'error'}): invite the bot to it with the bot and "
                "applications.commands scopes, or unset DEV_GUILD_ID."
            ) from None
        raise
    except (aiohttp.ClientError, discord.GatewayNotFound) as exc:
        base = settings.discord_api_base
        where = f"the Discord API at {api_addresses(base).rest} (DISCORD_API_BASE)" if base else "Discord"
        fix = "check DISCORD_API_BASE and that the server is running" if base else "check the network"
        reason = " ".join(f"{type(exc).__name__}: {exc}".split()).rstrip(": ")[:200]
        raise CommandFailed(f"cannot reach {where} ({reason}): {fix}.") from None


@contextlib.contextmanager
def database_failures(settings: Settings) -> Iterator[None]:
    """The store can't be used: one line naming which database (never its password)."""
    import aiohttp
    import asyncpg

    url = settings.database_url
    try:
        yield
    except (DBAPIError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:  # (asyncpg's: when connecting)
        cause = exc.orig if isinstance(exc, DBAPIError) else exc
        reason = " ".join(str(cause).split())[:200] if cause is not None else type(exc).__name__
        raise CommandFailed(
            f"cannot use {describe_database(url)} ({without_password(reason, url)}): check DATABASE_URL and "
            "that the database is reachable and writable."
        ) from None
    except aiohttp.ClientError:
        raise  # aiohttp's connection errors are OSErrors too, but they are never the store's
    except OSError as exc:  # asyncpg raises the socket's own error when it cannot connect
        where = describe_database(url)
        reason = without_password(f"{type(exc).__name__}: {exc}", url)
        raise CommandFailed(
            f"cannot connect to {where} ({reason}): check DATABASE_URL and that the server is running."
        ) from None


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error as one line (exit 2) that points to --help."""

    def error(self, message: str) -> NoReturn:
        """Exit 2 with the usage error on one line."""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _snowflake(what: str) -> Callable[[str], int]:
    def read(text: str) -> int:
        value = text.strip()
        if not (value.isascii() and value.isdigit()) or not 0 < int(value) <= MAX_ID:
            raise argparse.ArgumentTypeError(f"not a {what} id: {text[:30]!r} (a positive whole number)")
        return int(value)

    return read


server_id = _snowflake("server")  # --guild (Developer Mode → right-click the server → Copy Server ID)
user_id = _snowflake("user")  # --user (Developer Mode → right-click the member → Copy User ID)


@contextlib.asynccontextmanager
async def opened_store(settings: Settings, *, upgrade: bool = False) -> AsyncIterator[AsyncEngine]:
    """The store's engine (upgraded first when asked), its failures as one line, disposed after."""
    from db.engine import create_engine
    from db.migrate import upgrade_database

    engine = create_engine(settings.database_url)
    with database_failures(settings):
        try:
            if upgrade:
                await upgrade_database(engine)
            yield engine
        finally:
            await engine.dispose()
