"""Writing a validated programme into the store, and reading one back out.

:func:`apply_programme` runs inside the caller's one transaction. It is an upsert that only
touches what differs, so importing the same file twice changes nothing: sessions are matched
on (title, start), papers on their canonical key, lists on their name ignoring case. What the
file names it decides (a session's papers, a list's papers and notes); what it leaves out stays.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from bot.papers import normalize_title
from bot.services.config.guild import get_config, update_config
from bot.services.papers.aliases import aliased_paper
from bot.services.papers.store import get_or_create_paper
from bot.services.programme import aliases as alias_programme
from bot.services.programme import series as series_programme
from bot.services.programme import website as website_programme
from bot.services.programme.document import SESSION_URLS, Programme, ProgrammePaper
from bot.services.programme.times import format_start, same_day
from bot.services.reading.lists import normalize_list_name
from bot.services.sessions.info import SCHEDULED
from db.base import utcnow
from db.models import ClubSession, Paper, SessionPaper
from db.models.reading import ReadingList, ReadingListItem
from db.models.sessions import AGAINST, MAIN

PROGRAMME_VERSION = 1


@dataclass
class ImportReport:
    """What an import created, changed and left as it was."""

    sessions_new: int = 0
    sessions_changed: int = 0
    sessions_same: int = 0
    papers_new: int = 0
    papers_changed: int = 0
    lists_new: int = 0
    lists_changed: int = 0
    lists_same: int = 0
    settings_changed: bool = False
    series_new: int = 0
    series_changed: int = 0
    series_same: int = 0
    aliases_new: int = 0
    aliases_changed: int = 0
    website_changed: bool = False

    @property
    def changed_anything(self) -> bool:
        """Whether the import changed anything."""
        return bool(
            self.sessions_new
            or self.sessions_changed
            or self.papers_new
            or self.papers_changed
            or self.lists_new
            or self.lists_changed
            or self.settings_changed
            or self.series_new
            or self.series_changed
            or self.aliases_new
            or self.aliases_changed
            or self.website_changed
        )

    def summary(self, guild_id: int) -> str:
        """The import's outcome as one line for the guild."""
        if not self.changed_anything:
            return f"guild {guild_id}: nothing to change; the store already matches the file."
        return (
            f"guild {guild_id}: sessions {self.sessions_new} new, {self.sessions_changed} changed, "
            f"{self.sessions_same} unchanged; papers {self.papers_new} new, {self.papers_changed} changed; "
            f"lists {self.lists_new} new, {self.lists_changed} changed, {self.lists_same} unchanged; "
            f"settings {'changed' if self.settings_changed else 'unchanged'}; "
            f"website {'changed' if self.website_changed else 'unchanged'}"
            + (
                f"; series {self.series_new} new, {self.series_changed} changed, {self.series_same} unchanged."
                if self.series_new or self.series_changed or self.series_same
                else "."
            )
            + (
                f" Aliases {self.aliases_new} new, {self.aliases_changed} changed."
                if self.aliases_new or self.aliases_changed
                else ""
            )
        )


class _Papers:
    """Papers by key for one import: created or updated once, whichever row mentions them first."""

    def __init__(self, session: AsyncSession, guild_id: int, report: ImportReport) -> None:
        self.session, self.guild_id, self.report = session, guild_id, report
        self.done: dict[str, Paper] = {}

    async def get(self, given: ProgrammePaper) -> Paper:
        if given.ref.key in self.done:
            return self.done[given.ref.key]
        existing = await self.session.scalar(
            select(Paper).where(Paper.guild_id == self.guild_id, Paper.key == given.ref.key)
        )
        aliased = None if existing else await aliased_paper(self.session, self.guild_id, given.ref)
        if aliased is not None:  # a name the guild resolved: the paper it means, its own title kept
            self.done[given.ref.key] = aliased
            return aliased
        row = existing or await get_or_create_paper(self.session, self.guild_id, given.ref, title=given.title)
        if existing is None:
            self.report.papers_new += 1
        changed = False
        if given.title and row.title != given.title:
            row.title, row.normalized_title = given.title, normalize_title(given.title)[:400]
            changed = True
        if given.authors is not None and row.authors != given.authors:
            row.authors = given.authors
            changed = True
        if changed and existing is not None:
            self.report.papers_changed += 1
        self.done[given.ref.key] = row
        return row


