"""`paperclub import` and `paperclub export`: the programme file read (with its lines), checked, written in one
transaction; or written out whole."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import sys
from pathlib import Path
from typing import Any, TextIO

import yaml
from sqlalchemy import select, union
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.ids import MAX_BIGINT
from bot.services.config.guild import get_config
from bot.services.programme.apply import ImportReport, apply_programme
from bot.services.programme.checks import LINE_KEY, LINES_KEY, Problem, ProgrammeInvalid
from bot.services.programme.document import validate_programme
from bot.services.programme.export import dump_programme
from bot.settings import Settings
from db.base import Base
from db.engine import create_engine, create_session_factory, describe_database
from db.migrate import upgrade_database

MAX_FILE_BYTES = 5_000_000


class LineList(list[Any]):
    """A YAML sequence that remembers the line of each item."""

    lines: list[int]


class LineLoader(yaml.SafeLoader):
    """Safe YAML recording line numbers; only null and true/false are resolved, every other scalar stays text
    (an arXiv id 2401.12340 is not the number 2401.1234)."""

    yaml_implicit_resolvers: dict[Any, Any] = {}

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """Build a mapping, recording its line and each key's line."""
        mapping = super().construct_mapping(node, deep=True)
        mapping[LINE_KEY] = node.start_mark.line + 1
        mapping[LINES_KEY] = {
            str(self.construct_object(key, deep=True)): value.start_mark.line + 1 for key, value in node.value
        }
        return mapping

    def construct_line_list(self, node: yaml.SequenceNode) -> LineList:
        """Build a list, recording each item's line."""
        items = LineList(self.construct_object(child, deep=True) for child in node.value)
        items.lines = [child.start_mark.line + 1 for child in node.value]
        return items


LineLoader.add_implicit_resolver(
    "tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]
)
LineLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
LineLoader.add_constructor("tag:yaml.org,2002:seq", LineLoader.construct_line_list)
LineLoader.add_constructor("tag:yaml.org,2002:map", LineLoader.construct_mapping)


def parse_document(text: str, suffix: str) -> Any:
    """YAML or JSON text as plain data with line numbers; ProgrammeInvalid on a syntax error."""
    if suffix == ".json":
        try:
            json.loads(text)  # JSON's own syntax rules and error lines first
        except json.JSONDecodeError as exc:
            raise ProgrammeInvalid([Problem(exc.lineno, "file", f"not valid JSON: {exc.msg}")]) from None
    try:
        return yaml.load(text, Loader=LineLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        reason = " ".join(str(exc.problem or exc).split())
        if suffix == ".json":  # valid JSON that YAML can't read (e.g. tab indents): no line numbers
            return json.loads(text)
        raise ProgrammeInvalid([Problem(line, "file", f"not valid YAML: {reason}")]) from None
    except yaml.YAMLError as exc:
        raise ProgrammeInvalid([Problem(None, "file", f"not valid YAML: {exc}")]) from None


def file_suffix(path: Path) -> str:
    """The parser suffix for a programme file, or ProgrammeInvalid for another file type."""
    suffix = path.suffix.lower()
    if suffix not in (".yaml", ".yml", ".json"):
        raise ProgrammeInvalid([Problem(None, str(path), "use a .yaml, .yml or .json file")])
    return ".json" if suffix == ".json" else ".yaml"


async def import_text(
    session_factory: async_sessionmaker[AsyncSession], text: str, *, suffix: str, guild_id: int | None
) -> tuple[int, ImportReport]:
    """Validate `text`, then write it in one transaction. Returns (guild id, report); ProgrammeInvalid
    (with every problem) before anything is written."""
    return await _import_data(session_factory, parse_document(text, suffix), guild_id)


async def _import_data(
    session_factory: async_sessionmaker[AsyncSession], data: Any, guild_id: int | None
) -> tuple[int, ImportReport]:
    target = guild_id or _guild_in(data)
    async with session_factory() as session:
        default_zone = (await get_config(session, target)).timezone if target else "America/Los_Angeles"
    programme = validate_programme(data, guild_id=guild_id, default_timezone=default_zone)
    async with session_factory() as session, session.begin():
        report = await apply_programme(session, programme)
    return programme.guild_id, report


async def known_guilds(session: AsyncSession) -> list[int]:
    """Every server the store holds anything for (each table with a guild_id column), in order."""
    tables = [table for table in Base.metadata.sorted_tables if "guild_id" in table.c]
    query = union(*(select(table.c.guild_id) for table in tables))
    return sorted(int(value) for value in (await session.scalars(query)))


class GuildUnclear(Exception):
    """The command line does not say which server, or names one the store does not have (exit 2)."""


def _choose_guild(known: list[int], *, what: str, where: str) -> int:
    """The one server the store knows, or GuildUnclear saying why it can't choose."""
    if len(known) == 1:
        return known[0]
    if not known:
        raise GuildUnclear(f"say which server with --guild ID ({where} has no server yet)")
    listed = ", ".join(str(g) for g in known[:10]) + (" …" if len(known) > 10 else "")
    raise GuildUnclear(f"say which server {what} with --guild ID ({where} has {len(known)}: {listed})")


def _guild_in(data: Any) -> int | None:
    value = data.get("guild_id") if isinstance(data, dict) else None
    text = str(value).strip() if isinstance(value, int | str) and not isinstance(value, bool) else ""
    if not (text.isascii() and text.isdigit() and len(text) <= 19):  # '²'.isdigit() is true
        return None
    return int(text) if 0 < int(text) <= MAX_BIGINT else None


async def export_text(
    session_factory: async_sessionmaker[AsyncSession], guild_id: int, *, suffix: str
) -> str:
    """The guild's programme as YAML (with a header) or JSON text."""
    async with session_factory() as session:
        data = await dump_programme(session, guild_id)
    if suffix == ".json":
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    header = "# The paper club's programme. Import with: paperclub import FILE\n"
    return header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110)


