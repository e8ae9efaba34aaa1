"""The programme document (YAML/JSON): its schema and validation, every problem with its line. No store."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from bot.papers import PaperRef, parse_paper_ref
from bot.services.config.guild import GuildConfig, normalize_change
from bot.services.programme import aliases as alias_programme
from bot.services.programme import series as series_programme
from bot.services.programme import website as website_programme
from bot.services.programme.checks import Checker, ProgrammeInvalid, read_start, read_where
from bot.services.reading.lists import (
    MAX_ITEMS_PER_LIST,
    MAX_LIST_DESCRIPTION,
    clean_list_name,
    clean_note,
    normalize_list_name,
)
from bot.services.sessions import rules
from bot.services.sessions.info import CANCELLED, SCHEDULED

TEXT_SETTINGS = ("timezone", "display_zones", "reminder_offsets", "suggestion_topics")
ID_SETTINGS = ("announcements_channel_id", "suggestions_channel_id", "organizer_role_id", "ping_role_id")
SESSION_URLS = {
    "signup_url": "The sign-up link",
    "recording_url": "The recording link",
    "notes_url": "The notes link",
    "wiki_url": "The session page link",
}
#: The file's texts: the column each goes to, its cleaner, and the label a link's problem names.
CLEANED: dict[str, tuple[str, Any, *tuple[str, ...]]] = {
    "presenter": ("presenter_name", rules.clean_presenter_name),
    "description": ("description", rules.clean_description),
    **{key: (key, rules.clean_url, label) for key, label in SESSION_URLS.items()},
}
#: A session's keys; ``where``: a voice or stage channel's id or a link; ``series`` + ``week``: a series' week.
SESSION_FIELDS = {"title", "starts_at", "timezone", "duration_minutes", "presenter_id", "papers", "against"}
SESSION_FIELDS |= {"where", "status", "series", "week", *CLEANED}
STATUSES = (SCHEDULED, CANCELLED)
LIST_FIELDS = {"name", "description", "papers"}
PAPER_FIELDS = {"paper", "title", "authors", "note"}
TOP_FIELDS = {"guild_id", "settings", "website", "sessions", "lists", "series", "aliases", "version"}


def stored_settings(config: GuildConfig) -> dict[str, object]:
    """The guild's settings as the file's ``settings:`` names them (topics joined by ``;``)."""
    return {
        "timezone": config.timezone,
        "display_zones": config.display_zones_text,
        "reminder_offsets": config.reminder_offsets_text,
        "suggestion_topics": ";".join(config.suggestion_topics),
        **{name: getattr(config, name) for name in ID_SETTINGS},
    }


@dataclass(frozen=True)
class ProgrammePaper:
    """A paper as a programme file lists it."""

    ref: PaperRef
    title: str | None = None
    authors: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class ProgrammeSession:
    """A session as a programme file gives it."""

    title: str
    starts_at: datetime  # aware UTC
    fields: dict[str, Any]  # the optional columns the file gives (None clears), and ``date_only``
    papers: tuple[ProgrammePaper, ...] | None  # the main papers then ``against``'s; None: as stored
    line: int | None = None
    week: tuple[str, date] | None = None  # (the series' name key, the week's date) for a week of a series
    against: frozenset[str] = frozenset()  # the keys of the papers (in ``papers``) read against the others


@dataclass(frozen=True)
class ProgrammeList:
    """A reading list as a programme file gives it."""

    name: str
    description: str | None
    has_description: bool
    papers: tuple[ProgrammePaper, ...]


@dataclass(frozen=True)
class Programme:
    """A whole programme file, checked: a guild's settings, sessions, lists and series."""

    guild_id: int
    settings: dict[str, object] = field(default_factory=dict)
    sessions: list[ProgrammeSession] = field(default_factory=list)
    lists: list[ProgrammeList] = field(default_factory=list)
    series: list[series_programme.ProgrammeSeries] = field(default_factory=list)
    aliases: list[alias_programme.ProgrammeAlias] = field(default_factory=list)
    website: website_programme.ProgrammeWebsite | None = None


def _paper(
    checker: Checker, node: Any, where: str, line: int | None, *, in_list: bool
) -> ProgrammePaper | None:
    if isinstance(node, dict):
        line = checker.line_of(node) or line
        allowed = PAPER_FIELDS if in_list else PAPER_FIELDS - {"note"}
        checker.mapping(node, where, allowed, line)  # a mapping: its unknown keys recorded
        ref_text = checker.text(node.get("paper"), f"{where}.paper", line)
        title = checker.text(node.get("title"), f"{where}.title", line)
        authors = checker.text(node.get("authors"), f"{where}.authors", line)
        note = checker.check(line, f"{where}.note", clean_note, checker.text(node.get("note"), where, line))
        if ref_text is None and title is None:
            checker.add(line, where, "give the paper (arXiv id, DOI, link or title) as “paper” or “title”")
            return None
    else:
        ref_text = checker.text(node, where, line, required=True)
        title = authors = note = None
        if ref_text is None:
            return None
    ref = checker.check(line, where, parse_paper_ref, ref_text or title or "")
    if ref is None:
        return None
    if title is not None and len(" ".join(title.split())) > 400:
        checker.add(line, f"{where}.title", "is over 400 characters")
        return None
    return ProgrammePaper(ref, " ".join(title.split()) if title else None, authors, note)