def _set(row: Any, values: dict[str, Any]) -> bool:
    """Set attributes that differ; True when any did."""
    changed = False
    for name, value in values.items():
        if getattr(row, name) != value:
            setattr(row, name, value)
            changed = True
    return changed


async def _apply_session_papers(row: ClubSession, papers: list[Paper], against: set[int]) -> bool:
    wanted = [(p.id, AGAINST if p.id in against else MAIN) for p in papers]
    if [(link.paper_id, link.role) for link in row.papers] == wanted:
        return False
    by_id = {p.id: p for p in papers}
    existing = {link.paper_id: link for link in row.papers}
    for paper_id, old_link in existing.items():
        if paper_id not in by_id:
            row.papers.remove(old_link)
    for position, (paper_id, role) in enumerate(wanted):
        link = existing.get(paper_id)
        if link is None:
            row.papers.append(
                SessionPaper(paper_id=paper_id, paper=by_id[paper_id], position=position, role=role)
            )
        else:
            link.position, link.role = position, role
    row.papers.sort(key=lambda link: link.position)
    return True


async def apply_programme(session: AsyncSession, programme: Programme) -> ImportReport:
    """Write a validated programme (caller's transaction)."""
    guild_id = programme.guild_id
    report = ImportReport()
    papers = _Papers(session, guild_id, report)

    now = utcnow()
    series_settings = {k: v for k, v in programme.settings.items() if k in series_programme.SETTINGS}
    if await series_programme.apply_settings(session, guild_id, series_settings, now):  # type: ignore[arg-type]
        report.settings_changed = True
    guild_settings = {k: v for k, v in programme.settings.items() if k not in series_programme.SETTINGS}
    (
        report.series_new,
        report.series_changed,
        report.series_same,
        series_rows,
    ) = await series_programme.apply_series(session, guild_id, programme.series, now)
    if guild_settings:
        config = await get_config(session, guild_id)
        current = {
            "timezone": config.timezone,
            "display_zones": config.display_zones_text,
            "reminder_offsets": config.reminder_offsets_text,
            "suggestion_topics": ";".join(config.suggestion_topics),
            "announcements_channel_id": config.announcements_channel_id,
            "suggestions_channel_id": config.suggestions_channel_id,
            "organizer_role_id": config.organizer_role_id,
            "ping_role_id": config.ping_role_id,
        }
        changes = {k: v for k, v in guild_settings.items() if current.get(k) != v}
        if changes:
            await update_config(session, guild_id, **changes)
            report.settings_changed = True

    report.aliases_new, report.aliases_changed = await alias_programme.apply_aliases(
        session, guild_id, programme.aliases, now
    )
    report.website_changed = await website_programme.apply_website(session, guild_id, programme.website, now)
    default_zone = (await get_config(session, guild_id)).timezone
    for given in programme.sessions:
        row = await session.scalar(
            select(ClubSession)
            .where(
                ClubSession.guild_id == guild_id,
                ClubSession.title == given.title,
                ClubSession.starts_at == given.starts_at,
            )
            .options(selectinload(ClubSession.papers))
        )
        if row is None and given.fields.get("date_only"):
            row = await _same_day(session, guild_id, given.title, given.starts_at)
        created = row is None
        if row is None:
            row = ClubSession(
                guild_id=guild_id,
                title=given.title,
                starts_at=given.starts_at,
                timezone=default_zone,
                duration_minutes=60,
                status=SCHEDULED,
                sequence=0,
                papers=[],
            )
            session.add(row)
        changed = _set(row, {"starts_at": given.starts_at, **given.fields})
        if given.papers is not None:
            rows = [await papers.get(p) for p in given.papers]
            await session.flush()
            against = {r.id for r, p in zip(rows, given.papers, strict=True) if p.ref.key in given.against}
            changed = await _apply_session_papers(row, rows, against) or changed
        if given.week is not None:
            await session.flush()
            key, day = given.week
            changed = (
                await series_programme.link_week(session, guild_id, row, series_rows[key], day, now)
                or changed
            )
        if created:
            report.sessions_new += 1
        elif changed:
            report.sessions_changed += 1
        else:
            report.sessions_same += 1
        await session.flush()

    for given_list in programme.lists:
        list_row = await session.scalar(
            select(ReadingList)
            .where(
                ReadingList.guild_id == guild_id,
                ReadingList.normalized_name == normalize_list_name(given_list.name),
            )
            .options(selectinload(ReadingList.items))
        )
        created = list_row is None
        if list_row is None:
            list_row = ReadingList(
                guild_id=guild_id, name=given_list.name, normalized_name=normalize_list_name(given_list.name)
            )
            list_row.items = []
            session.add(list_row)
            await session.flush()
        values: dict[str, Any] = {"name": given_list.name}
        if given_list.has_description:
            values["description"] = given_list.description
        changed = _set(list_row, values)
        wanted = [(await papers.get(p), p.note) for p in given_list.papers]
        await session.flush()
        changed = _apply_list_items(list_row, wanted) or changed
        if created:
            report.lists_new += 1
        elif changed:
            report.lists_changed += 1
        else:
            report.lists_same += 1
        await session.flush()
    return report


