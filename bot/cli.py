"""The `paperclub` command line: run, demo, db upgrade, db downgrade, db backup, sync-commands, import, export,
papers resolve, invite-url, site build."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, NoReturn

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError

from bot.settings import Settings, SettingsError, api_addresses, load_settings
from db.engine import describe_database

log = logging.getLogger("paperclub")
# Each command imports what it needs when it runs, so `paperclub --help` and the small commands start
# without loading the bot and its features.
MAX_ID = 2**63 - 1  # the store keeps ids in signed 64-bit columns; Discord's snowflakes fit


class CommandFailed(Exception):
    """A command could not do its job: one line for the user, and the exit code (1; 2 for bad input)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def _settings() -> Settings:
    from bot.logs import setting_secrets, setup_logging

    settings = load_settings()
    setup_logging(settings.log_level, secrets=setting_secrets(settings))
    return settings


async def _run(args: argparse.Namespace) -> int:
    from bot.api_base import discover_gateway
    from bot.app import build_bot

    settings = _settings()
    token = settings.require_token()
    with _discord_failures(settings):
        bot = build_bot(settings, sync_commands="auto")
        await discover_gateway(settings.discord_api_base)
        async with bot:
            _close_on_signals(bot)
            await bot.start(token)
        await bot.close()  # returns when the shutdown a signal began has finished
    return 0


def _close_on_signals(bot: Any) -> None:
    """SIGTERM (systemd's stop, a rolling restart) and SIGINT close the bot: sends in flight finish, job
    runs are handed back, leases released, so the other processes carry on at once instead of waiting
    for leases to run out."""
    import signal

    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, lambda: asyncio.ensure_future(bot.close()))


@contextlib.contextmanager
def _discord_failures(settings: Settings) -> Iterator[None]:
    """What can go wrong in `run` and `sync-commands`, each as its own one line (never the token)."""
    import aiohttp
    import discord

    try:
        with _database_failures(settings):
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
        raise CommandFailed(_unreachable_discord(settings, exc)) from None


def _unreachable_discord(settings: Settings, exc: BaseException) -> str:
    base = settings.discord_api_base
    where = f"the Discord API at {api_addresses(base).rest} (DISCORD_API_BASE)" if base else "Discord"
    fix = "check DISCORD_API_BASE and that the server is running" if base else "check the network"
    reason = " ".join(f"{type(exc).__name__}: {exc}".split()).rstrip(": ")[:200]
    return f"cannot reach {where} ({reason}): {fix}."


@contextlib.contextmanager
def _database_failures(settings: Settings) -> Iterator[None]:
    """The store can't be used: one line naming which database (never its password)."""
    import aiohttp
    import asyncpg

    try:
        yield
    except DBAPIError as exc:
        raise CommandFailed(describe_database_error(exc, settings.database_url)) from None
    except (asyncpg.PostgresError, asyncpg.InterfaceError) as exc:  # raised unwrapped while connecting
        raise CommandFailed(describe_database_error(exc, settings.database_url)) from None
    except aiohttp.ClientError:
        raise  # aiohttp's connection errors are OSErrors too, but they are never the store's
    except OSError as exc:  # asyncpg raises the socket's own error when it cannot connect
        where = describe_database(settings.database_url)
        reason = _without_password(f"{type(exc).__name__}: {exc}", settings.database_url)
        raise CommandFailed(
            f"cannot connect to {where} ({reason}): check DATABASE_URL and that the server is running."
        ) from None


async def _db_upgrade(args: argparse.Namespace) -> int:
    from db.engine import create_engine
    from db.migrate import upgrade_database

    settings = _settings()
    engine = create_engine(settings.database_url)
    with _database_failures(settings):
        try:
            await upgrade_database(engine)
        finally:
            await engine.dispose()
    print("database is up to date")
    return 0


async def _db_downgrade(args: argparse.Namespace) -> int:
    from alembic.util import CommandError

    from db.engine import create_engine
    from db.migrate import downgrade_database

    settings = _settings()
    engine = create_engine(settings.database_url)
    with _database_failures(settings):
        try:
            await downgrade_database(engine, args.revision)
        except CommandError as exc:
            raise CommandFailed(f"cannot undo migration {args.revision}: {exc}", code=2) from None
        finally:
            await engine.dispose()
    print(f"migration {args.revision} undone")
    return 0


async def _db_backup(args: argparse.Namespace) -> int:
    """A consistent copy of the SQLite store, taken with SQLite's online backup API while the bot runs."""
    settings = _settings()
    url = make_url(settings.database_url)
    if url.get_backend_name() != "sqlite":
        raise CommandFailed(
            f"paperclub db backup copies an SQLite store, and DATABASE_URL is {describe_database(url)}: "
            "back PostgreSQL up with pg_dump (see docs/deploy.md).",
            code=2,
        )
    source, target = await asyncio.to_thread(backup_sqlite, Path(url.database or ""), Path(args.file))
    print(f"backed up {source} to {target}")
    return 0