def _report_problems(exc: ProgrammeInvalid, path: Path, err: TextIO) -> None:
    print(f"paperclub: {path} has {len(exc.problems)} problem(s); nothing was imported:", file=err)
    for problem in exc.problems:
        print(f"  {path.name}: {problem}", file=err)


async def import_file(settings: Settings, path: Path, guild_id: int | None) -> int:
    """The CLI's import into ``--guild``, else the file's ``guild_id``, else the store's one server: 0 when
    imported, 1 when the file can't be read or has problems, 2 when the server is unclear."""
    try:
        suffix = file_suffix(path)
        size = (await asyncio.to_thread(path.stat)).st_size
        if size > MAX_FILE_BYTES:
            raise ProgrammeInvalid([Problem(None, "file", f"over {MAX_FILE_BYTES // 1_000_000} MB")])
        text = await asyncio.to_thread(path.read_text, encoding="utf-8")
        data = parse_document(text, suffix)
    except ProgrammeInvalid as exc:
        _report_problems(exc, path, sys.stderr)
        return 1
    except UnicodeDecodeError:
        print(f"paperclub: {path} is not UTF-8 text; nothing was imported.", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"paperclub: cannot read {path} ({_why(exc)}); nothing was imported.", file=sys.stderr)
        return 1
    engine = create_engine(settings.database_url)
    try:
        await upgrade_database(engine)
        factory = create_session_factory(engine)
        if guild_id is None and _guild_in(data) is None:
            async with factory() as session:
                known = await known_guilds(session)
            guild_id = _choose_guild(known, what="to import into", where=_store(settings, path))
            print(f"importing into server {guild_id}, the only one in the store (--guild ID to choose)")
        target, report = await _import_data(factory, data, guild_id)
    except GuildUnclear as exc:
        print(f"paperclub: {exc}; nothing was imported.", file=sys.stderr)
        return 2
    except ProgrammeInvalid as exc:
        _report_problems(exc, path, sys.stderr)
        return 1
    finally:
        await engine.dispose()
    print(f"imported {path}: {report.summary(target)}")
    return 0


async def export_file(settings: Settings, path: Path, guild_id: int | None) -> int:
    """The CLI's export of ``--guild`` (else the store's one server) to ``path``, YAML or JSON, all or nothing:
    0 when written, 1 when the path is unusable, 2 when the server is unclear."""
    try:
        suffix = file_suffix(path)
    except ProgrammeInvalid as exc:
        print(f"paperclub: {exc.problems[0]}", file=sys.stderr)
        return 1
    engine = create_engine(settings.database_url)
    try:
        await upgrade_database(engine)
        factory = create_session_factory(engine)
        async with factory() as session:
            known = await known_guilds(session)
        if guild_id is None:
            guild_id = _choose_guild(known, what="to export", where=_store(settings))
            print(f"exporting server {guild_id}, the only one in the store (--guild ID to choose)")
        elif guild_id not in known:
            others = f" (it has {', '.join(map(str, known[:10]))})" if known else " (it has no server yet)"
            raise GuildUnclear(f"{_store(settings)} has nothing for server {guild_id}{others}")
        text = await export_text(factory, guild_id, suffix=suffix)
    except GuildUnclear as exc:
        print(f"paperclub: {exc}; nothing was written.", file=sys.stderr)
        return 2
    finally:
        await engine.dispose()
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
    """Write via a temporary file in the same folder and rename it: a failed export leaves no half file.
    The file gets the usual permissions (0o666 less the umask), as a plain write would."""
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
    """'No such file or directory', 'Permission denied'... (the OS's reason, without the path again)."""
    return exc.strerror or type(exc).__name__


def _store(settings: Settings, path: Path | None = None) -> str:
    where = describe_database(settings.database_url)
    return f"{path.name} has no guild_id and {where}" if path is not None else where
