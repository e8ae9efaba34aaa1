"""`paperclub import FILE` and `paperclub export FILE --guild ID`: the club's programme as YAML or JSON.

Import reads the whole file, validates every row (reporting each problem with its line), and only
then writes everything in one transaction. The schema is described in
bot/services/reading/document.py; examples/club.yaml is a complete example.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any, TextIO

import yaml
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.ids import MAX_BIGINT
from bot.services.reading.document import LINE_KEY, LINES_KEY, Problem, ProgrammeInvalid, validate_programme
from bot.services.reading.programme import ImportReport, apply_programme, dump_programme
from bot.services.setup.config import get_config
from bot.settings import Settings
from db.engine import create_engine, create_session_factory
from db.migrate import upgrade_database

MAX_FILE_BYTES = 5_000_000


class LineList(list[Any]):
    """A YAML sequence that remembers the line of each item."""

    lines: list[int]


class LineLoader(yaml.SafeLoader):
    """Safe YAML that records line numbers, and keeps ids and dates as text.

    Only ``null`` and ``true``/``false`` are resolved; every other plain scalar stays a string, so
    an arXiv id such as 2401.12340 is not read as the number 2401.1234 and "On" stays a title.
    """

    yaml_implicit_resolvers: dict[Any, Any] = {}

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        mapping = super().construct_mapping(node, deep=True)
        mapping[LINE_KEY] = node.start_mark.line + 1
        mapping[LINES_KEY] = {
            str(self.construct_object(key, deep=True)): value.start_mark.line + 1 for key, value in node.value
        }
        return mapping

    def construct_line_list(self, node: yaml.SequenceNode) -> LineList:
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
    suffix = path.suffix.lower()
    if suffix not in (".yaml", ".yml", ".json"):
        raise ProgrammeInvalid([Problem(None, str(path), "use a .yaml, .yml or .json file")])
    return ".json" if suffix == ".json" else ".yaml"


async def import_text(
    session_factory: async_sessionmaker[AsyncSession], text: str, *, suffix: str, guild_id: int | None
) -> tuple[int, ImportReport]:
    """Validate `text`, then write it in one transaction. Returns (guild id, report); ProgrammeInvalid
    (with every problem) before anything is written."""
    data = parse_document(text, suffix)
    target = guild_id or _guild_in(data)
    async with session_factory() as session:
        default_zone = (await get_config(session, target)).timezone if target else "America/Los_Angeles"
    programme = validate_programme(data, guild_id=guild_id, default_timezone=default_zone)
    async with session_factory() as session, session.begin():
        report = await apply_programme(session, programme)
    return programme.guild_id, report


def _guild_in(data: Any) -> int | None:
    value = data.get("guild_id") if isinstance(data, dict) else None
    text = str(value).strip() if isinstance(value, int | str) and not isinstance(value, bool) else ""
    if not (text.isascii() and text.isdigit() and len(text) <= 19):  # '²'.isdigit() is true
        return None
    return int(text) if 0 < int(text) <= MAX_BIGINT else None


async def export_text(
    session_factory: async_sessionmaker[AsyncSession], guild_id: int, *, suffix: str
) -> str:
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
    """The CLI's import: 0 when imported (or nothing to change), 1 when the file has problems."""
    try:
        suffix = file_suffix(path)
        size = (await asyncio.to_thread(path.stat)).st_size
        if size > MAX_FILE_BYTES:
            raise ProgrammeInvalid([Problem(None, "file", f"over {MAX_FILE_BYTES // 1_000_000} MB")])
        text = await asyncio.to_thread(path.read_text, encoding="utf-8")
    except ProgrammeInvalid as exc:
        _report_problems(exc, path, sys.stderr)
        return 1
    except UnicodeDecodeError:
        print(f"paperclub: {path} is not UTF-8 text; nothing was imported.", file=sys.stderr)
        return 1
    engine = create_engine(settings.database_url)
    try:
        await upgrade_database(engine)
        target, report = await import_text(
            create_session_factory(engine), text, suffix=suffix, guild_id=guild_id
        )
    except ProgrammeInvalid as exc:
        _report_problems(exc, path, sys.stderr)
        return 1
    finally:
        await engine.dispose()
    print(f"imported {path}: {report.summary(target)}")
    return 0


async def export_file(settings: Settings, path: Path, guild_id: int) -> int:
    """The CLI's export: writes the guild's programme to `path` (YAML or JSON by extension)."""
    try:
        suffix = file_suffix(path)
    except ProgrammeInvalid as exc:
        print(f"paperclub: {exc.problems[0]}", file=sys.stderr)
        return 1
    engine = create_engine(settings.database_url)
    try:
        await upgrade_database(engine)
        text = await export_text(create_session_factory(engine), guild_id, suffix=suffix)
    finally:
        await engine.dispose()
    await asyncio.to_thread(path.write_text, text, encoding="utf-8")
    print(f"exported guild {guild_id} to {path}")
    return 0
