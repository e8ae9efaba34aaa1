"""A guild's programme read out of the store as a document (the file `paperclub export` writes)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from bot.services.config.guild import get_config
from bot.services.programme import aliases as alias_programme
from bot.services.programme import series as series_programme
from bot.services.programme import website as website_programme
from bot.services.programme.document import SESSION_URLS
from bot.services.programme.times import format_start
from bot.services.sessions.info import SCHEDULED
from db.models import ClubSession, Paper
from db.models.reading import ReadingList
from db.models.sessions import AGAINST

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
