"""The APScheduler instance, built in ``main()`` and given to the bot. Jobs live in memory only: the store
is the source of truth, and bot/background.py adds each cog's jobs again at start-up."""

from __future__ import annotations

from datetime import UTC

from apscheduler.schedulers.asyncio import AsyncIOScheduler


def build_scheduler() -> AsyncIOScheduler:
    """A scheduler in UTC that runs a late job once, however late (missed times coalesce)."""
    return AsyncIOScheduler(
        timezone=UTC,
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None},
    )
