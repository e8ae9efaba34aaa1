"""What the sessions' flows run against: the store, arXiv and the Discord side (the cog implements it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.services.sessions.info import SessionInfo
from bot.sources.arxiv import ArxivClient
from bot.timeutil import DisplayZone

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
