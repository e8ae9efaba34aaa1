"""Presenters: I'll present (one conditional UPDATE: the first of two presses wins), and /series presenters."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.errors import Conflict, NotAllowed, NotFound
from bot.papers import normalize_title
from bot.services.config.guild import get_config
from bot.services.series.info import Changes
from bot.services.series.publishing import (
    SeriesContext,
    cancel_presenter_nudge,
    publish_changes,
    refresh_guild,
)
from bot.services.series.weeks import week_of_session
from bot.services.sessions import store as sessions
from bot.services.sessions.events import Zones
from bot.services.sessions.info import SCHEDULED, SessionInfo
from bot.timeutil import format_long_date
from db.models import ClubSession
from db.models.series import WEEK_SKIPPED
from db.models.suggestions import ACTIVE_STATUSES, Suggestion, SuggestionVolunteer


def presenter_label(info: SessionInfo) -> str:
    """How the presenter shows in a refusal: their mention (never pings), or a guest's name."""
    if info.presenter_id is not None:
        return f"<@{info.presenter_id}>"
    return info.presenter_name or "Someone"


async def _set_presenter(
    session: AsyncSession,
    session_id: int,
    now: datetime,
    *,
    to: tuple[int | None, str | None],
    only_if: object,
) -> bool:
    done = await session.execute(
        update(ClubSession)
        .where(ClubSession.id == session_id, ClubSession.status == SCHEDULED, only_if)  # type: ignore[arg-type]
        .values(presenter_id=to[0], presenter_name=to[1], sequence=ClubSession.sequence + 1, updated_at=now)
        .execution_options(synchronize_session=False)
    )
    return int(getattr(done, "rowcount", 0) or 0) == 1


async def present(
    ctx: SeriesContext,
    guild_id: int,
    session_id: int,
    user_id: int,
    display_name: str,
    *,
    now: datetime,
    series_id: int | None = None,
) -> tuple[bool, SessionInfo, Zones]:
    """I'll present: claim the open week, or step down (from a series' select: only claim); whether claimed."""
    async with ctx.store() as session, session.begin():
        club = await sessions.get_session(session, guild_id, session_id)  # NotFound for another server's
        found = await week_of_session(session, guild_id, session_id)
        if found is None:
            raise NotFound(
                "That session is not a week of a series; organizers set its presenter with `/organize session edit`."
            )
        if series_id is not None and found[0].id != series_id:
            raise NotFound("That week is not one of this series' weeks; pick one from the list.")
        week = found[1]
        day = format_long_date(week.week_date)
        if week.status == WEEK_SKIPPED or club.is_cancelled:
            raise Conflict(f"{day} is skipped, so there is nothing to present.")
        if club.has_started(now):
            raise Conflict(f"{day} has already begun.")
        name = " ".join(display_name.split())[:100] or None
        if club.presenter_id == user_id and series_id is not None:
            raise Conflict(f"You already present {day}. Thank you!")
        if club.presenter_id == user_id:
            if not await _set_presenter(
                session, session_id, now, to=(None, None), only_if=ClubSession.presenter_id == user_id
            ):
                raise Conflict("That changed just now; press again.")
            claimed = False
        elif club.presenter_id is None and not club.presenter_name:
            open_now = (ClubSession.presenter_id.is_(None)) & (ClubSession.presenter_name.is_(None))
            if not await _set_presenter(session, session_id, now, to=(user_id, name), only_if=open_now):
                taken = await sessions.get_session(session, guild_id, session_id)
                raise NotAllowed(f"{presenter_label(taken)} just claimed {day}.")
            await cancel_presenter_nudge(session, session_id, now)
            claimed = True
        else:
            raise NotAllowed(
                f"{presenter_label(club)} presents {day}. Only they can step down; an organizer can change it "
                "with `/organize session edit`."
            )
        info = await sessions.get_session(session, guild_id, session_id)
        zones = (await get_config(session, guild_id)).display_zones
    await publish_changes(ctx, guild_id, Changes(saved=[session_id]), zones, now)
    await refresh_guild(ctx, guild_id, now)
    return claimed, info, zones


@dataclass
class PresenterStat:
    """A member (``user_id``) or a guest (by name) who presented: how often, when last, and next."""

    name: str
    user_id: int | None
    count: int = 0
    last: datetime | None = None
    next: datetime | None = None


@dataclass(frozen=True)
class Offer:
    """A member's offer to present a suggested paper."""

    user_id: int
    suggestion_id: int
    paper: str


@dataclass(frozen=True)
class Presenters:
    """Who presents (imported history included), who offered to, and the server's zone."""

    stats: list[PresenterStat]
    offers: list[Offer]
    zone: str


async def presenters(factory: async_sessionmaker[AsyncSession], guild_id: int, now: datetime) -> Presenters:
    """/series presenters: who has presented, how often, when last and next; who offered to present a paper."""
    async with factory() as session:
        zone = (await get_config(session, guild_id)).timezone
        return Presenters(await _stats(session, guild_id, now), await _offers(session, guild_id), zone)


async def _stats(session: AsyncSession, guild_id: int, now: datetime) -> list[PresenterStat]:
    """Everyone who has presented or is to present, most first: a member by id, a guest by the name."""
    rows = (
        await session.execute(
            select(ClubSession.presenter_id, ClubSession.presenter_name, ClubSession.starts_at)
            .where(
                ClubSession.guild_id == guild_id,
                ClubSession.status == SCHEDULED,
                (ClubSession.presenter_id.is_not(None)) | (ClubSession.presenter_name.is_not(None)),
            )
            .order_by(ClubSession.starts_at)
        )
    ).all()
    found: dict[tuple[str, object], PresenterStat] = {}
    for presenter_id, name, starts_at in rows:
        key = ("id", presenter_id) if presenter_id is not None else ("name", normalize_title(name))
        tally = found.setdefault(key, PresenterStat(name or "", presenter_id))
        tally.name = name or tally.name
        if starts_at <= now:
            tally.count += 1
            tally.last = starts_at
        elif tally.next is None:
            tally.next = starts_at
    stats = list(found.values())
    stats.sort(key=lambda s: (-s.count, -(s.last.timestamp() if s.last else 0.0), s.name.casefold()))
    return stats


async def _offers(session: AsyncSession, guild_id: int) -> list[Offer]:
    """Offers (I'd present this) on suggestions still open, shortlisted or accepted, first offers first."""
    rows = (
        await session.execute(
            select(SuggestionVolunteer.user_id, Suggestion)
            .join(Suggestion, Suggestion.id == SuggestionVolunteer.suggestion_id)
            .where(Suggestion.guild_id == guild_id, Suggestion.status.in_(ACTIVE_STATUSES))
            .order_by(SuggestionVolunteer.created_at, Suggestion.id)
        )
    ).all()
    return [Offer(user_id, suggestion.id, suggestion.paper.title) for user_id, suggestion in rows]