def _papers(
    checker: Checker, node: Any, where: str, line: int | None, *, in_list: bool
) -> list[ProgrammePaper]:
    out: dict[str, ProgrammePaper] = {}
    for _, here, item, at in checker.items(node, where, line):
        paper = _paper(checker, item, here, at, in_list=in_list)
        if paper is not None and paper.ref.key in out:
            checker.add(at, here, f"“{paper.ref.label}” is listed twice")
        elif paper is not None:
            out[paper.ref.key] = paper
    return list(out.values())


def _settings(checker: Checker, node: Any, line: int | None) -> dict[str, object]:
    series_settings = series_programme.SETTINGS
    names = (*series_settings, *TEXT_SETTINGS, *ID_SETTINGS)
    node = checker.mapping(node, "settings", set(names), line) if node is not None else None
    out: dict[str, object] = {}
    for name in [name for name in names if node is not None and name in node]:
        where, at, value = f"settings.{name}", checker.line_of(node, name), node[name]
        if name in series_settings:
            number = checker.integer(value, where, at, low=0)
            if number is not None and checker.check(at, where, series_settings[name], number) is not None:
                out[name] = number
        elif name in ID_SETTINGS:
            if (number := checker.integer(value, where, at)) is not None:
                out[name] = number
        else:
            if name == "suggestion_topics" and isinstance(value, list):
                value = "; ".join(str(v) for v in value)
            text = checker.text(value, where, at, required=True)
            clean = checker.check(at, where, normalize_change, name, text) if text is not None else None
            if clean is not None:
                out[name] = clean
    return out


def _session(checker: Checker, node: Any, where: str, line: int | None, zone: str) -> ProgrammeSession | None:
    node = checker.mapping(node, where, SESSION_FIELDS, line)
    if node is None:
        return None

    def at(key: str) -> int | None:
        return checker.line_of(node, key) or line

    def text(key: str, *, required: bool = False) -> str | None:
        return checker.text(node.get(key), f"{where}.{key}", at(key), required=required)

    def check(key: str, func: Any, *args: Any) -> Any:
        return checker.check(at(key), f"{where}.{key}", func, *args)

    def integer(key: str) -> int | None:
        return checker.integer(node.get(key), f"{where}.{key}", at(key))

    before = len(checker.problems)
    title = check("title", rules.clean_title, str(node.get("title") or ""))
    if title:
        where = f"{where} (“{title[:60]}”)"
    fields: dict[str, Any] = {}
    zone_text = text("timezone")
    session_zone = check("timezone", rules.check_timezone, zone_text or zone)
    if zone_text is not None and session_zone:
        fields["timezone"] = session_zone
    starts_text, starts_at = text("starts_at", required=True), None
    start = (
        check("starts_at", read_start, starts_text, ZoneInfo(session_zone))
        if starts_text and session_zone
        else None
    )
    if start is not None:
        starts_at, fields["date_only"] = start
    if "duration_minutes" in node and (minutes := integer("duration_minutes")) is not None:
        fields["duration_minutes"] = check("duration_minutes", rules.check_duration, minutes)
    if "presenter_id" in node:
        fields["presenter_id"] = integer("presenter_id")
    for key, (column, clean, *label) in CLEANED.items():
        if key in node:
            fields[column] = check(key, clean, text(key), *label)
    if "where" in node and (place := check("where", read_where, node["where"])) is not None:
        channel_id, link = place
        fields["channel_id"], fields["channel_name"] = channel_id, None
        if link is not None and "signup_url" in node:
            checker.add(at("where"), f"{where}.where", "give the link once: in `where` or in `signup_url`")
        elif link is not None:
            fields["signup_url"] = link
    if "status" in node and (status := text("status", required=True)) is not None:
        if status.strip().lower() in STATUSES:
            fields["status"] = status.strip().lower()
        else:
            message = f"“{status[:40]}” is not a status; use one of: {', '.join(STATUSES)}"
            checker.add(at("status"), f"{where}.status", message)
    papers = None
    against: list[ProgrammePaper] = []
    if "papers" in node:
        papers = _papers(checker, node["papers"], f"{where}.papers", at("papers"), in_list=False)
        if "against" in node:
            against = _against(checker, node["against"], f"{where}.against", at("against"), papers)
        keys = [p.ref.key for p in [*papers, *against]]
        checker.check(at("papers"), f"{where}.papers", rules.check_paper_count, keys)
    elif "against" in node:
        checker.add(
            at("against"), f"{where}.against", "needs the session's `papers` (the main ones) beside it"
        )
    if len(checker.problems) > before or title is None or starts_at is None:
        return None
    listed = tuple([*papers, *against]) if papers is not None else None
    return ProgrammeSession(
        title, starts_at, fields, listed, line, against=frozenset(p.ref.key for p in against)
    )


