"""`paperclub import`, `export`, `papers resolve` and `site build`."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from functools import partial
from pathlib import Path
from typing import Any

from bot.cli.common import CommandFailed, command_settings, opened_store, server_id
from bot.settings import Settings

MAX_FILE_BYTES = 5_000_000


class GuildUnclear(Exception):
    """The command line does not say which server, or names one the store does not have (exit 2)."""


async def _known(engine: Any) -> list[int]:
    from bot.services.privacy.servers import known_servers
    from db.engine import create_session_factory

    async with create_session_factory(engine)() as session:
        return sorted(await known_servers(session))


def _choose_guild(known: list[int], *, what: str, where: str) -> int:
    """The one server the store knows, or GuildUnclear saying why it can't choose."""
    if len(known) == 1:
        return known[0]
    if not known:
        raise GuildUnclear(f"say which server with --guild ID ({where} has no server yet)")
    listed = ", ".join(str(g) for g in known[:10]) + (" …" if len(known) > 10 else "")
    raise GuildUnclear(f"say which server {what} with --guild ID ({where} has {len(known)}: {listed})")


def _report_problems(problems: list[Any], path: Path) -> None:
    print(f"paperclub: {path} has {len(problems)} problem(s); nothing was imported:", file=sys.stderr)
    for problem in problems:
        print(f"  {path.name}: {problem}", file=sys.stderr)


async def import_file(settings: Settings, path: Path, guild_id: int | None) -> int:
    """Import into ``--guild``, else the file's ``guild_id``, else the store's one server: the exit code."""
    from bot.services.programme.checks import Problem, ProgrammeInvalid
    from bot.services.programme.files import file_suffix, guild_in, import_data, parse_document
    from db.engine import create_session_factory

    try:
        suffix = file_suffix(path)
        size = (await asyncio.to_thread(path.stat)).st_size
        if size > MAX_FILE_BYTES:
            raise ProgrammeInvalid([Problem(None, "file", f"over {MAX_FILE_BYTES // 1_000_000} MB")])
        text = await asyncio.to_thread(path.read_text, encoding="utf-8")
        data = parse_document(text, suffix)
    except ProgrammeInvalid as exc:
        _report_problems(exc.problems, path)
        return 1
    except UnicodeDecodeError:
        print(f"paperclub: {path} is not UTF-8 text; nothing was imported.", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"paperclub: cannot read {path} ({_why(exc)}); nothing was imported.", file=sys.stderr)
        return 1
    try:
        async with opened_store(settings, upgrade=True) as engine:
            if guild_id is None and guild_in(data) is None:
                guild_id = _choose_guild(
                    await _known(engine), what="to import into", where=_store(settings, path)
                )
                print(f"importing into server {guild_id}, the only one in the store (--guild ID to choose)")
            target, report = await import_data(create_session_factory(engine), data, guild_id)
    except GuildUnclear as exc:
        print(f"paperclub: {exc}; nothing was imported.", file=sys.stderr)
        return 2
    except ProgrammeInvalid as exc:
        _report_problems(exc.problems, path)
        return 1
    print(f"imported {path}: {report.summary(target)}")
    return 0


async def export_file(settings: Settings, path: Path, guild_id: int | None) -> int:
    """Export ``--guild`` (else the store's one server) to ``path``, all or nothing: the exit code."""
    from bot.services.programme.checks import ProgrammeInvalid
    from bot.services.programme.files import export_text, file_suffix
    from db.engine import create_session_factory

    try:
        suffix = file_suffix(path)
    except ProgrammeInvalid as exc:
        print(f"paperclub: {exc.problems[0]}", file=sys.stderr)
        return 1
    try:
        async with opened_store(settings, upgrade=True) as engine:
            known = await _known(engine)
            if guild_id is None:
                guild_id = _choose_guild(known, what="to export", where=_store(settings))
                print(f"exporting server {guild_id}, the only one in the store (--guild ID to choose)")
            elif guild_id not in known:
                others = (
                    f" (it has {', '.join(map(str, known[:10]))})" if known else " (it has no server yet)"
                )
                raise GuildUnclear(f"{_store(settings)} has nothing for server {guild_id}{others}")
            text = await export_text(create_session_factory(engine), guild_id, suffix=suffix)
    except GuildUnclear as exc:
        print(f"paperclub: {exc}; nothing was written.", file=sys.stderr)
        return 2
    try:
        await asyncio.to_thread(_write_whole, path, text)
    except OSError as exc:
        print(
            f"paperclub: cannot write {path} ({_why(exc)}): choose a file in a folder you can write to.",
            file=sys.stderr,
        )
        return 1
    print(f"exported guild {guild_id} to {path}")
    return 0


