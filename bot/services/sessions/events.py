"""The Discord side sessions run against; their Discord event kept in step under a claim; a channel's hour."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final, Protocol

from sqlalchemy import or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import claims, timeutil
from bot.clock import Host
from bot.services.config.guild import get_config
from bot.services.sessions import store
from bot.services.sessions.info import SCHEDULED, SessionInfo
from bot.sources.arxiv import ArxivClient
from bot.text import cut, one_line
from bot.timeutil import DisplayZone
from db.models import ClubSession

log = logging.getLogger("paperclub.sessions")

Zones = Sequence[DisplayZone]
EVENT_SCHEDULED = "scheduled"  # before it starts: the only status the bot edits or cancels
EVENT_ACTIVE = "active"


@dataclass(frozen=True)
class EventFields:
    """A session's scheduled event as Discord shows it."""

    name: str
    description: str
    start: datetime
    end: datetime
    location: str | None  # a link event's (None: held in ``channel_id``)
    channel_id: int | None = None


@dataclass(frozen=True)
class Posted:
    """A message the bot posted: its id and link."""

    message_id: int
    jump_url: str


class EventRefused(Exception):
    """Discord refused a step of the session's event; ``warning`` tells the organizer (None: nothing to say)."""

    def __init__(self, warning: str | None) -> None:
        super().__init__(warning)
        self.warning = warning


class SessionsOnDiscord(Protocol):
    """A session's Discord side: its event (raising EventRefused), its posts (best effort: a warning)."""

    def dispatch(self, event: str, /, *args: object) -> None:
        """Tell the other features (``session_saved``, ``session_cancelled``…)."""

    async def event_status(self, guild_id: int, event_id: int) -> str | None:
        """The event's status (None: it is gone)."""

    async def create_event(self, guild_id: int, fields: EventFields) -> tuple[int, str]:
        """Create the event; its id and status."""

    async def edit_event(self, guild_id: int, event_id: int, fields: EventFields) -> None:
        """Change the event to ``fields``."""

    async def cancel_event(self, guild_id: int, event_id: int) -> None:
        """Cancel the event."""

    async def event_users(self, guild_id: int, event_id: int) -> set[int] | None:
        """The members marked Interested on the event (None: it is gone, or Discord would not say)."""

    async def start_event(self, guild_id: int, event_id: int) -> None:
        """Set a channel's event active (Discord starts only link events itself)."""

    async def complete_event(self, guild_id: int, event_id: int) -> None:
        """Set a started channel's event completed."""

    async def set_voice_status(self, guild_id: int, channel_id: int, status: str | None) -> None:
        """Set (None: clear) a voice channel's status, where the server granted what that needs; best effort."""

    async def post_card(self, info: SessionInfo, zones: Zones, now: datetime, channel_id: int) -> Posted:
        """Post the session's card (NotConfigured: not a text channel the bot can see and post in)."""

    async def edit_card(self, info: SessionInfo, zones: Zones, now: datetime) -> Posted | None:
        """Edit the posted announcement into the card as it stands (None: deleted; NotConfigured as above)."""

    async def refresh_card(self, info: SessionInfo, zones: Zones, now: datetime) -> str | None:
        """:meth:`edit_card`, best effort."""

    async def delete_card(self, info: SessionInfo) -> None:
        """Delete the posted announcement, best effort."""

    async def open_thread(self, channel_id: int, message_id: int, name: str) -> int | None:
        """Open the discussion thread on a post; its id (None: refused)."""

    async def add_to_thread(self, thread_id: int, user_id: int) -> str | None:
        """Add a member to the thread, best effort."""

    async def post_cancellation(self, info: SessionInfo, zones: Zones, now: datetime) -> str | None:
        """The cancellation notice under the announcement, best effort."""

    async def post_recap(self, info: SessionInfo) -> str | None:
        """The recording and notes in the session's thread, best effort."""


@dataclass(frozen=True)
class SessionsContext:
    """The store, arXiv (new papers' titles) and the Discord side every session flow acts on."""

    store: async_sessionmaker[AsyncSession]
    arxiv: ArxivClient
    discord: SessionsOnDiscord

    @classmethod
    def on(cls, host: Host, arxiv: ArxivClient, discord: SessionsOnDiscord) -> SessionsContext:
        """The context over ``host``'s store."""
        return cls(host.session_factory, arxiv, discord)


CLAIM_LEASE: Final = timedelta(minutes=2)  # longer than a claim's Discord calls, even behind rate limits
# Guild Scheduled Event: name 1-100 characters, description 1-1000, entity_metadata.location 1-100.
NAME_LIMIT: Final = 100
DESCRIPTION_LIMIT: Final = 1000
LOCATION_LIMIT: Final = 100


