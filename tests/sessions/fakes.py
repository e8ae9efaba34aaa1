"""A Discord side for the sessions' flows that records what it is asked (the flows' unit tests need no stand-in)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from types import SimpleNamespace
from typing import Any, cast

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.errors import NotConfigured
from bot.services.sessions.events import (
    EVENT_ACTIVE,
    EVENT_SCHEDULED,
    EventFields,
    EventRefused,
    Posted,
    SessionsContext,
    Zones,
)
from bot.services.sessions.info import SessionInfo


@dataclass
class FakeSessionsDiscord:
    """Events and posts kept in dicts; ``refuse_events`` makes every event step refused with that warning."""

    events: dict[int, tuple[str, EventFields]] = field(default_factory=dict)
    posts: dict[int, int] = field(default_factory=dict)  # message id -> channel id
    threads: dict[int, list[int]] = field(default_factory=dict)  # thread id -> members added
    dispatched: list[tuple[Any, ...]] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    channels: set[int] = field(default_factory=lambda: {500, 501})
    refuse_events: str | None = None
    interested: dict[int, set[int]] = field(default_factory=dict)  # event id -> members marked Interested
    voice_status: dict[int, str | None] = field(default_factory=dict)  # channel id -> status
    _next: int = 1000

    def _id(self) -> int:
        self._next += 1
        return self._next

    def _event_step(self, name: str) -> None:
        self.calls.append(name)
        if self.refuse_events is not None:
            raise EventRefused(self.refuse_events)

    def dispatch(self, event: str, /, *args: object) -> None:
        self.dispatched.append((event, *args))

    async def event_status(self, guild_id: int, event_id: int) -> str | None:
        self._event_step("event_status")
        return self.events[event_id][0] if event_id in self.events else None

    async def create_event(self, guild_id: int, fields: EventFields) -> tuple[int, str]:
        self._event_step("create_event")
        event_id = self._id()
        self.events[event_id] = (EVENT_SCHEDULED, fields)
        return event_id, EVENT_SCHEDULED

    async def edit_event(self, guild_id: int, event_id: int, fields: EventFields) -> None:
        self._event_step("edit_event")
        self.events[event_id] = (self.events[event_id][0], fields)

    async def cancel_event(self, guild_id: int, event_id: int) -> None:
        self._event_step("cancel_event")
        self.events[event_id] = ("canceled", self.events[event_id][1])

    async def event_users(self, guild_id: int, event_id: int) -> set[int] | None:
        self.calls.append("event_users")
        return set(self.interested[event_id]) if event_id in self.interested else None

    async def start_event(self, guild_id: int, event_id: int) -> None:
        self._event_step("start_event")
        assert self.events[event_id][0] == EVENT_SCHEDULED, "only a scheduled event starts"
        self.events[event_id] = (EVENT_ACTIVE, self.events[event_id][1])

    async def complete_event(self, guild_id: int, event_id: int) -> None:
        self._event_step("complete_event")
        assert self.events[event_id][0] == EVENT_ACTIVE, "only an active event completes"
        self.events[event_id] = ("completed", self.events[event_id][1])

    async def set_voice_status(self, guild_id: int, channel_id: int, status: str | None) -> None:
        self.calls.append("set_voice_status")
        self.voice_status[channel_id] = status

    async def post_card(self, info: SessionInfo, zones: Zones, now: datetime, channel_id: int) -> Posted:
        self.calls.append("post_card")
        if channel_id not in self.channels:
            raise NotConfigured(f"I can't post in <#{channel_id}>; pick a text channel I can see.")
        message_id = self._id()
        self.posts[message_id] = channel_id
        return Posted(message_id, f"https://discord.com/channels/{info.guild_id}/{channel_id}/{message_id}")

    async def edit_card(self, info: SessionInfo, zones: Zones, now: datetime) -> Posted | None:
        self.calls.append("edit_card")
        message_id = info.announcement_message_id
        if message_id not in self.posts:
            return None
        assert message_id is not None
        return Posted(
            message_id, f"https://discord.com/channels/{info.guild_id}/{self.posts[message_id]}/{message_id}"
        )

    async def refresh_card(self, info: SessionInfo, zones: Zones, now: datetime) -> str | None:
        self.calls.append("refresh_card")
        return None

    async def delete_card(self, info: SessionInfo) -> None:
        self.calls.append("delete_card")
        self.posts.pop(info.announcement_message_id or 0, None)

    async def open_thread(self, channel_id: int, message_id: int, name: str) -> int | None:
        self.calls.append("open_thread")
        thread_id = self._id()
        self.threads[thread_id] = []
        return thread_id

    async def add_to_thread(self, thread_id: int, user_id: int) -> str | None:
        self.threads[thread_id].append(user_id)
        return None

    async def post_cancellation(self, info: SessionInfo, zones: Zones, now: datetime) -> str | None:
        self.calls.append("post_cancellation")
        return None

    async def post_recap(self, info: SessionInfo) -> str | None:
        self.calls.append("post_recap")
        return None


def context(
    session_factory: async_sessionmaker[AsyncSession], discord: FakeSessionsDiscord | None = None
) -> SessionsContext:
    """The flows' context on a test store, with arXiv never asked (no paper of these tests is on arXiv)."""
    arxiv = cast(Any, SimpleNamespace(blocked_for=1.0))
    return SessionsContext(session_factory, arxiv, discord or FakeSessionsDiscord())
