"""The programme file as text: read (with its lines) and imported, or exported from the store."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import selectinload

from bot.ids import MAX_BIGINT
from bot.services.config.guild import get_config
from bot.services.programme import aliases as alias_programme
from bot.services.programme import series as series_programme
from bot.services.programme import website as website_programme
from bot.services.programme.apply import ImportReport, apply_programme
from bot.services.programme.checks import LINE_KEY, LINES_KEY, Problem, ProgrammeInvalid, format_start
from bot.services.programme.document import SESSION_URLS, stored_settings, validate_programme
from bot.services.sessions.info import SCHEDULED
from db.models import ClubSession, Paper
from db.models.reading import ReadingList
from db.models.sessions import AGAINST


class LineList(list[Any]):
    """A YAML sequence that remembers the line of each item."""

    lines: list[int]


class LineLoader(yaml.SafeLoader):
    """Safe YAML with line numbers; every scalar but null and true/false stays text (arXiv ids)."""

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
    """Validate `text`, then write it in one transaction: (guild id, report); ProgrammeInvalid first."""
    return await import_data(session_factory, parse_document(text, suffix), guild_id)


async def import_data(
    session_factory: async_sessionmaker[AsyncSession], data: Any, guild_id: int | None
) -> tuple[int, ImportReport]:
    """Validate loaded ``data``, then write it in one transaction: (guild id, report)."""
    target = guild_id or guild_in(data)
    async with session_factory() as session:
        default_zone = (await get_config(session, target)).timezone if target else "America/Los_Angeles"
    programme = validate_programme(data, guild_id=guild_id, default_timezone=default_zone)
    async with session_factory() as session, session.begin():
        report = await apply_programme(session, programme)
    return programme.guild_id, report


def guild_in(data: Any) -> int | None:
    """The file's own ``guild_id``, when it is one."""
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


PROGRAMME_VERSION = 1


def paper_document(paper: Paper, note: str | None = None) -> str | dict[str, Any]:
    """A paper as the file writes it: its title alone when that is all there is."""
    reference = paper.arxiv_id or (f"doi:{paper.doi}" if paper.doi else None) or paper.url
    if reference is None and paper.authors is None and note is None:
        return paper.title
    out: dict[str, Any] = {}
    if reference is not None:
        out["paper"] = reference
    out["title"] = paper.title
    if paper.authors:
        out["authors"] = paper.authors
    if note:
        out["note"] = note
    return out


async def dump_programme(session: AsyncSession, guild_id: int) -> dict[str, Any]:
    """The guild's settings, every session (newest first) and every list, as a programme document."""
    config = await get_config(session, guild_id)
    settings = {k: v for k, v in stored_settings(config).items() if v is not None}
    settings["suggestion_topics"] = list(config.suggestion_topics)
    series_docs, weeks_of, series_settings = await series_programme.dump_series(session, guild_id)
    settings.update(series_settings)

    sessions = []
    rows = await session.scalars(
        select(ClubSession)
        .where(ClubSession.guild_id == guild_id)
        .options(selectinload(ClubSession.papers))
        .order_by(ClubSession.starts_at.desc(), ClubSession.id.desc())
    )
    for row in rows:
        series, week = weeks_of.get(row.id, (None, None))
        doc: dict[str, Any] = {
            "title": row.title,
            "starts_at": format_start(row.starts_at, row.timezone, date_only=row.date_only),
            "timezone": row.timezone if row.timezone != config.timezone else None,
            "duration_minutes": row.duration_minutes if row.duration_minutes != 60 else None,
            "presenter": row.presenter_name,
            "presenter_id": row.presenter_id,
            "description": row.description,
            **{key: getattr(row, key) for key in SESSION_URLS},
            "where": str(row.channel_id) if row.channel_id is not None else None,
            "status": row.status if row.status != SCHEDULED else None,
            "series": series,
            "week": week,
            "papers": [paper_document(link.paper) for link in row.papers if link.role != AGAINST],
            "against": [paper_document(link.paper) for link in row.papers if link.role == AGAINST] or None,
        }
        sessions.append({key: value for key, value in doc.items() if value is not None})

    list_rows = await session.scalars(
        select(ReadingList)
        .where(ReadingList.guild_id == guild_id)
        .options(selectinload(ReadingList.items))
        .order_by(ReadingList.normalized_name)
    )
    lists = [
        {
            "name": list_row.name,
            **({"description": list_row.description} if list_row.description else {}),
            "papers": [paper_document(item.paper, item.note) for item in list_row.items],
        }
        for list_row in list_rows
    ]
    aliases = await alias_programme.dump_aliases(session, guild_id)
    website = await website_programme.dump_website(session, guild_id)
    return {
        "version": PROGRAMME_VERSION,
        "guild_id": guild_id,
        "settings": settings,
        **({"website": website} if website is not None else {}),
        **({"series": series_docs} if series_docs else {}),
        "sessions": sessions,
        "lists": lists,
        **({"aliases": aliases} if aliases else {}),
    }
