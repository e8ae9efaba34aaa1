"""A source's turn shared by every process on one store (arXiv's limit is per client address): a claim
(:mod:`bot.claims`) held while a request is in flight, then until the source may be asked again."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import claims

POLL = timedelta(seconds=0.5)  # how often a taker looks again while another process holds the turn


def turn_key(source: str) -> str:
    """The claim key of ``source``'s turn."""
    return f"sources.{source}.turn"


class StoreTurns:
    """:class:`bot.sources.pace.SharedTurns` kept in the store: one holder at a time across processes."""

    def __init__(self, session_factory: async_sessionmaker[AsyncSession]) -> None:
        self.session_factory = session_factory
        self.owner = uuid.uuid4().hex

    async def take(self, source: str, now: datetime, hold: float) -> datetime | None:
        """Take the turn for ``hold`` seconds at most: None when taken, else when to look again."""
        async with self.session_factory() as session, session.begin():
            if await claims.claim(session, turn_key(source), self.owner, now, timedelta(seconds=hold)):
                return None
            free_at = await claims.held_until(session, turn_key(source)) or now
        return min(free_at, now + POLL)  # a request in flight frees it sooner than its hold says

    async def give_back(self, source: str, now: datetime, free_at: datetime) -> None:
        """End this process's request: the turn stays held, by no request, until ``free_at``."""
        async with self.session_factory() as session, session.begin():
            await claims.release(session, turn_key(source), self.owner)
            await claims.claim(session, turn_key(source), self.owner, now, max(free_at - now, timedelta(0)))
