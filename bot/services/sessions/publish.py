"""Publishing a session: saved, then Discord kept in step (best effort); the announcement; the recap."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from bot.errors import BadInput, Conflict, NotAllowed, NotConfigured, NotFound, PaperclubError
from bot.services.config.guild import get_config
from bot.services.papers.metadata import LOOKUP_BUDGET, PendingPaper, fetch_and_store, papers_lacking_metadata
from bot.services.sessions import queries, store
from bot.services.sessions.events import SessionsContext, Zones, sync_event
from bot.services.sessions.info import Published, SessionInfo, session_info
from bot.services.sessions.rules import SessionChanges, SessionDraft
from bot.text import cut, one_line
from db.models import ClubSession

log = logging.getLogger("paperclub.sessions")

Then = Callable[[AsyncSession, SessionInfo], Awaitable[object]]  # the caller's step in the saving transaction
NOT_YOURS = "Only the session's presenter or an organizer can add its recording and notes."


def _some(*warnings: str | None) -> tuple[str, ...]:
    return tuple(w for w in warnings if w)


async def _saved(ctx: SessionsContext, info: SessionInfo, zones: Zones, now: datetime) -> str | None:
    """Tell the other features, and keep the Discord event in step."""
    ctx.discord.dispatch("session_saved", info.guild_id, info.id)
    return await sync_event(ctx, info, zones, now)


async def create(
    ctx: SessionsContext,
    guild_id: int,
    draft: SessionDraft,
    *,
    created_by: int | None,
    zones: Zones,
    now: datetime,
    then: Then | None = None,
) -> Published:
    """Save a checked draft (``then`` in its transaction), fill in arXiv's titles, create its event."""
    async with ctx.store() as session, session.begin():
        created = await store.create_session(session, guild_id, draft, created_by=created_by, now=now)
        if then is not None:
            await then(session, created.info)
        pending = await papers_lacking_metadata(session, [paper.id for paper in created.info.papers])
    info = await _titled(ctx, created.info, pending, now)
    warning = await _saved(ctx, info, zones, now)
    return replace(created, info=info, warnings=_some(warning))


async def change(
    ctx: SessionsContext,
    guild_id: int,
    session_id: int,
    changes: SessionChanges | Callable[[str], SessionChanges],
    *,
    zones: Zones,
    now: datetime,
) -> Published:
    """Apply a checked edit (or one built from the stored zone); when anything changed, move the event."""
    async with ctx.store() as session, session.begin():
        if not isinstance(changes, SessionChanges):
            changes = changes((await store.load_row(session, guild_id, session_id)).timezone)
        edit = await store.edit_session(session, guild_id, session_id, changes, now=now)
        pending = await papers_lacking_metadata(session, [paper.id for paper in edit.info.papers])
    info = await _titled(ctx, edit.info, pending, now)
    warning = await _saved(ctx, info, zones, now) if edit.changed else None
    return replace(edit, info=info, warnings=_some(warning))


async def _titled(
    ctx: SessionsContext, info: SessionInfo, pending: list[PendingPaper], now: datetime
) -> SessionInfo:
    """After the commit: arXiv's titles of its new papers (within LOOKUP_BUDGET seconds), and the session."""
    if not pending or ctx.arxiv.blocked_for > 0:
        return info
    stored = await fetch_and_store(ctx.arxiv, ctx.store, pending, now, budget=LOOKUP_BUDGET)
    if not any(paper.title_changed for paper in stored):
        return info
    async with ctx.store() as session:
        return await store.get_session(session, info.guild_id, info.id)


async def cancel(
    ctx: SessionsContext, guild_id: int, session_id: int, *, reason: str | None, zones: Zones, now: datetime
) -> Published:
    """/organize session cancel: mark it cancelled, then :func:`cancelled`."""
    async with ctx.store() as session, session.begin():
        info = await store.cancel_session(session, guild_id, session_id, reason=reason, now=now)
    return Published(info, warnings=await cancelled(ctx, info, zones, now))


async def saved(ctx: SessionsContext, info: SessionInfo, zones: Zones, now: datetime) -> tuple[str, ...]:
    """A session another feature changed in the store: its event and post kept in step; the warnings."""
    return _some(await _saved(ctx, info, zones, now), await refresh(ctx, info, zones, now))


async def saved_by_id(ctx: SessionsContext, guild_id: int, session_id: int, now: datetime) -> tuple[str, ...]:
    """:func:`saved` for the guild's session by id (nothing: it is gone)."""
    try:
        info, zones = await queries.session_with_zones(ctx.store, guild_id, session_id)
    except PaperclubError:
        return ()
    return await saved(ctx, info, zones, now)


async def cancelled(ctx: SessionsContext, info: SessionInfo, zones: Zones, now: datetime) -> tuple[str, ...]:
    """A session just cancelled in the store: its event cancelled, a notice under its post; the warnings."""
    ctx.discord.dispatch("session_cancelled", info.guild_id, info.id)
    return _some(
        await sync_event(ctx, info, zones, now),
        await refresh(ctx, info, zones, now),
        await ctx.discord.post_cancellation(info, zones, now) if info.is_announced else None,
    )


async def refresh(ctx: SessionsContext, info: SessionInfo, zones: Zones, now: datetime) -> str | None:
    """Edit the posted announcement, if any, to match the store; a warning, or None."""
    return await ctx.discord.refresh_card(info, zones, now) if info.is_announced else None