def backup_sqlite(source: Path, target: Path) -> tuple[Path, Path]:
    """Copy ``source`` to ``target`` in one backup step (under a read lock: a consistent snapshot while the
    bot writes), through a temporary file, so ``target`` appears whole or not at all."""
    import sqlite3

    if not source.is_file():
        raise CommandFailed(f"there is no SQLite database at {source.resolve()}: check DATABASE_URL.")
    if target.resolve() == source.resolve():
        raise CommandFailed("the backup must go to another file than the database itself.", code=2)
    partial = target.with_name(f".{target.name}.partial")
    try:
        partial.unlink(missing_ok=True)
        src = sqlite3.connect(source, timeout=30)
        try:
            dst = sqlite3.connect(partial)
            try:
                src.backup(dst)
            finally:
                dst.close()
        finally:
            src.close()
        partial.replace(target)
    except (OSError, sqlite3.Error) as exc:
        partial.unlink(missing_ok=True)
        reason = getattr(exc, "strerror", None) or exc
        raise CommandFailed(f"cannot back up to {target} ({reason}): choose a writable path.") from None
    return source, target


async def _sync_commands(args: argparse.Namespace) -> int:
    from bot.app import build_bot

    settings = _settings()
    token = settings.require_token()
    with _discord_failures(settings):
        bot = build_bot(settings, sync_commands="force", start_background=False)
        async with bot:
            await bot.login(token)  # runs setup_hook, which syncs
    print(f"synced {len(bot.synced_commands)} commands")
    return 0


async def _demo(args: argparse.Namespace) -> int:
    from bot.demo.runner import run_demo

    return await run_demo(verbose=args.verbose)


async def _import(args: argparse.Namespace) -> int:
    from bot.services.programme.files import import_file

    settings = _settings()
    with _database_failures(settings):
        return await import_file(settings, Path(args.file), guild_id=args.guild)


async def _export(args: argparse.Namespace) -> int:
    from bot.services.programme.files import export_file

    settings = _settings()
    with _database_failures(settings):
        return await export_file(settings, Path(args.file), guild_id=args.guild)


# ---------------------------------------------------------------- site build (the club's website, #13)


async def _site_build(args: argparse.Namespace) -> int:
    from bot.clock import SystemClock
    from bot.errors import NotConfigured
    from bot.services.site.build import build_site
    from db.engine import create_engine, create_session_factory

    settings = _settings()
    base_url = args.base_url
    engine = create_engine(settings.database_url)
    with _database_failures(settings):
        try:
            report = await build_site(
                create_session_factory(engine),
                args.guild,
                Path(args.out_dir),
                now=SystemClock().now(),
                base_url=base_url,
            )
        except NotConfigured as exc:
            raise CommandFailed(exc.user_message) from None
        except OSError as exc:
            raise CommandFailed(f"cannot write {args.out_dir} ({exc.strerror or exc})") from None
        finally:
            await engine.dispose()
    print(
        f"wrote {report.files} files to {report.out_dir} (site /{report.slug}/: "
        f"{report.sessions} session pages, {report.lists} reading lists)"
    )
    return 0


# ---------------------------------------------------------------- papers resolve (title-only names, #20)


async def _papers_resolve(args: argparse.Namespace) -> int:
    from bot.arxiv import ArxivClient
    from bot.clock import SystemClock
    from bot.services.papers.walk import walk
    from bot.sources.clients import SourceClients
    from db.engine import create_engine, create_session_factory
    from db.migrate import upgrade_database

    settings = _settings()
    clients = SourceClients.from_settings(settings)
    arxiv = ArxivClient(settings.arxiv_api_url) if settings.source_enabled("arxiv") else None

    async def ask(prompt: str) -> str | None:
        try:
            return await asyncio.to_thread(input, prompt)
        except EOFError:
            return None

    engine = create_engine(settings.database_url)
    with _database_failures(settings):
        try:
            await upgrade_database(engine)
            await walk(
                create_session_factory(engine),
                clients,
                arxiv,
                args.guild,
                auto=args.auto,
                ask=ask,
                say=lambda line: print(line, flush=True),
                now=SystemClock().now,
            )
        finally:
            await clients.close()
            if arxiv is not None:
                await arxiv.close()
            await engine.dispose()
    return 0


# bot.services.papers.resolve's AUTO_MIN and AUTO_NEXT_MAX, written here so --help loads no feature (a test
# holds them equal)
AUTO_MIN, AUTO_NEXT_MAX = 0.9, 0.6