def _against(
    checker: Checker, node: Any, where: str, line: int | None, main: list[ProgrammePaper]
) -> list[ProgrammePaper]:
    """A session's ``against`` list: papers read against its main ones, none of them also a main one."""
    found = _papers(checker, node, where, line, in_list=False)
    keys = {p.ref.key for p in main}
    out = []
    for index, paper in enumerate(found):
        if paper.ref.key in keys:
            checker.add(line, f"{where}[{index + 1}]", f"“{paper.ref.label}” is in `papers` too")
        else:
            out.append(paper)
    if found and not main:
        checker.add(line, where, "reads against no paper: give the main ones in `papers`")
    return out


def _list(checker: Checker, node: Any, where: str, line: int | None) -> ProgrammeList | None:
    node = checker.mapping(node, where, LIST_FIELDS, line)
    if node is None:
        return None
    before = len(checker.problems)
    name_line = checker.line_of(node, "name") or line
    name = checker.check(name_line, f"{where}.name", clean_list_name, str(node.get("name") or ""))
    if name:
        where = f"{where} (“{name}”)"
    description_line = checker.line_of(node, "description")
    description = checker.text(node.get("description"), f"{where}.description", description_line)
    if description is not None and len(description) > MAX_LIST_DESCRIPTION:
        checker.add(description_line, where, f"description is over {MAX_LIST_DESCRIPTION} characters")
    papers = _papers(
        checker, node.get("papers"), f"{where}.papers", checker.line_of(node, "papers") or line, in_list=True
    )
    if len(papers) > MAX_ITEMS_PER_LIST:
        checker.add(line, where, f"a list holds at most {MAX_ITEMS_PER_LIST} papers")
    if len(checker.problems) > before or name is None:
        return None
    return ProgrammeList(
        name, description.strip() if description else None, "description" in node, tuple(papers)
    )


def validate_programme(data: Any, *, guild_id: int | None, default_timezone: str) -> Programme:
    """Check the whole document; ProgrammeInvalid lists every problem. `guild_id` overrides the file's."""
    checker = Checker()
    root = checker.mapping(data, "file", TOP_FIELDS, 1)
    if root is None:
        raise ProgrammeInvalid(checker.problems)
    file_guild = checker.integer(root.get("guild_id"), "guild_id", checker.line_of(root, "guild_id"))
    target = guild_id or file_guild
    if target is None:
        checker.add(None, "guild_id", "no guild: put guild_id in the file or pass --guild ID")
    settings = _settings(checker, root.get("settings"), checker.line_of(root, "settings"))
    zone = str(settings.get("timezone") or default_timezone)
    website = website_programme.check_website(checker, root.get("website"), checker.line_of(root, "website"))
    series = series_programme.check_series(checker, root.get("series"), checker.line_of(root, "series"), zone)
    series_by_key = {item.key: item for item in series}
    aliases = alias_programme.check_aliases(checker, root.get("aliases"), checker.line_of(root, "aliases"))
    seen_weeks: dict[tuple[str, date], int] = {}
    sessions: list[ProgrammeSession] = []
    seen_sessions: dict[tuple[str, datetime], int] = {}
    for index, where, node, line in checker.items(
        root.get("sessions"), "sessions", checker.line_of(root, "sessions")
    ):
        parsed = _session(checker, node, where, line, zone)
        if parsed is None:
            continue
        key = (" ".join(parsed.title.split()).casefold(), parsed.starts_at)
        if key in seen_sessions:
            checker.add(line, where, f"same title and time as sessions[{seen_sessions[key]}]")
            continue
        seen_sessions[key] = index
        if isinstance(node, dict) and (node.get("series") is not None or node.get("week") is not None):
            week_text = checker.text(node.get("week"), f"{where}.week", line)
            week = series_programme.check_week(
                checker, where, line, series_by_key, str(node.get("series")), week_text
            )
            if week is not None and week in seen_weeks:
                checker.add(line, f"{where}.week", f"the same week as sessions[{seen_weeks[week]}]")
                continue
            if week is not None:
                seen_weeks[week] = index
                parsed = replace(parsed, week=week)
        sessions.append(parsed)

    lists: list[ProgrammeList] = []
    seen_lists: dict[str, int] = {}
    for index, where, node, line in checker.items(root.get("lists"), "lists", checker.line_of(root, "lists")):
        raw_name = node.get("name") if isinstance(node, dict) else None
        list_key = normalize_list_name(raw_name) if isinstance(raw_name, str) else None
        if list_key and list_key in seen_lists:
            checker.add(line, where, f"the same name as lists[{seen_lists[list_key]}]")
            continue
        if list_key:
            seen_lists[list_key] = index
        if (parsed_list := _list(checker, node, where, line)) is not None:
            lists.append(parsed_list)

    if checker.problems or target is None:
        checker.problems.sort(key=lambda p: p.line or 0)
        raise ProgrammeInvalid(checker.problems)
    return Programme(target, settings, sessions, lists, series, aliases, website)