@dataclass(frozen=True)
class Announced:
    """The session as announced, the post's link, whether an earlier post was edited, the warnings."""

    info: SessionInfo
    jump_url: str
    edited: bool
    warnings: tuple[str, ...]


def thread_name(info: SessionInfo) -> str:
    """The discussion thread's name: the title, on one line, within Discord's 100 characters."""
    return cut(one_line(info.title, 200), 100)


async def announce(
    ctx: SessionsContext,
    guild_id: int,
    session_id: int,
    *,
    channel_id: int | None,
    default_channel_id: int | None,
    zones: Zones,
    now: datetime,
) -> Announced:
    """Post the announcement (the first opens its thread) or edit it; a session without its event gets it."""
    async with ctx.store() as session:
        info = await store.get_session(session, guild_id, session_id)
    if info.is_cancelled:
        raise Conflict(f"Session #{info.id} was cancelled; there is nothing to announce.")
    if info.has_ended(now):
        raise BadInput(
            f"Session #{info.id} is over; use `/organize session recap` to add its recording and notes."
        )
    target = channel_id or info.announcement_channel_id or default_channel_id
    if target is None:
        raise NotConfigured(
            "There is no announcements channel yet: ask an admin to run `/setup announcements`, "
            "or pick a channel with the `channel` option."
        )
    discord = ctx.discord
    posted = None
    if info.is_announced and info.announcement_channel_id == target:
        posted = await discord.edit_card(info, zones, now)  # None: deleted by someone, posted again
    edited = posted is not None
    if posted is None:
        posted = await discord.post_card(info, zones, now, target)
        if info.is_announced and info.announcement_channel_id != target:
            await discord.delete_card(info)  # moved: no copy left behind
    warnings: list[str | None] = []
    thread_id = info.thread_id if edited else None
    if thread_id is None:
        thread_id = await discord.open_thread(target, posted.message_id, thread_name(info))
        if thread_id is None:
            warnings.append("I could not open a discussion thread (Create Public Threads).")
    if thread_id is not None and info.presenter_id is not None:
        warnings.append(await discord.add_to_thread(thread_id, info.presenter_id))
    async with ctx.store() as session, session.begin():
        announced = await store.record_announcement(
            session, guild_id, info.id, channel_id=target, message_id=posted.message_id, thread_id=thread_id
        )
    if info.event_id is None:
        warnings.append(await sync_event(ctx, info, zones, now))
    return Announced(announced, posted.jump_url, edited, _some(*warnings))


async def recap(
    ctx: SessionsContext,
    guild_id: int,
    session_id: int,
    *,
    recording_url: str | None,
    notes_url: str | None,
    wiki_url: str | None,
    zones: Zones,
    now: datetime,
) -> tuple[SessionInfo, tuple[str, ...]]:
    """Save the recording, notes and wiki links, shown on the announcement and in the thread; the warnings."""
    async with ctx.store() as session, session.begin():
        info = await store.recap_session(
            session,
            guild_id,
            session_id,
            now=now,
            recording_url=recording_url,
            notes_url=notes_url,
            wiki_url=wiki_url,
        )
    if recording_url is not None:  # the members who asked to be reminded get one DM that it is up
        ctx.discord.dispatch("session_recorded", guild_id, session_id)
    return info, _some(
        await refresh(ctx, info, zones, now),
        await ctx.discord.post_recap(info) if info.thread_id is not None else None,
    )


async def refresh_enriched(
    ctx: SessionsContext, guild_id: int, paper_ids: Sequence[int], now: datetime
) -> None:
    """Edit the guild's announcements still to come that show any of these papers."""
    async with ctx.store() as session:
        zones = (await get_config(session, guild_id)).display_zones
        infos = await queries.announced_with_papers(session, guild_id, paper_ids, now)
    for info in infos:
        if warning := await refresh(ctx, info, zones, now):
            log.info("session %s after enrichment: %s", info.id, warning)


async def form_session(
    ctx: SessionsContext, session_id: int, user_id: int, *, guild_id: int | None, organizer: bool
) -> SessionInfo:
    """The session whose recording form its presenter or an organizer (not in a DM) opens, or NotAllowed."""
    async with ctx.store() as session:
        found = await session.get(ClubSession, session_id)
        if found is None or (guild_id is not None and found.guild_id != guild_id):
            raise NotFound(f"There is no session #{session_id} here.")
        if found.presenter_id != user_id and not (organizer and guild_id is not None):
            raise NotAllowed(NOT_YOURS)
        return session_info(await store.load_row(session, found.guild_id, session_id))


async def submit_form(
    ctx: SessionsContext,
    session_id: int,
    user_id: int,
    *,
    guild_id: int | None,
    organizer: bool,
    recording_url: str | None,
    notes_url: str | None,
    wiki_url: str | None,
    now: datetime,
) -> tuple[SessionInfo, tuple[str, ...]]:
    """The form submitted: checked as :func:`form_session` again (a submit can be forged), then the recap."""
    info = await form_session(ctx, session_id, user_id, guild_id=guild_id, organizer=organizer)
    async with ctx.store() as session:
        zones = (await get_config(session, info.guild_id)).display_zones
    links = {"recording_url": recording_url, "notes_url": notes_url, "wiki_url": wiki_url}
    return await recap(ctx, info.guild_id, session_id, **links, zones=zones, now=now)