ACTIVE: Final = "active"  # how far the bot took a channel's event through the hour
COMPLETED: Final = "completed"
# PUT /channels/{channel.id}/voice-status: "the voice channel status (0-500 characters)" (api-docs#6398)
VOICE_STATUS_LIMIT: Final = 500


def event_fields(info: SessionInfo, zones: Zones) -> EventFields:
    """The event's name, plain-text description, times and place (channel, sign-up link or 'Video call')."""
    lines = [timeutil.format_club_time(info.starts_at, zones)]
    if info.presenter_name:
        lines.append(f"Presenter: {one_line(info.presenter_name, 100)}")
    if info.papers:
        lines.append("Papers: " + "; ".join(one_line(p.title, 120) for p in info.main_papers))
        if info.against:
            lines.append("Read against: " + "; ".join(one_line(p.title, 120) for p in info.against_papers))
    if info.signup_url:
        lines.append(f"Sign up: {info.signup_url}")
    if info.description:
        lines.extend(["", info.description])
    signup = info.signup_url
    location = signup if signup and len(signup) <= LOCATION_LIMIT else "Video call"
    return EventFields(
        name=cut(one_line(info.title, 200), NAME_LIMIT),
        description=cut("\n".join(lines), DESCRIPTION_LIMIT),
        start=info.starts_at,
        end=info.ends_at,
        location=location if info.channel_id is None else None,  # a channel's event has no location
        channel_id=info.channel_id,
    )


async def claim_event(
    session: AsyncSession, guild_id: int, session_id: int, token: str, now: datetime
) -> bool:
    """Take the right to create the session's event; False when someone else holds a live claim."""
    return await claims.claim(session, f"event-claim:{guild_id}:{session_id}", token, now, CLAIM_LEASE)


async def release_event_claim(session: AsyncSession, guild_id: int, session_id: int, token: str) -> None:
    """Give up a session's event claim held with ``token``."""
    await claims.release(session, f"event-claim:{guild_id}:{session_id}", token)


async def sync_event(ctx: SessionsContext, info: SessionInfo, zones: Zones, now: datetime) -> str | None:
    """Create, move or cancel the session's event (one started or ended is left); a warning, or None."""
    discord, guild_id = ctx.discord, info.guild_id
    try:
        status = await discord.event_status(guild_id, info.event_id) if info.event_id else None
        if info.is_cancelled:
            if info.event_id and status == EVENT_SCHEDULED:
                await discord.cancel_event(guild_id, info.event_id)
            return None
        if info.has_started(now):
            return None  # Discord refuses to move an event that has begun
        if info.event_id and status is not None:
            if status == EVENT_SCHEDULED:
                await discord.edit_event(guild_id, info.event_id, event_fields(info, zones))
            return None
        await _create_claimed(ctx, info, zones, now)
    except EventRefused as refused:
        return refused.warning
    return None


async def _create_claimed(ctx: SessionsContext, info: SessionInfo, zones: Zones, now: datetime) -> None:
    """Create the event under a claim (no claim: the holder makes it), following a change made meanwhile."""
    guild_id, token = info.guild_id, secrets.token_hex(8)
    async with ctx.store() as session, session.begin():  # the claim and the session as stored
        if not await claim_event(session, guild_id, info.id, token, now):
            log.info("session %s: another process is creating its event", info.id)
            return
        current = await store.get_session(session, guild_id, info.id)
    try:
        if current.is_cancelled or current.has_started(now):
            return
        event_id, status, made_from = current.event_id, None, None
        if event_id is not None and event_id != info.event_id:  # made by the claim's last holder
            status = await ctx.discord.event_status(guild_id, event_id)
        if status is None:
            made_from = event_fields(current, zones)
            event_id, status = await ctx.discord.create_event(guild_id, made_from)
        assert event_id is not None
        # Recorded, read again and released at once: an edit after this sees the event and moves it itself.
        async with ctx.store() as session, session.begin():
            if made_from is not None:
                await store.record_event(session, guild_id, info.id, event_id)
            latest = await store.get_session(session, guild_id, info.id)
            await release_event_claim(session, guild_id, info.id, token)
        if status != EVENT_SCHEDULED:
            return
        if latest.is_cancelled:
            await ctx.discord.cancel_event(guild_id, event_id)
        elif (fields := event_fields(latest, zones)) != made_from:
            await ctx.discord.edit_event(guild_id, event_id, fields)  # changed while it was being made
    finally:  # released already when the event was recorded: then a no-op
        async with ctx.store() as session, session.begin():
            await release_event_claim(session, guild_id, info.id, token)


