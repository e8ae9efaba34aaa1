"""The site's feeds and their reads: ``calendar.ics`` (and personal ones), the archive, the Atom feed."""

from __future__ import annotations

from dataclasses import fields
from datetime import UTC, datetime, timedelta
from typing import Any, Final
from xml.etree import ElementTree

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from bot.services.calendars.ics import calendar_bytes, series_calendars
from bot.services.papers.store import PaperInfo
from bot.services.sessions.info import CANCELLED, SessionInfo, session_info
from bot.services.site.config import LiveSite, SiteConfig
from bot.services.site.sentences import plain
from bot.services.site.views import SessionView, info_view, iso, site_view
from db.models import ClubSession, Paper, SessionPaper, SessionSubscription

#: DTSTAMP of an empty feed (nothing changed yet).
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
ATOM_NS = "http://www.w3.org/2005/Atom"
TAG_AUTHORITY = "paperclub.invalid,2026"
ATOM_ENTRIES: Final = 30
RECENT_DAYS: Final = 90  # how long calendar.ics keeps a session that took place
#: The SessionInfo fields a feed reads: its session columns but the voice channel's (updated_at follows them).
_FIELDS: Final = [
    f.name
    for f in fields(SessionInfo)
    if f.name in ClubSession.__table__.c and f.name not in ("channel_id", "channel_name", "hour_stage")
]
FEED_COLUMNS: Final = (*(getattr(ClubSession, name) for name in _FIELDS), ClubSession.updated_at)
_PAPER_COLUMNS: Final = tuple(
    getattr(Paper, n) for n in ["id", "key", "kind", "title", "url", "arxiv_id", "doi", "authors", "wiki_url"]
)


async def _feed_infos(session: AsyncSession, query: Any) -> tuple[list[SessionInfo], datetime | None]:
    """Sessions as plain values from column rows (no ORM objects), and their latest change."""
    conn = await session.connection()
    rows = (await conn.execute(query)).all()
    papers: dict[int, list[PaperInfo]] = {row[0]: [] for row in rows}
    if papers:
        links = await conn.execute(
            select(SessionPaper.session_id, *_PAPER_COLUMNS)
            .join(Paper, Paper.id == SessionPaper.paper_id)
            # the same sessions, chosen again in the store: no bound parameter per session
            .where(SessionPaper.session_id.in_(select(query.subquery().c.id)))
            .order_by(SessionPaper.session_id, SessionPaper.position)
        )
        for sid, *paper in links.all():
            papers[sid].append(PaperInfo(*paper))
    infos = []
    for *values, _ in rows:
        found = dict(zip(_FIELDS, values, strict=True))
        ends_at = found["starts_at"] + timedelta(minutes=found["duration_minutes"])
        infos.append(SessionInfo(**found, ends_at=ends_at, papers=papers[found["id"]]))
    return infos, max((row[-1] for row in rows), default=None)


async def past_sessions(
    session: AsyncSession, guild_id: int, now: datetime, *, limit: int, offset: int = 0
) -> list[SessionInfo]:
    """A page of the guild's past sessions (not cancelled), newest first."""
    infos, _ = await _feed_infos(
        session,
        select(*FEED_COLUMNS)
        .where(
            ClubSession.guild_id == guild_id, ClubSession.starts_at <= now, ClubSession.status != CANCELLED
        )
        .order_by(ClubSession.starts_at.desc(), ClubSession.id.desc())
        .limit(limit)
        .offset(offset),
    )
    return infos


async def ics_feed(
    session: AsyncSession,
    site: SiteConfig,
    now: datetime,
    base_url: str | None,
    *,
    user_id: int | None = None,
) -> bytes:
    """The sessions of the last RECENT_DAYS and to come (cancelled too), with the series (``user_id``: that
    member's sessions), stamped with the latest change; with ``base_url``, sessions link their paper's page."""
    query = select(*FEED_COLUMNS).where(
        ClubSession.guild_id == site.guild_id, ClubSession.starts_at >= now - timedelta(days=RECENT_DAYS)
    )
    if user_id is not None:
        query = query.join(SessionSubscription, SessionSubscription.session_id == ClubSession.id).where(
            SessionSubscription.user_id == user_id
        )
    infos, changed = await _feed_infos(
        session, query.order_by(ClubSession.starts_at, ClubSession.id).limit(500)
    )
    series = await series_calendars(session, site.guild_id, now) if user_id is None else ()
    name = site.title if user_id is None else f"{site.title}: my sessions"
    home = base_url.rstrip("/") if base_url and base_url.startswith(("https://", "http://")) else None
    pages = (lambda paper_id: f"{home}/papers/{paper_id}/") if home else None
    return calendar_bytes(infos, now=changed or EPOCH, name=name[:100], series=series, paper_page=pages)


def _entry_text(s: SessionView) -> str:
    lines = [("Cancelled: " if s.cancelled else "") + s.when]
    if said := plain(s.line()):
        lines.append(said)
    lines += [f"{label}: {url}" for label, url in s.links]
    return "\n".join(lines)


async def atom_feed(session: AsyncSession, live: LiveSite, now: datetime) -> bytes:
    """An Atom 1.0 feed (RFC 4287) of new sessions and recaps, newest change first, its links relative."""
    site, shown = site_view(live, now)
    rows = list(
        await session.scalars(
            select(ClubSession)
            .where(ClubSession.guild_id == live.site.guild_id)
            .options(selectinload(ClubSession.papers))
            .order_by(ClubSession.updated_at.desc(), ClubSession.id.desc())
            .limit(ATOM_ENTRIES)
        )
    )
    ElementTree.register_namespace("", ATOM_NS)

    def sub(
        parent: ElementTree.Element, tag: str, text: str | None = None, **attrs: str
    ) -> ElementTree.Element:
        element = ElementTree.SubElement(parent, f"{{{ATOM_NS}}}{tag}", attrs)
        element.text = text
        return element

    feed_id = f"tag:{TAG_AUTHORITY}:{site.slug}"  # stable whatever host serves the feed
    feed = ElementTree.Element(f"{{{ATOM_NS}}}feed")
    sub(feed, "title", f"{site.title}: sessions and recaps")
    sub(feed, "id", feed_id)
    sub(feed, "link", rel="alternate", type="text/html", href="./")
    sub(feed, "link", rel="self", type="application/atom+xml", href="feed.atom")
    sub(feed, "updated", iso(max((row.updated_at for row in rows), default=EPOCH)))
    sub(sub(feed, "author"), "name", site.title)
    sub(feed, "generator", "paperclub")
    for row in rows:
        info = session_info(row)
        s = info_view(info, shown, now)
        recap = info.recording_url or info.notes_url or info.wiki_url  # the recording or notes are in
        item = sub(feed, "entry")
        prefix = "Cancelled: " if s.cancelled else ("Recap: " if recap else "")
        sub(item, "title", prefix + s.title)
        sub(item, "id", f"{feed_id}/sessions/{s.id}")
        sub(item, "link", rel="alternate", type="text/html", href=f"sessions/{s.id}/")
        sub(item, "published", iso(row.created_at))
        sub(item, "updated", iso(row.updated_at))
        sub(item, "summary", _entry_text(s), type="text")
    return ElementTree.tostring(feed, encoding="utf-8", xml_declaration=True)
