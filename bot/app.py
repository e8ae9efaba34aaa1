"""Build the bot from settings: the one place that wires engine, session factory, scheduler and clock."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from bot.api_base import apply_api_base
from bot.client import PaperclubBot
from bot.clock import Clock
from bot.scheduler import build_scheduler
from bot.settings import Settings
from db.engine import create_engine, create_session_factory


def build_bot(
    settings: Settings, *, clock: Clock | None = None, engine: AsyncEngine | None = None, **options: Any
) -> PaperclubBot:
    """A ready-to-start bot. Tests and the demo pass their own settings, engine and FakeClock."""
    apply_api_base(settings.discord_api_base)
    engine = engine or create_engine(settings.database_url)
    return PaperclubBot(
        settings=settings,
        engine=engine,
        session_factory=create_session_factory(engine),
        scheduler=build_scheduler(),
        clock=clock,
        **options,
    )
