"""What members ask of sessions: a page of /session list, one session with the server's zones (/session show,
the edit form), and Remind me."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.services.config.guild import get_config
from bot.services.sessions import queries, store
from bot.services.sessions.context import SessionsContext, Zones
from bot.services.sessions.info import SCHEDULED, SessionInfo
from db.models import ClubSession

Store = async_sessionmaker[AsyncSession]


@dataclass(frozen=True)
class ListPage:
    """One page of the upcoming sessions (in progress first, then soonest first)."""

    sessions: list[SessionInfo]
    zones: Zones
    total: int
    page: int
    pages: int


async def upcoming_page(factory: Store, guild_id: int, now: datetime, page: int, per_page: int) -> ListPage:
    """The page (clamped to the pages there are) of the sessions not yet over."""
    async with factory() as session:
        zones = (await get_config(session, guild_id)).display_zones
        total = await queries.count_upcoming(session, guild_id, now)
        pages = max(1, -(-total // per_page))
        page = min(max(page, 0), pages - 1)
        infos = await queries.list_upcoming(session, guild_id, now, limit=per_page, offset=page * per_page)
    return ListPage(infos, zones, total, page, pages)


async def channels_in_use(factory: Store, guild_id: int, now: datetime) -> list[int]:
    """The voice and stage channels the guild's sessions still to start are held in (/setup show checks
    what the bot holds there)."""
    async with factory() as session:
        rows = await session.scalars(
            select(ClubSession.channel_id)
            .where(
                ClubSession.guild_id == guild_id,
                ClubSession.status == SCHEDULED,
                ClubSession.starts_at > now,
                ClubSession.channel_id.is_not(None),
            )
            .distinct()
        )
        return sorted(channel_id for channel_id in rows if channel_id is not None)


async def session_with_zones(factory: Store, guild_id: int, session_id: int) -> tuple[SessionInfo, Zones]:
    """The guild's session (NotFound otherwise) and the zones the server shows times in."""
    async with factory() as session:
        zones = (await get_config(session, guild_id)).display_zones
        return await store.get_session(session, guild_id, session_id), zones


async def remind_me(
    ctx: SessionsContext, guild_id: int, session_id: int, user_id: int, now: datetime
) -> tuple[queries.Reminded, SessionInfo]:
    """Remind me pressed: the member's reminder of the session on, or off when it was; how they are now
    reminded, and the session. The reminders feature hears it (``session_subscription_changed``)."""
    async with ctx.store() as session, session.begin():
        reminded = await queries.toggle_subscription(session, guild_id, session_id, user_id, now=now)
        info = await store.get_session(session, guild_id, session_id)
    ctx.discord.dispatch("session_subscription_changed", guild_id, session_id, user_id, reminded.subscribed)
    return reminded, info
