"""*Interested* on a session's Discord event counts as Remind me: the member's subscription row is marked
(one row however they asked, so one DM); unmarking ends it unless they also pressed Remind me. At start-up
the marks Discord holds are read again (:func:`catch_up`)."""

from __future__ import annotations

import logging
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.sessions.context import SessionsContext
from bot.services.sessions.info import SCHEDULED
from bot.services.sessions.queries import DEFAULT_REMIND_BEFORE_MINUTES
from db.models import ClubSession, SessionSubscription

log = logging.getLogger("paperclub.sessions")


async def _session_of_event(session: AsyncSession, guild_id: int, event_id: int, now: datetime) -> int | None:
    """The guild's coming session whose Discord event this is (None: not ours, cancelled or started)."""
    found = await session.scalar(
        select(ClubSession.id).where(
            ClubSession.guild_id == guild_id,
            ClubSession.event_id == event_id,
            ClubSession.status == SCHEDULED,
            ClubSession.starts_at > now,
        )
    )
    return int(found) if found is not None else None


async def _set(session: AsyncSession, session_id: int, user_id: int, interested: bool, now: datetime) -> bool:
    """Mark or unmark one member; whether anything changed."""
    row = await session.get(SessionSubscription, (session_id, user_id))
    if interested:
        if row is None:
            session.add(
                SessionSubscription(
                    session_id=session_id,
                    user_id=user_id,
                    before_minutes=DEFAULT_REMIND_BEFORE_MINUTES,
                    asked=False,
                    interested=True,
                    created_at=now,
                )
            )
            return True
        changed = not row.interested
        row.interested = True
        return changed
    if row is None or not row.interested:
        return False
    if row.asked:
        row.interested = False
    else:
        await session.execute(
            delete(SessionSubscription).where(
                SessionSubscription.session_id == session_id, SessionSubscription.user_id == user_id
            )
        )
    return True


async def marked(
    ctx: SessionsContext, guild_id: int, event_id: int, user_id: int, interested: bool, now: datetime
) -> int | None:
    """A member marked (or unmarked) *Interested* on an event: the session it changed, or None. The
    reminders feature and the announcement's count hear it (``session_subscription_changed``)."""
    async with ctx.store() as session, session.begin():
        session_id = await _session_of_event(session, guild_id, event_id, now)
        if session_id is None or not await _set(session, session_id, user_id, interested, now):
            return None
        await session.flush()
        subscribed = interested or bool(await session.get(SessionSubscription, (session_id, user_id)))
    ctx.discord.dispatch("session_subscription_changed", guild_id, session_id, user_id, subscribed)
    return session_id


async def catch_up(ctx: SessionsContext, guild_id: int, now: datetime) -> int:
    """Bring the Interested marks of the guild's coming sessions in line with their events' users (marks made
    or taken back while the bot was away); how many members changed."""
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
                await _set(session, session_id, user_id, interested, now)
        for user_id, interested in moves:
            ctx.discord.dispatch("session_subscription_changed", guild_id, session_id, user_id, interested)
        changed += len(moves)
    if changed:
        log.info("guild %s: %d Interested mark(s) caught up", guild_id, changed)
    return changed
