"""How many are coming, kept on the announcement: at most one edit per :data:`EDIT_EVERY`, the last change
shown once that time is up (Discord's channel message bucket: discord-api-docs docs/topics/rate-limits.md)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Final

from bot.background import Job, every
from bot.client import PaperclubBot
from bot.errors import NotFound
from bot.services.sessions import publish, queries
from bot.services.sessions.context import SessionsContext

log = logging.getLogger("paperclub.sessions")
EDIT_EVERY: Final = timedelta(seconds=10)
JOB: Final = "sessions.counts"
INTEREST_EVENT: Final = "scheduled_event_interest"  # (guild_id, event_id, user_id, interested)
_GATEWAY = {"GUILD_SCHEDULED_EVENT_USER_ADD": True, "GUILD_SCHEDULED_EVENT_USER_REMOVE": False}


def hear_interest(bot: PaperclubBot) -> Callable[[], None]:
    """Dispatch :data:`INTEREST_EVENT` for every Interested mark the gateway sends; returns the undo.
    (discord.py's ``parse_guild_scheduled_event_user_add`` drops users not in its cache.)"""
    parsers: dict[str, Callable[[Any], None]] = bot._connection.parsers
    originals = {name: parsers[name] for name in _GATEWAY}

    def wrap(name: str, interested: bool) -> Callable[[Any], None]:
        def parse(data: Any) -> None:
            ids = (data["guild_id"], data["guild_scheduled_event_id"], data["user_id"])
            bot.dispatch(INTEREST_EVENT, *map(int, ids), interested)
            originals[name](data)

        return parse

    for name, interested in _GATEWAY.items():
        parsers[name] = wrap(name, interested)
    return lambda: parsers.update(originals)


class ComingCounts:
    """Coalesces the announcement edits that show a session's count (per process)."""

    def __init__(self, bot: PaperclubBot, context: SessionsContext) -> None:
        self.bot, self.context = bot, context
        self._next_edit: dict[int, datetime] = {}  # session id -> earliest time of its next edit
        self._waiting: dict[int, int] = {}  # session id -> guild id, changed since its last edit
        self.edits = 0  # announcement edits made (tests and the bench read it)

    async def start(self) -> None:
        """Run as the background job that makes the deferred edits."""
        await self.bot.background.add(Job(JOB, every(timedelta(hours=1)), self.run_due, once=False))

    async def stop(self) -> None:
        """Stop (changes not shown yet wait for the next edit)."""
        await self.bot.background.remove(JOB)

    async def changed(self, guild_id: int, session_id: int) -> None:
        """The session's count may have changed: edit now, or once its quiet time is up."""
        now = self.bot.clock.now()
        due = self._next_edit.get(session_id)
        if due is None or due <= now:
            await self._edit(guild_id, session_id, now)
            return
        self._waiting[session_id] = guild_id
        self.bot.background.wake(JOB, due)

    async def run_due(self, _fired: datetime | None = None) -> None:
        """Make the deferred edits whose quiet time is up; wake again for the rest."""
        now = self.bot.clock.now()
        for session_id, guild_id in list(self._waiting.items()):
            if self._next_edit.get(session_id, now) <= now:
                del self._waiting[session_id]
                await self._edit(guild_id, session_id, now)
        if self._waiting:
            self.bot.background.wake(JOB, min(self._next_edit[s] for s in self._waiting))
        for session_id, due in list(self._next_edit.items()):
            if due <= now and session_id not in self._waiting:
                del self._next_edit[session_id]  # nothing held: forget it

    async def _edit(self, guild_id: int, session_id: int, now: datetime) -> None:
        self._next_edit[session_id] = now + EDIT_EVERY
        try:
            info, zones = await queries.session_with_zones(self.context.store, guild_id, session_id)
        except NotFound:
            return
        if not info.is_announced or info.has_started(now):
            return
        warning = await publish.refresh(self.context, info, zones, now)
        self.edits += 1
        if warning:
            log.info("session %s's count: %s", session_id, warning)
