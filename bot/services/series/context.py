"""What the series' flows run against (:class:`SeriesContext`): the sessions' context, and the series' own
Discord side (:class:`SeriesOnDiscord`, which the series cog implements)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.services.series.info import SeriesCard, SeriesInfo
from bot.services.sessions.context import Posted, SessionsContext


class SeriesOnDiscord(Protocol):
    """The series' Discord side: the organizers' thread and the open-weeks message. Trouble is logged, never
    raised, except where the organizer asked for the post (NotConfigured)."""

    def guild_ids(self) -> list[int]:
        """The servers this process serves."""

    async def is_thread(self, thread_id: int) -> bool:
        """Whether the thread is still there."""

    async def can_open_thread(self, channel_id: int) -> bool:
        """Whether the channel is a text channel the bot can see."""

    async def open_thread(self, channel_id: int, name: str, intro: str) -> int | None:
        """Open a public thread in the channel and post ``intro`` in it; its id (None: refused)."""

    async def add_to_thread(self, thread_id: int, user_id: int) -> None:
        """Add a member to the thread, so Discord tells them of each post."""

    async def check_board_channel(self, channel_id: int) -> None:
        """NotConfigured unless the bot can post the open weeks in the channel."""

    async def post_board(self, card: SeriesCard, channel_id: int) -> Posted:
        """Post the open-weeks message (NotConfigured when Discord refuses)."""

    async def edit_board(self, card: SeriesCard) -> bool:
        """Edit the posted message into ``card``; False when it was deleted."""

    async def refresh_board(self, card: SeriesCard) -> bool:
        """:meth:`edit_board`, best effort (a channel gone or hidden is left alone)."""

    async def delete_board(self, info: SeriesInfo) -> None:
        """Delete the posted message, best effort."""


@dataclass(frozen=True)
class SeriesContext:
    """The sessions' context and the series' Discord side."""

    sessions: SessionsContext
    discord: SeriesOnDiscord

    @property
    def store(self) -> async_sessionmaker[AsyncSession]:
        """The store."""
        return self.sessions.store
