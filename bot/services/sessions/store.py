"""Sessions in the store: create, edit, cancel, recap and look up, each in the caller's transaction."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from bot import timeutil
from bot.errors import BadInput, Conflict, NotFound
from bot.papers import PaperRef, normalize_title
from bot.services.papers.store import papers_for_refs
from bot.services.sessions.info import CANCELLED, SCHEDULED, Overlap, Published, SessionInfo, session_info
from bot.services.sessions.rules import (
    MAX_CANCEL_REASON,
    MAX_DURATION,
    SessionChanges,
    SessionDraft,
    Unset,
    clean_url,
)
from db.models import ClubSession, SessionPaper
from db.models.sessions import AGAINST, MAIN


async def load_row(session: AsyncSession, guild_id: int, session_id: int) -> ClubSession:
    """The guild's session row with its papers and series week, or NotFound."""
    row = (
        await session.execute(
            select(ClubSession)
            .where(ClubSession.id == session_id)
            .options(selectinload(ClubSession.papers), selectinload(ClubSession.series_week))
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
    session: AsyncSession,
    row: ClubSession,
    guild_id: int,
    refs: Sequence[PaperRef],
    now: datetime,
    against: Sequence[str] = (),
) -> None:
    """The session's papers in order, those whose keys are in ``against`` read against the others."""
    papers = await papers_for_refs(session, guild_id, refs, now=now)
    row.papers.clear()
    await session.flush()
    firsts: dict[str, PaperRef] = {}
    for ref in refs:
        firsts.setdefault(ref.key, ref)  # as papers_for_refs keeps them
    unique = list(firsts.values())
    placed: set[int] = set()
    for ref, paper in zip(unique, papers, strict=True):
        if paper.id in placed:
            continue  # two names of one paper
        placed.add(paper.id)
        role = AGAINST if ref.key in against else MAIN
        row.papers.append(SessionPaper(paper_id=paper.id, paper=paper, position=len(placed) - 1, role=role))


async def _overlaps(session: AsyncSession, row: ClubSession) -> tuple[Overlap, ...]:
    """The guild's other scheduled sessions running at the same time as ``row`` (soonest first)."""
    ends_at = row.starts_at + timedelta(minutes=row.duration_minutes)
    earliest = row.starts_at - timedelta(minutes=MAX_DURATION)  # no session starts earlier and still runs
    candidates = await session.execute(
        select(ClubSession.id, ClubSession.title, ClubSession.starts_at, ClubSession.duration_minutes)
        .where(
            ClubSession.guild_id == row.guild_id,
            ClubSession.id != row.id,
            ClubSession.status == SCHEDULED,
            ClubSession.starts_at < ends_at,
            ClubSession.starts_at > earliest,
        )
        .order_by(ClubSession.starts_at, ClubSession.id)
    )
    return tuple(
        Overlap(other_id, title, starts_at)
        for other_id, title, starts_at, minutes in candidates
        if starts_at + timedelta(minutes=minutes) > row.starts_at
    )


async def create_session(
    session: AsyncSession, guild_id: int, draft: SessionDraft, *, created_by: int | None, now: datetime
) -> Published:
    """Store a new session from its checked draft; Conflict when one has that title at that time."""
    await _ensure_no_duplicate(session, guild_id, draft.title, draft.starts_at)
    row = ClubSession(
        guild_id=guild_id,
        status=SCHEDULED,
        sequence=0,
        created_by=created_by,
        created_at=now,
        updated_at=now,
        **draft.columns(),
    )
    row.papers = []
    session.add(row)
    await _flush_unique(session)
    await _set_papers(session, row, guild_id, draft.papers, now, draft.against)
    await session.flush()
    overlaps = await _overlaps(session, row)
    info = await get_session(session, guild_id, row.id)
    return Published(info, overlaps, draft.start_note, draft.reading)


async def edit_session(
    session: AsyncSession, guild_id: int, session_id: int, changes: SessionChanges, *, now: datetime
) -> Published:
    """Apply a checked edit: only what differs is written, the sequence raised."""
    row = await _load_scheduled(session, guild_id, session_id, "was cancelled; add a new session instead.")
    updates = changes.columns()
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
    if "starts_at" in updates and row.date_only:  # a time given: no longer dated only
        row.date_only = False
        changed.add("starts_at")
    if not isinstance(changes.papers, Unset) and [
        (ref.key, AGAINST if ref.key in changes.against else MAIN) for ref in changes.papers
    ] != [(link.paper.key, link.role) for link in row.papers]:
        await _set_papers(session, row, guild_id, changes.papers, now, changes.against)
        changed.add("papers")
    if changed:
        row.sequence += 1
        row.updated_at = now
    await _flush_unique(session)
    overlaps = await _overlaps(session, row) if changed & {"starts_at", "duration_minutes"} else ()
    info = await get_session(session, guild_id, row.id)
    return Published(info, overlaps, changes.start_note, changes.reading, changed=frozenset(changed))


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


RECORD = frozenset({"status", "date_only", "recording_url", "notes_url", "wiki_url"})  # beyond a draft


async def keep_record(
    session: AsyncSession, guild_id: int, session_id: int, values: dict[str, object], *, now: datetime
) -> bool:
    """Set a kept record's status, date-only flag and recap links (no time rules); True when any differed."""
    row = await session.get(ClubSession, session_id)
    if row is None or row.guild_id != guild_id:
        raise NotFound(f"There is no session #{session_id} in this server.")
    changed = {name for name in RECORD & values.keys() if getattr(row, name) != values[name]}
    for name in changed:
        setattr(row, name, values[name])
    if changed:
        row.sequence += 1
        row.updated_at = now
        await session.flush()
    return bool(changed)


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
