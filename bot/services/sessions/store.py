"""Reading sessions: create, edit, cancel, recap and look up. Plain values in, :class:`SessionInfo` out.

Every function validates all of its input before it writes anything, and writes inside the caller's
transaction (``async with bot.session_factory() as s, s.begin():``). Listing, autocomplete and the
Remind me subscriptions live in :mod:`bot.services.sessions.queries`; the plain values
(:class:`SessionInfo`, :class:`SessionEdit`) in :mod:`bot.services.sessions.info`, the field rules in
:mod:`bot.services.sessions.rules`.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from bot import timeutil
from bot.errors import BadInput, Conflict, NotFound
from bot.papers import normalize_title, parse_paper_ref
from bot.services.papers.store import papers_from_text
from bot.services.sessions.info import CANCELLED, SCHEDULED, SessionEdit, SessionInfo, session_info
from bot.services.sessions.rules import (
    MAX_CANCEL_REASON,
    check_duration,
    check_paper_count,
    check_start,
    check_timezone,
    clean_description,
    clean_presenter_name,
    clean_title,
    clean_url,
)
from db.models import ClubSession, SessionPaper


class _Unset:
    """Marks an edit argument that was not given (None means 'clear this field')."""

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = _Unset()


# ---------------------------------------------------------------- store


async def load_row(session: AsyncSession, guild_id: int, session_id: int) -> ClubSession:
    row = (
        await session.execute(
            select(ClubSession)
            .where(ClubSession.id == session_id)
            .options(selectinload(ClubSession.papers))
            .execution_options(populate_existing=True)
        )
    ).scalar_one_or_none()
    if row is None or row.guild_id != guild_id:
        raise NotFound(f"There is no session #{session_id} in this server.")
    return row


async def _load_scheduled(
    session: AsyncSession, guild_id: int, session_id: int, if_cancelled: str
) -> ClubSession:
    """The session's row; Conflict "Session #<id> <if_cancelled>" when it was cancelled."""
    row = await load_row(session, guild_id, session_id)
    if row.status == CANCELLED:
        raise Conflict(f"Session #{session_id} {if_cancelled}")
    return row


async def _save(session: AsyncSession, row: ClubSession, now: datetime) -> SessionInfo:
    """Stamp the change and flush; the session as it now stands."""
    row.updated_at = now
    await session.flush()
    return session_info(row)


async def get_session(session: AsyncSession, guild_id: int, session_id: int) -> SessionInfo:
    """The guild's session, or NotFound (also for another guild's id)."""
    return session_info(await load_row(session, guild_id, session_id))


async def _ensure_no_duplicate(
    session: AsyncSession, guild_id: int, title: str, starts_at: datetime, exclude_id: int | None = None
) -> None:
    rows = (
        await session.execute(
            select(ClubSession.id, ClubSession.title).where(
                ClubSession.guild_id == guild_id, ClubSession.starts_at == starts_at
            )
        )
    ).all()
    wanted = normalize_title(title)
    for other_id, other_title in rows:
        if other_id != exclude_id and normalize_title(other_title) == wanted:
            raise Conflict(f"Session #{other_id} already has that title at that time.")


async def _flush_unique(session: AsyncSession) -> None:
    """Flush; a racing twin (same title and start, saved meanwhile) becomes a Conflict."""
    try:
        await session.flush()
    except IntegrityError as error:
        text = str(error.orig)
        if "uq_sessions_guild_title_start" not in text and "sessions.guild_id, sessions.title" not in text:
            raise
        raise Conflict("Another session with that title at that time was just saved.") from None


async def _set_papers(
    session: AsyncSession, row: ClubSession, guild_id: int, texts: list[str], now: datetime
) -> None:
    papers = await papers_from_text(session, guild_id, texts, now=now)
    row.papers.clear()
    await session.flush()
    for position, paper in enumerate(papers):
        row.papers.append(SessionPaper(paper_id=paper.id, paper=paper, position=position))


async def create_session(
    session: AsyncSession,
    guild_id: int,
    *,
    title: str,
    starts_at_utc: datetime,
    timezone: str,
    created_by: int | None,
    presenter_id: int | None = None,
    presenter_name: str | None = None,
    papers: list[str] | None = None,
    signup_url: str | None = None,
    duration_minutes: int = 60,
    description: str | None = None,
    now: datetime,
) -> SessionInfo:
    """Store a new session. ``papers`` are texts (titles, arXiv ids/links, DOIs, URLs)."""
    clean = {
        "title": clean_title(title),
        "description": clean_description(description),
        "presenter_name": clean_presenter_name(presenter_name),
        "signup_url": clean_url(signup_url, "The sign-up link"),
        "duration_minutes": check_duration(duration_minutes),
        "timezone": check_timezone(timezone),
    }
    starts_at = check_start(starts_at_utc, now)
    texts = check_paper_count(list(papers or []))
    for text in texts:  # validate before any write
        parse_paper_ref(text)
    await _ensure_no_duplicate(session, guild_id, str(clean["title"]), starts_at)

    row = ClubSession(
        guild_id=guild_id,
        starts_at=starts_at,
        presenter_id=presenter_id,
        status=SCHEDULED,
        sequence=0,
        created_by=created_by,
        created_at=now,
        updated_at=now,
        **clean,
    )
    row.papers = []
    session.add(row)
    await _flush_unique(session)
    await _set_papers(session, row, guild_id, texts, now)
    await session.flush()
    return await get_session(session, guild_id, row.id)