async def _same_day(session: AsyncSession, guild_id: int, title: str, start: datetime) -> ClubSession | None:
    """The session of that title stored at another time of the day a session dated only names (imported
    before with a time the club never gave): it becomes the one dated only, not a second session."""
    first, last = same_day(start)
    found = await session.scalars(
        select(ClubSession)
        .where(
            ClubSession.guild_id == guild_id,
            ClubSession.title == title,
            ClubSession.starts_at > first,
            ClubSession.starts_at < last,
        )
        .options(selectinload(ClubSession.papers))
        .limit(2)
    )
    rows = list(found)
    return rows[0] if len(rows) == 1 else None


def _apply_list_items(row: ReadingList, wanted: list[tuple[Paper, str | None]]) -> bool:
    existing = {item.paper_id: item for item in row.items}
    wanted_ids = {paper.id for paper, _ in wanted}
    changed = False
    for paper_id, old_item in existing.items():
        if paper_id not in wanted_ids:
            row.items.remove(old_item)
            changed = True
    for position, (paper, note) in enumerate(wanted):
        item = existing.get(paper.id)
        if item is None:
            row.items.append(ReadingListItem(paper_id=paper.id, paper=paper, position=position, note=note))
            changed = True
        else:
            changed = _set(item, {"position": position, "note": note}) or changed
    return changed


# ---------------------------------------------------------------- export


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
    settings: dict[str, Any] = {
        "timezone": config.timezone,
        "display_zones": config.display_zones_text,
        "reminder_offsets": config.reminder_offsets_text,
        "suggestion_topics": list(config.suggestion_topics),
    }
    for name in ("announcements_channel_id", "suggestions_channel_id", "organizer_role_id", "ping_role_id"):
        if (value := getattr(config, name)) is not None:
            settings[name] = value
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
        doc: dict[str, Any] = {
            "title": row.title,
            "starts_at": format_start(row.starts_at, row.timezone, date_only=row.date_only),
        }
        if row.timezone != config.timezone:
            doc["timezone"] = row.timezone
        if row.duration_minutes != 60:
            doc["duration_minutes"] = row.duration_minutes
        optional = {
            "presenter": row.presenter_name,
            "presenter_id": row.presenter_id,
            "description": row.description,
            **{key: getattr(row, key) for key in SESSION_URLS},
        }
        doc.update({k: v for k, v in optional.items() if v is not None})
        if row.channel_id is not None:
            doc["where"] = str(row.channel_id)
        if row.status != SCHEDULED:
            doc["status"] = row.status
        if row.id in weeks_of:
            doc["series"], doc["week"] = weeks_of[row.id]
        doc["papers"] = [paper_document(link.paper) for link in row.papers if link.role != AGAINST]
        if any(link.role == AGAINST for link in row.papers):
            doc["against"] = [paper_document(link.paper) for link in row.papers if link.role == AGAINST]
        sessions.append(doc)

    lists = []
    list_rows = await session.scalars(
        select(ReadingList)
        .where(ReadingList.guild_id == guild_id)
        .options(selectinload(ReadingList.items))
        .order_by(ReadingList.normalized_name)
    )
    for list_row in list_rows:
        list_doc: dict[str, Any] = {"name": list_row.name}
        if list_row.description:
            list_doc["description"] = list_row.description
        list_doc["papers"] = [paper_document(item.paper, item.note) for item in list_row.items]
        lists.append(list_doc)
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
