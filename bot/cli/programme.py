"""`paperclub import` and `export`: the club's programme as a YAML or JSON file."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from pathlib import Path
from typing import Any

from bot.cli.common import command_settings, opened_store, server_id
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
    """Import into ``--guild``, else the file's ``guild_id``, else the store's one server: 0 when imported,
    1 when the file can't be read or has problems, 2 when the server is unclear."""
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
    """Export ``--guild`` (else the store's one server) to ``path``, YAML or JSON, all or nothing: 0 when
    written, 1 when the path is unusable, 2 when the server is unclear."""
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
    """Write via a temporary file in the same folder, renamed over ``path`` (usual permissions): a failed
    export leaves no half file."""
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


async def _import(args: argparse.Namespace) -> int:
    return await import_file(command_settings(), Path(args.file), guild_id=args.guild)


async def _export(args: argparse.Namespace) -> int:
    return await export_file(command_settings(), Path(args.file), guild_id=args.guild)


def add(sub: Any) -> None:
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
