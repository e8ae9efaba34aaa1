"""What a feature's flows use of the bot: its store and its clock."""

from __future__ import annotations

from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.clock import Clock


class Host(Protocol):
    """The store (sessions, and the engine for read-only ones) and the clock."""

    session_factory: async_sessionmaker[AsyncSession]
    engine: AsyncEngine
    clock: Clock