async def edit_session(
    session: AsyncSession,
    guild_id: int,
    session_id: int,
    *,
    now: datetime,
    title: str | _Unset = UNSET,
    starts_at_utc: datetime | _Unset = UNSET,
    timezone: str | _Unset = UNSET,
    presenter_id: int | None | _Unset = UNSET,
    presenter_name: str | None | _Unset = UNSET,
    papers: list[str] | _Unset = UNSET,
    signup_url: str | None | _Unset = UNSET,
    duration_minutes: int | _Unset = UNSET,
    description: str | None | _Unset = UNSET,
) -> SessionEdit:
    """Change the given fields (None clears an optional one). Raises the sequence when anything
    changed, so calendar apps replace their copy."""
    row = await _load_scheduled(session, guild_id, session_id, "was cancelled; add a new session instead.")
    updates: dict[str, Any] = {}
    if not isinstance(title, _Unset):
        updates["title"] = clean_title(title)
    if not isinstance(starts_at_utc, _Unset):
        updates["starts_at"] = check_start(starts_at_utc, now)
    if not isinstance(timezone, _Unset):
        updates["timezone"] = check_timezone(timezone)
    if not isinstance(presenter_id, _Unset):
        updates["presenter_id"] = presenter_id
    if not isinstance(presenter_name, _Unset):
        updates["presenter_name"] = clean_presenter_name(presenter_name)
    if not isinstance(signup_url, _Unset):
        updates["signup_url"] = clean_url(signup_url, "The sign-up link")
    if not isinstance(duration_minutes, _Unset):
        updates["duration_minutes"] = check_duration(duration_minutes)
    if not isinstance(description, _Unset):
        updates["description"] = clean_description(description)
    new_papers: list[str] | None = None
    if not isinstance(papers, _Unset):
        refs = [parse_paper_ref(text) for text in check_paper_count(papers)]
        if [ref.key for ref in refs] != [link.paper.key for link in row.papers]:
            new_papers = list(papers)
    changed = {name for name, value in updates.items() if getattr(row, name) != value}
    if "title" in changed or "starts_at" in changed:
        await _ensure_no_duplicate(
            session,
            guild_id,
            updates.get("title", row.title),
            updates.get("starts_at", row.starts_at),
            exclude_id=row.id,
        )
    for name in changed:
        setattr(row, name, updates[name])
    if new_papers is not None:
        await _set_papers(session, row, guild_id, new_papers, now)
        changed.add("papers")
    if changed:
        row.sequence += 1
        row.updated_at = now
    await _flush_unique(session)
    return SessionEdit(info=await get_session(session, guild_id, row.id), changed=frozenset(changed))


async def cancel_session(
    session: AsyncSession, guild_id: int, session_id: int, *, reason: str | None, now: datetime
) -> SessionInfo:
    """Mark the session cancelled (it stays in the store, the calendar shows STATUS:CANCELLED)."""
    cleaned = " ".join(reason.split()) if reason else None
    if cleaned and len(cleaned) > MAX_CANCEL_REASON:
        raise BadInput(f"Keep the reason within {MAX_CANCEL_REASON} characters.")
    row = await _load_scheduled(session, guild_id, session_id, "is already cancelled.")
    if row.starts_at + timedelta(minutes=row.duration_minutes) <= now:
        raise Conflict(f"Session #{session_id} is already over; there is nothing to cancel.")
    row.status = CANCELLED
    row.cancel_reason = cleaned or None
    row.sequence += 1
    return await _save(session, row, now)


async def recap_session(
    session: AsyncSession,
    guild_id: int,
    session_id: int,
    *,
    now: datetime,
    recording_url: str | None = None,
    notes_url: str | None = None,
    wiki_url: str | None = None,
) -> SessionInfo:
    """Attach the recording, notes and wiki links once the session has started."""
    links = {
        "recording_url": clean_url(recording_url, "The recording link"),
        "notes_url": clean_url(notes_url, "The notes link"),
        "wiki_url": clean_url(wiki_url, "The wiki link"),
    }
    given = {name: value for name, value in links.items() if value is not None}
    if not given:
        raise BadInput("Give at least one of recording_url, notes_url or wiki_url.")
    row = await _load_scheduled(session, guild_id, session_id, "was cancelled; there is nothing to recap.")
    if row.starts_at > now:
        raise BadInput(
            f"Session #{session_id} has not happened yet ({timeutil.discord_timestamp(row.starts_at, 'R')}); "
            "recap it afterwards."
        )
    for name, value in given.items():
        setattr(row, name, value)
    return await _save(session, row, now)


async def record_announcement(
    session: AsyncSession,
    guild_id: int,
    session_id: int,
    *,
    channel_id: int,
    message_id: int,
    thread_id: int | None,
) -> SessionInfo:
    """Remember where the session was announced (so announcing again edits that message)."""
    row = await load_row(session, guild_id, session_id)
    row.announcement_channel_id = channel_id
    row.announcement_message_id = message_id
    row.thread_id = thread_id
    await session.flush()
    return session_info(row)


async def record_event(session: AsyncSession, guild_id: int, session_id: int, event_id: int | None) -> None:
    """Remember (or forget, with None) the session's Discord scheduled event."""
    row = await load_row(session, guild_id, session_id)
    row.event_id = event_id
    await session.flush()
