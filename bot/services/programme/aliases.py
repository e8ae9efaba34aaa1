"""The programme's ``aliases:`` (the names the club resolved to papers): checked, applied, read back."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.errors import BadInput
from bot.papers import PaperRef, parse_paper_ref
from bot.services.papers.resolve import Choice
from bot.services.papers.store import choose, list_aliases, normalize_name
from bot.services.programme.checks import Checker
from db.models import Paper
from db.models.sessions import ALIAS_NAME_MAX

ALIAS_FIELDS = {"name", "paper", "title", "authors", "none", "chosen_by", "chosen_at"}
IMPORTED = "import"  # field_sources' source for what an imported alias set


@dataclass(frozen=True)
class ProgrammeAlias:
    """One checked alias: the name, and the paper (None: none of these) with its title and authors."""

    name: str
    ref: PaperRef | None
    title: str | None
    authors: str | None
    chosen_by: int | None
    chosen_at: datetime | None


def _when(value: Any) -> datetime:
    try:
        moment = datetime.fromisoformat(str(value).strip())
    except ValueError:
        raise BadInput("is not a time like 2026-12-02T12:00:00+00:00") from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _name(text: str) -> str:
    name = " ".join(text.split())
    if len(name) > ALIAS_NAME_MAX:
        raise BadInput(f"is over {ALIAS_NAME_MAX} characters")
    if not normalize_name(name):
        raise BadInput("is only punctuation")
    return name


def check_aliases(checker: Checker, nodes: Any, line: int | None) -> list[ProgrammeAlias]:
    """The file's ``aliases:`` list, each entry checked (problems go to ``checker``, the document's)."""
    out: dict[str, ProgrammeAlias] = {}
    seen: dict[str, int] = {}
    for index, where, node, at in checker.items(nodes, "aliases", line):
        parsed = _one(checker, node, where, at)
        key = normalize_name(parsed.name) if parsed is not None else ""
        if parsed is not None and key in seen:
            checker.add(at, where, f"the same name as aliases[{seen[key]}]")
        elif parsed is not None:
            seen[key], out[key] = index, parsed
    return list(out.values())


def _one(checker: Checker, node: Any, where: str, line: int | None) -> ProgrammeAlias | None:
    node = checker.mapping(node, where, ALIAS_FIELDS, line)
    if node is None:
        return None
    before = len(checker.problems)
    name_text = checker.text(node.get("name"), f"{where}.name", line, required=True) or ""
    name = checker.check(line, f"{where}.name", _name, name_text)
    paper = checker.text(node.get("paper"), f"{where}.paper", line)
    title = checker.text(node.get("title"), f"{where}.title", line)
    authors = checker.text(node.get("authors"), f"{where}.authors", line)
    none = node.get("none", False)
    if not isinstance(none, bool):
        checker.add(line, f"{where}.none", "expected true or false")
    if none and (paper or title):
        checker.add(line, where, "give either the paper it means or none: true, not both")
    if not none and not (paper or title):
        checker.add(line, where, "give the paper it means (“paper” or “title”), or none: true")
    ref = (
        None
        if none or not (paper or title)
        else checker.check(line, f"{where}.paper", parse_paper_ref, paper or title)
    )
    chosen_by = checker.integer(node.get("chosen_by"), f"{where}.chosen_by", line)
    chosen_at = None
    if node.get("chosen_at") is not None:
        chosen_at = checker.check(line, f"{where}.chosen_at", _when, node.get("chosen_at"))
    if len(checker.problems) > before or name is None:
        return None
    return ProgrammeAlias(
        name, ref, " ".join(title.split())[:400] if title else None, authors, chosen_by, chosen_at
    )


async def apply_aliases(
    session: AsyncSession, guild_id: int, aliases: list[ProgrammeAlias], now: datetime
) -> tuple[int, int]:
    """Store the file's aliases (caller's transaction) as picks would: (new, changed)."""
    current = {normalize_name(info.name): info for info, _ in await list_aliases(session, guild_id)}
    new = changed = 0
    for alias in aliases:
        had = current.get(normalize_name(alias.name))
        choice = None
        if alias.ref is not None:
            choice = Choice(
                title=alias.title or "",
                authors=tuple(a.strip() for a in (alias.authors or "").split(",") if a.strip()),
                year=None,
                venue=None,
                arxiv_id=alias.ref.arxiv_id,
                doi=alias.ref.doi,
                s2_id=None,
                url=None,
                sources=(IMPORTED,),
                score=1.0,
            )
        elif had is not None and had.rejected:
            continue
        when = alias.chosen_at or now
        stored = await choose(
            session, guild_id, alias.name, choice, chosen_by=alias.chosen_by, now=when, ref=alias.ref
        )
        if had is not None and had.paper_id == stored.paper_id:
            continue
        new, changed = (new + 1, changed) if had is None else (new, changed + 1)
    return new, changed


def paper_reference(paper: Paper) -> str:
    """How a file names a stored paper: its arXiv id, DOI or link, else its title."""
    return paper.arxiv_id or (f"doi:{paper.doi}" if paper.doi else None) or paper.url or paper.title


async def dump_aliases(session: AsyncSession, guild_id: int) -> list[dict[str, Any]]:
    """The guild's aliases as the file writes them, by name."""
    out: list[dict[str, Any]] = []
    for info, paper in await list_aliases(session, guild_id):
        doc: dict[str, Any] = {"name": info.name}
        if paper is None:
            doc["none"] = True
        else:
            doc["paper"] = paper_reference(paper)
            doc["title"] = paper.title
        if info.chosen_by is not None:
            doc["chosen_by"] = info.chosen_by
        doc["chosen_at"] = info.chosen_at.isoformat()
        out.append(doc)
    return out