def _write_whole(path: Path, text: str) -> None:
    """Write via a temporary file in the same folder renamed over ``path``: never a half file."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _why(exc: OSError) -> str:
    """The OS's reason ('No such file or directory', 'Permission denied'...), without the path again."""
    return exc.strerror or type(exc).__name__


def _store(settings: Settings, path: Path | None = None) -> str:
    from db.engine import describe_database

    where = describe_database(settings.database_url)
    return f"{path.name} has no guild_id and {where}" if path is not None else where


def add_files(sub: Any) -> None:
    """`paperclub import` and `paperclub export`."""
    imp = sub.add_parser(
        "import",
        help="import a club programme (YAML or JSON)",
        description="Validate a YAML/JSON programme, then write it in one transaction.",
    )
    imp.add_argument("file", help="path to a .yaml/.yml/.json file")
    imp.add_argument(
        "--guild",
        type=server_id,
        help="server id (default: the file's guild_id, else the one server the store knows)",
    )
    imp.set_defaults(handler=lambda args: import_file(command_settings(), Path(args.file), args.guild))

    exp = sub.add_parser(
        "export",
        help="export the club programme (YAML or JSON)",
        description="Write settings, sessions and reading lists to a YAML/JSON file.",
    )
    exp.add_argument("file", help="path to a .yaml/.yml/.json file")
    exp.add_argument("--guild", type=server_id, help="server id (default: the one server the store knows)")
    exp.set_defaults(handler=lambda args: export_file(command_settings(), Path(args.file), args.guild))


async def _papers_resolve(args: argparse.Namespace) -> None:
    from bot.clock import SystemClock
    from bot.services.papers.flows import walk
    from bot.sources.clients import SourceClients
    from bot.sources.pace import StoreTurns
    from db.engine import create_session_factory

    settings = command_settings()

    async def ask(prompt: str) -> str | None:
        try:
            return await asyncio.to_thread(input, prompt)
        except EOFError:
            return None

    say = partial(print, flush=True)
    async with opened_store(settings, upgrade=True) as engine:
        factory = create_session_factory(engine)
        clients = SourceClients.from_settings(settings, turns=StoreTurns(factory))
        try:
            await walk(factory, clients, args.guild, auto=args.auto, ask=ask, say=say, now=SystemClock().now)
        finally:
            await clients.close()


# bot.services.papers.resolve's AUTO_MIN and AUTO_NEXT_MAX (a test holds them equal)
AUTO_MIN, AUTO_NEXT_MAX = 0.9, 0.6


def add_papers(sub: Any) -> None:
    """`paperclub papers …`."""
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


async def _site_build(args: argparse.Namespace) -> None:
    from bot.clock import SystemClock
    from bot.errors import NotConfigured
    from bot.services.site.web import build_site
    from db.engine import create_session_factory

    settings = command_settings()
    async with opened_store(settings) as engine:
        try:
            report = await build_site(
                create_session_factory(engine),
                args.guild,
                Path(args.out_dir),
                now=SystemClock().now(),
                base_url=args.base_url,
                grace_days=settings.guild_data_grace_days,
            )
        except NotConfigured as exc:
            raise CommandFailed(exc.user_message) from None
        except OSError as exc:
            raise CommandFailed(f"cannot write {args.out_dir} ({exc.strerror or exc})") from None
    print(
        f"wrote {report.files} files to {report.out_dir} (site /{report.slug}/: "
        f"{report.sessions} session pages, {report.lists} reading lists)"
    )


def add_site(sub: Any) -> None:
    """`paperclub site …`."""
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
        help="the address the folder is served at, e.g. https://club.example.org/paper-club/ (for link "
        "previews' og:url and the webcal:// link; without it the pages carry no og:url)",
    )
    build.set_defaults(handler=_site_build)