def _add_papers_parser(sub: Any) -> None:
    papers = sub.add_parser("papers", help="the club's papers", description="The club's papers.")
    papers_sub = papers.add_subparsers(dest="papers_command", required=True, metavar="PAPERS_COMMAND")
    resolve = papers_sub.add_parser(
        "resolve",
        help="say which paper each title-only name means",
        description=(
            "Walk the server's unresolved (title-only) papers: each name's candidates from Semantic Scholar, "
            "Hugging Face and arXiv (those PAPER_SOURCES turns on) as a numbered list; type a number to pick, "
            "n for none of these (not asked again), s to skip, q to stop. Every pick is remembered as an "
            "alias, so the next mention of the name resolves at once."
        ),
    )
    resolve.add_argument("--guild", type=server_id, required=True, help="server id")
    resolve.add_argument(
        "--auto",
        action="store_true",
        help=(
            f"ask nothing: take a name's best candidate only when its title similarity is at least "
            f"{AUTO_MIN} and the next candidate's at most {AUTO_NEXT_MAX} (or there is no other); print "
            "what was resolved and what was skipped, and why"
        ),
    )
    resolve.set_defaults(handler=_papers_resolve)


def _add_site_parser(sub: Any) -> None:
    site = sub.add_parser("site", help="the club's website", description="The club's public website.")
    site_sub = site.add_subparsers(dest="site_command", required=True, metavar="SITE_COMMAND")
    build = site_sub.add_parser(
        "build",
        help="write the website as static files",
        description="Write a server's website (pages, calendar.ics, feed.atom) as static files to OUT_DIR.",
    )
    build.add_argument("--guild", type=server_id, required=True, help="server id (its website must be on)")
    build.add_argument("out_dir", metavar="OUT_DIR", help="folder to write (created if missing)")
    build.add_argument(
        "--base-url",
        default=None,
        help="the address the folder is served at (for the page's webcal:// link), e.g. https://club.example.org/",
    )
    build.set_defaults(handler=_site_build)


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error as one line (exit 2) that points to --help."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def server_id(text: str) -> int:
    """A --guild value: a server id, i.e. a positive whole number (Developer Mode → Copy Server ID)."""
    value = text.strip()
    if not (value.isascii() and value.isdigit()) or not 0 < int(value) <= MAX_ID:
        raise argparse.ArgumentTypeError(f"not a server id: {text[:30]!r} (a positive whole number)")
    return int(value)


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
    """The ``paperclub`` command line: its sub-commands and their options."""
    parser = _Parser(prog="paperclub", description="A Discord bot for a research paper club.")
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
    downgrade = db_sub.add_parser(
        "downgrade",
        help="undo one migration (to go back to the release before)",
        description="Undo migration REVISION (one step down its branch) and any that stand on it, e.g. 0020. "
        "Run it with the newer release, then start the older one: `paperclub run` upgrades again.",
    )
    downgrade.add_argument("revision", metavar="REVISION", help="the migration to undo, e.g. 0020")
    downgrade.set_defaults(handler=_db_downgrade)
    backup = db_sub.add_parser(
        "backup",
        help="copy the SQLite database to FILE while the bot runs",
        description="Copy the SQLite store to FILE with SQLite's online backup API (a consistent snapshot, "
        "safe while the bot runs). For PostgreSQL use pg_dump.",
    )
    backup.add_argument("file", help="where to write the copy (replaced if it exists)")
    backup.set_defaults(handler=_db_backup)

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
    imp.add_argument(
        "--guild",
        type=server_id,
        default=None,
        help="server id (default: the file's guild_id, else the one server the store knows)",
    )
    imp.set_defaults(handler=_import)

    exp = sub.add_parser(
        "export",
        help="export the club programme (YAML or JSON)",
        description="Write settings, sessions and reading lists to a YAML/JSON file.",
    )
    exp.add_argument("file", help="path to a .yaml/.yml/.json file")
    exp.add_argument(
        "--guild", type=server_id, default=None, help="server id (default: the one server the store knows)"
    )
    exp.set_defaults(handler=_export)
    _add_papers_parser(sub)
    _add_invite_url(sub)
    _add_site_parser(sub)
    return parser


def describe_database_error(exc: Exception, url: str) -> str:
    """One line on why the store can't be used: which database (never the password), and the driver's reason."""
    cause = exc.orig if isinstance(exc, DBAPIError) else exc
    reason = " ".join(str(cause).split())[:200] if cause is not None else type(exc).__name__
    reason = _without_password(reason, url)
    return (
        f"cannot use {describe_database(url)} ({reason}): check DATABASE_URL and that the database is "
        "reachable and writable."
    )


def _without_password(text: str, url: str) -> str:
    with contextlib.suppress(ArgumentError):
        password = make_url(url).password
        if password:
            text = text.replace(str(password), "[password]")
    return text


def main(argv: list[str] | None = None) -> int:
    """Run the ``paperclub`` command line and return its exit code."""
    args = build_parser().parse_args(argv)
    handler: Callable[[argparse.Namespace], Coroutine[Any, Any, int]] = args.handler
    try:
        return asyncio.run(handler(args))
    except SettingsError as exc:
        print(f"paperclub: {exc}", file=sys.stderr)
        return 2
    except CommandFailed as exc:
        print(f"paperclub: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        return 130
