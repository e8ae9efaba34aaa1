"""One run of the ``privacy.lifetimes`` job: whatever is past its lifetime (every kind's expiry in
:data:`bot.services.privacy.kinds.KINDS`), then the servers left more than the grace period ago."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.services.privacy import lifetimes, servers
from bot.services.privacy.kinds import EXPIRIES


@dataclass(frozen=True)
class Enforced:
    """What one run deleted: records by table, and each server's rows by table."""

    expired: dict[str, int]
    servers: dict[int, dict[str, int]]


async def enforce(
    session_factory: async_sessionmaker[AsyncSession],
    now: datetime,
    *,
    grace: timedelta,
    running: Collection[str] = (),
) -> Enforced:
    """Delete what is past its lifetime, then the servers left more than ``grace`` ago (``running``: the
    jobs of this process, whose rows are never idle)."""
    expired = await lifetimes.expire(session_factory, EXPIRIES, now, running=running)
    gone = await servers.delete_departed(session_factory, now, grace)
    return Enforced(expired.deleted, gone)