async def catch_up(ctx: SessionsContext, guild_id: int, now: datetime) -> int:
    """Give the guild's upcoming sessions their missing event, up to the first refusal; how many got one."""
    async with ctx.store() as session:
        zones = (await get_config(session, guild_id)).display_zones
        missing = list(
            await session.scalars(
                select(ClubSession.id)
                .where(
                    ClubSession.guild_id == guild_id,
                    ClubSession.status == SCHEDULED,
                    ClubSession.starts_at > now,
                    ClubSession.event_id.is_(None),
                )
                .order_by(ClubSession.starts_at, ClubSession.id)
            )
        )
    made = 0
    for session_id in missing:
        async with ctx.store() as session:
            info = await store.get_session(session, guild_id, session_id)
        if info.event_id is not None:
            continue  # made meanwhile (by an organizer's edit, or another process)
        warning = await sync_event(ctx, info, zones, now)
        if warning is not None:
            log.warning(
                "guild %s: %d upcoming session(s) still have no Discord event: %s",
                guild_id,
                len(missing) - made,
                warning,
            )
            break
        made += 1
    if made:
        log.info("guild %s: %d upcoming session(s) got their Discord event", guild_id, made)
    return made


def hour_claim_key(guild_id: int, session_id: int) -> str:
    """The claim key of a session's hour."""
    return f"hour:{guild_id}:{session_id}"


def voice_status(info: SessionInfo) -> str:
    """The voice channel's status for the hour: the title and the papers, on one line, within 500."""
    papers = "; ".join(one_line(p.title, 200) for p in info.papers)
    text = f"{one_line(info.title, 200)} · {papers}" if papers else one_line(info.title, 200)
    return cut(text, VOICE_STATUS_LIMIT)


async def run_hour(ctx: SessionsContext, guild_ids: Sequence[int], now: datetime) -> int:
    """Take each channel session of these servers whose start has passed a step on; how many steps."""
    async with ctx.store() as session:
        found = await session.execute(
            select(ClubSession.guild_id, ClubSession.id)
            .where(
                ClubSession.guild_id.in_(guild_ids),
                ClubSession.channel_id.is_not(None),
                ClubSession.event_id.is_not(None),
                ClubSession.starts_at <= now,
                or_(
                    ClubSession.hour_stage == ACTIVE,
                    ClubSession.hour_stage.is_(None) & (ClubSession.status == SCHEDULED),
                ),
            )
            .order_by(ClubSession.starts_at, ClubSession.id)
        )
        due = found.tuples().all()
    return sum([await hour_step(ctx, guild_id, session_id, now) for guild_id, session_id in due])


async def hour_step(ctx: SessionsContext, guild_id: int, session_id: int, now: datetime) -> int:
    """Start or complete a channel session's event (and its voice status) under a claim; the steps taken."""
    token = secrets.token_hex(8)
    async with ctx.store() as session, session.begin():
        if not await claims.claim(session, hour_claim_key(guild_id, session_id), token, now, CLAIM_LEASE):
            return 0  # another process is taking it
        info = await store.get_session(session, guild_id, session_id)
    try:
        return await _hour_steps(ctx, info, now)
    except EventRefused as refused:
        log.warning("session %s: its event could not be moved on: %s", info.id, refused.warning)
        return 0
    finally:
        async with ctx.store() as session, session.begin():
            await claims.release(session, hour_claim_key(guild_id, session_id), token)


async def _hour_steps(ctx: SessionsContext, info: SessionInfo, now: datetime) -> int:
    discord, guild_id, stage, taken = ctx.discord, info.guild_id, info.hour_stage, 0
    if info.event_id is None or info.channel_id is None or stage == COMPLETED:
        return 0
    status = await discord.event_status(guild_id, info.event_id)
    if stage is None:
        if info.is_cancelled or not info.has_started(now):
            return 0  # cancelled or moved later meanwhile: left alone
        if status == EVENT_SCHEDULED:
            await discord.start_event(guild_id, info.event_id)
            status = EVENT_ACTIVE
        if status == EVENT_ACTIVE and not info.has_ended(now):
            await discord.set_voice_status(guild_id, info.channel_id, voice_status(info))
        stage = ACTIVE if status == EVENT_ACTIVE else COMPLETED  # gone, or ended or cancelled by hand
        await _record_stage(ctx, info, stage)
        taken += 1
    if stage == ACTIVE and info.has_ended(now):
        if status == EVENT_ACTIVE:
            await discord.complete_event(guild_id, info.event_id)
        if info.hour_stage == ACTIVE:  # set at the start (not when the whole hour passed unseen)
            await discord.set_voice_status(guild_id, info.channel_id, None)
        await _record_stage(ctx, info, COMPLETED)
        taken += 1
    return taken


async def _record_stage(ctx: SessionsContext, info: SessionInfo, stage: str) -> None:
    async with ctx.store() as session, session.begin():
        await session.execute(update(ClubSession).where(ClubSession.id == info.id).values(hour_stage=stage))
    log.info("session %s: its event is %s", info.id, stage)
