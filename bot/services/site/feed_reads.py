"""The feeds' store reads: sessions as plain values straight from column rows (calendar.ics, the
personal feeds, the archive), and the Atom feed's newest changes."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import ColumnElement, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from bot.services.papers.store import PaperInfo
from bot.services.sessions.info import CANCELLED, SessionInfo, session_info
from bot.services.site.config import SiteConfig
from bot.services.site.views import Display, FeedEntry, SiteView, info_view, site_view
from db.models import ClubSession, Paper, SessionPaper, SessionSubscription


def _past(guild_id: int, now: datetime) -> list[ColumnElement[bool]]:
    return [ClubSession.guild_id == guild_id, ClubSession.starts_at <= now, ClubSession.status != CANCELLED]


async def past_sessions(
    session: AsyncSession, guild_id: int, now: datetime, *, limit: int, offset: int = 0
) -> list[SessionInfo]:
    """A page of the guild's past sessions (not cancelled), newest first."""
    infos, _ = await _feed_infos(
        session,
        select(*FEED_COLUMNS)
        .where(*_past(guild_id, now))
        .order_by(ClubSession.starts_at.desc(), ClubSession.id.desc())
        .limit(limit)
        .offset(offset),
    )
    return infos


FEED_COLUMNS = (
    ClubSession.id,
    ClubSession.guild_id,
    ClubSession.title,
    ClubSession.description,
    ClubSession.starts_at,
    ClubSession.duration_minutes,
    ClubSession.timezone,
    ClubSession.presenter_id,
    ClubSession.presenter_name,
    ClubSession.signup_url,
    ClubSession.recording_url,
    ClubSession.notes_url,
    ClubSession.wiki_url,
    ClubSession.status,
    ClubSession.announcement_channel_id,
    ClubSession.announcement_message_id,
    ClubSession.thread_id,
    ClubSession.event_id,
    ClubSession.sequence,
    ClubSession.cancel_reason,
    ClubSession.created_by,
    ClubSession.updated_at,
    ClubSession.date_only,
)


async def _feed_infos(session: AsyncSession, query: Any) -> tuple[list[SessionInfo], datetime | None]:
    """Sessions as plain values straight from column rows (a feed lists hundreds: no ORM objects), with
    their papers in order; and the latest change among them."""
    conn = await session.connection()  # Core rows: no ORM loading for what is plain columns
    rows = (await conn.execute(query)).all()
    papers: dict[int, list[PaperInfo]] = {row[0]: [] for row in rows}
    if papers:
        links = await conn.execute(
            select(
                SessionPaper.session_id,
                Paper.id,
                Paper.key,
                Paper.kind,
                Paper.title,
                Paper.url,
                Paper.arxiv_id,
                Paper.doi,
                Paper.authors,
                Paper.wiki_url,
            )
            .join(Paper, Paper.id == SessionPaper.paper_id)
            # the same sessions, chosen again in the store: no bound parameter per session
            .where(SessionPaper.session_id.in_(select(query.subquery().c.id)))
            .order_by(SessionPaper.session_id, SessionPaper.position)
        )
        for sid, *paper in links.all():
            papers[sid].append(PaperInfo(*paper))
    # Rows unpacked as tuples, in FEED_COLUMNS' order (a column added there fails here, loudly):
    # reading 22 columns by name (``row.title``) from each row was a visible share of calendar.ics.
    infos = []
    latest: datetime | None = None
    for (
        sid,
        guild_id,
        title,
        description,
        starts_at,
        duration_minutes,
        timezone,
        presenter_id,
        presenter_name,
        signup_url,
        recording_url,
        notes_url,
        wiki_url,
        status,
        announcement_channel_id,
        announcement_message_id,
        thread_id,
        event_id,
        sequence,
        cancel_reason,
        created_by,
        updated_at,
        date_only,
    ) in rows:
        infos.append(
            SessionInfo(
                id=sid,
                guild_id=guild_id,
                title=title,
                description=description,
                starts_at=starts_at,
                ends_at=starts_at + timedelta(minutes=duration_minutes),
                duration_minutes=duration_minutes,
                timezone=timezone,
                presenter_id=presenter_id,
                presenter_name=presenter_name,
                papers=papers[sid],
                signup_url=signup_url,
                recording_url=recording_url,
                notes_url=notes_url,
                wiki_url=wiki_url,
                status=status,
                announcement_channel_id=announcement_channel_id,
                announcement_message_id=announcement_message_id,
                thread_id=thread_id,
                event_id=event_id,
                sequence=sequence,
                cancel_reason=cancel_reason,
                created_by=created_by,
                date_only=date_only,
            )
        )
        if latest is None or updated_at > latest:
            latest = updated_at
    return infos, latest


RECENT_DAYS: Final = 90  # how long calendar.ics keeps a session that took place


async def calendar_sessions(
    session: AsyncSession, guild_id: int, now: datetime, *, recent_days: int = RECENT_DAYS, limit: int = 500
) -> tuple[list[SessionInfo], datetime | None]:
    """The feed's sessions: those of the last ``recent_days`` and every upcoming one (cancelled ones
    too, so calendars drop them), oldest first, at most ``limit``; and the latest change among them."""
    since = now - timedelta(days=recent_days)
    return await _feed_infos(
        session,
        select(*FEED_COLUMNS)
        .where(ClubSession.guild_id == guild_id, ClubSession.starts_at >= since)
        .order_by(ClubSession.starts_at, ClubSession.id)
        .limit(limit),
    )


async def personal_sessions(
    session: AsyncSession,
    guild_id: int,
    user_id: int,
    now: datetime,
    *,
    recent_days: int = 90,
    limit: int = 500,
) -> tuple[list[SessionInfo], datetime | None]:
    """The sessions this member asked to be reminded of (Remind me, /remind me), as :func:`calendar_sessions`."""
    since = now - timedelta(days=recent_days)
    return await _feed_infos(
        session,
        select(*FEED_COLUMNS)
        .join(SessionSubscription, SessionSubscription.session_id == ClubSession.id)
        .where(
            ClubSession.guild_id == guild_id,
            SessionSubscription.user_id == user_id,
            ClubSession.starts_at >= since,
        )
        .order_by(ClubSession.starts_at, ClubSession.id)
        .limit(limit),
    )


async def atom_entries(
    session: AsyncSession, site: SiteConfig, now: datetime, limit: int = 30, display: Display | None = None
) -> tuple[SiteView, list[FeedEntry]]:
    """The newest changes first: new sessions, and sessions whose recording or notes came in."""
    view, shown = await site_view(session, site, now, display)
    rows = list(
        await session.scalars(
            select(ClubSession)
            .where(ClubSession.guild_id == site.guild_id)
            .options(selectinload(ClubSession.papers))
            .order_by(ClubSession.updated_at.desc(), ClubSession.id.desc())
            .limit(limit)
        )
    )
    entries = []
    for row in rows:
        info = session_info(row)
        entries.append(
            FeedEntry(
                info_view(info, shown, now),
                row.updated_at,
                row.created_at,
                bool(info.recording_url or info.notes_url or info.wiki_url),
            )
        )
    return view, entries


async def all_session_ids(session: AsyncSession, guild_id: int) -> list[int]:
    """Every session id of the guild, in id order."""
    return list(
        await session.scalars(
            select(ClubSession.id).where(ClubSession.guild_id == guild_id).order_by(ClubSession.id)
        )
    )
