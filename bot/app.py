"""Build the bot from settings: the one place that wires engine, session factory, scheduler and clock."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from bot.api_base import apply_api_base
from bot.background import build_scheduler
from bot.client import PaperclubBot, ShardedPaperclubBot
from bot.clock import Clock
from bot.settings import Settings
from db.engine import create_engine, create_session_factory


def build_bot(
    settings: Settings, *, clock: Clock | None = None, engine: AsyncEngine | None = None, **options: Any
) -> PaperclubBot:
    """A ready-to-start bot (sharded when SHARD_COUNT is set); tests pass their own engine and FakeClock."""
    apply_api_base(settings.discord_api_base)
    engine = engine or create_engine(
        settings.database_url,
        pool_size=settings.database_pool_size,
        max_overflow=settings.database_max_overflow,
    )
    cls: type[PaperclubBot] = PaperclubBot
    if settings.shard_count is not None:
        cls = ShardedPaperclubBot
        options.setdefault("shard_count", None if settings.shard_count == "auto" else settings.shard_count)
        if settings.shard_ids is not None:
            options.setdefault("shard_ids", list(settings.shard_ids))
    return cls(
        settings=settings,
        engine=engine,
        session_factory=create_session_factory(engine),
        scheduler=build_scheduler(),
        clock=clock,
        **options,
    )
