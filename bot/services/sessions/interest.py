"""A member reminded of a session: *Remind me* pressed, or *Interested* marked on its Discord event (one
subscription row either way, so one DM; the row goes when neither holds)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.errors import Conflict
from bot.services.sessions.context import SessionsContext
from bot.services.sessions.info import CANCELLED, SCHEDULED, SessionInfo
from bot.services.sessions.store import get_session, load_row
from db.models import ClubSession, SessionSubscription

log = logging.getLogger("paperclub.sessions")
DEFAULT_REMIND_BEFORE_MINUTES = 60


@dataclass(frozen=True)
class Reminded:
    """A member's reminder of a session: asked for (Remind me, /remind me), Interested on its event, both."""

    asked: bool
    interested: bool

    @property
    def subscribed(self) -> bool:
        """Whether a DM comes before the session."""
        return self.asked or self.interested


async def _mark(
    session: AsyncSession, session_id: int, user_id: int, flag: str, on: bool, now: datetime
) -> bool:
    """Set or clear the member's ``asked`` or ``interested`` flag (the row goes with the last); whether it
    changed."""
    row = await session.get(SessionSubscription, (session_id, user_id))
    if row is None:
        if on:
            session.add(
                SessionSubscription(
                    session_id=session_id,
                    user_id=user_id,
                    before_minutes=DEFAULT_REMIND_BEFORE_MINUTES,
                    created_at=now,
                    asked=flag == "asked",
                    interested=flag == "interested",
                )
            )
        return on
    if getattr(row, flag) == on:
        return False
    setattr(row, flag, on)
    if not (row.asked or row.interested):
        await session.delete(row)
    return True


async def toggle_subscription(
    session: AsyncSession, guild_id: int, session_id: int, user_id: int, *, now: datetime
) -> Reminded:
    """Remind me pressed: the member's own reminder on, or off if it was on (a mark of Interested stays)."""
    row = await load_row(session, guild_id, session_id)
    existing = await session.get(SessionSubscription, (session_id, user_id))
    asked = existing is None or not existing.asked
    interested = existing is not None and existing.interested
    if asked and row.status == CANCELLED:
        raise Conflict("That session was cancelled, so there is nothing to remind you of.")
    if asked and row.starts_at <= now:
        raise Conflict("That session has already started.")
    await _mark(session, session_id, user_id, "asked", asked, now)
    await session.flush()
    return Reminded(asked=asked, interested=interested)


async def remind_me(
    ctx: SessionsContext, guild_id: int, session_id: int, user_id: int, now: datetime
) -> tuple[Reminded, SessionInfo]:
    """Remind me pressed: :func:`toggle_subscription`, and the session; the reminders feature hears it."""
    async with ctx.store() as session, session.begin():
        reminded = await toggle_subscription(session, guild_id, session_id, user_id, now=now)
        info = await get_session(session, guild_id, session_id)
    ctx.discord.dispatch("session_subscription_changed", guild_id, session_id, user_id, reminded.subscribed)
    return reminded, info


async def is_subscribed(session: AsyncSession, session_id: int, user_id: int) -> bool:
    """Whether the user asked to be reminded of the session."""
    return await session.get(SessionSubscription, (session_id, user_id)) is not None


async def marked(
    ctx: SessionsContext, guild_id: int, event_id: int, user_id: int, interested: bool, now: datetime
) -> int | None:
    """A member marked (or unmarked) *Interested* on an event: the session it changed, or None."""
    async with ctx.store() as session, session.begin():
        session_id = await session.scalar(
            select(ClubSession.id).where(
                ClubSession.guild_id == guild_id,
                ClubSession.event_id == event_id,
                ClubSession.status == SCHEDULED,
                ClubSession.starts_at > now,
            )
        )
        if session_id is None or not await _mark(session, session_id, user_id, "interested", interested, now):
            return None
        await session.flush()
        subscribed = interested or bool(await session.get(SessionSubscription, (session_id, user_id)))
    ctx.discord.dispatch("session_subscription_changed", guild_id, session_id, user_id, subscribed)
    return session_id


async def catch_up(ctx: SessionsContext, guild_id: int, now: datetime) -> int:
    """Bring the Interested marks of the guild's coming sessions in line with their events' users; how many
    changed."""
    async with ctx.store() as session:
        coming = (
            await session.execute(
                select(ClubSession.id, ClubSession.event_id).where(
                    ClubSession.guild_id == guild_id,
                    ClubSession.status == SCHEDULED,
                    ClubSession.starts_at > now,
                    ClubSession.event_id.is_not(None),
                )
            )
        ).all()
    changed = 0
    for session_id, event_id in coming:
        users = await ctx.discord.event_users(guild_id, int(event_id))
        if users is None:
            continue  # the event is gone, or Discord refused: the marks stay as they were
        async with ctx.store() as session, session.begin():
            marked_now = set(
                (
                    await session.execute(
                        select(SessionSubscription.user_id).where(
                            SessionSubscription.session_id == session_id, SessionSubscription.interested
                        )
                    )
                ).scalars()
            )
            moves = [(user, True) for user in users - marked_now] + [
                (user, False) for user in marked_now - users
            ]
            for user_id, interested in moves:
                await _mark(session, session_id, user_id, "interested", interested, now)
        for user_id, interested in moves:
            ctx.discord.dispatch("session_subscription_changed", guild_id, session_id, user_id, interested)
        changed += len(moves)
    if changed:
        log.info("guild %s: %d Interested mark(s) caught up", guild_id, changed)
    return changed
