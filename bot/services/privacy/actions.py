"""Each privacy action as one call over the host's store: /privacy's overview and deletion (in a server, or
from a DM in every server), the servers the bot leaves and rejoins, a run of the lifetimes job."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from bot.errors import BadInput, NotAllowed
from bot.host import Host
from bot.services.privacy import lifetimes, servers
from bot.services.privacy.kinds import EXPIRIES
from bot.services.privacy.member import Deletion, Overview, erase_member, overview
from bot.services.privacy.rows import Who
from db.engine import read_only_session_factory

CONFIRM_MINUTES: Final = 10
NOT_YOURS: Final = (
    "This confirmation was shown to another member, so nothing was deleted: `/privacy` shows what the bot "
    "keeps about you."
)
ELSEWHERE: Final = (
    "This button belongs to /privacy somewhere else, so nothing was deleted: run `/privacy` here."
)
EXPIRED: Final = f"This confirmation is more than {CONFIRM_MINUTES} minutes old, so nothing was deleted: run `/privacy` again."
Ready = Callable[[], Awaitable[object]]


@dataclass(frozen=True)
class Enforced:
    """What one run of the lifetimes job deleted: records by table, and each server's rows by table."""

    expired: dict[str, int]
    servers: dict[int, dict[str, int]]


def who(user_id: int, scope: int) -> Who:
    """The member's data in the server ``scope``, or in every server (0)."""
    return Who(user_id, frozenset({scope}) if scope else None)


def here(where: int, scope: int) -> None:
    """Refuse a button pressed elsewhere (``where``: the server, 0 in a DM) than its ``scope``."""
    if where != scope:
        raise NotAllowed(ELSEWHERE)


class Privacy:
    """The privacy flows over the host's store."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.readers = read_only_session_factory(host.engine)  # the overview only reads

    async def overview(self, user_id: int, scope: int) -> Overview:
        """What the store holds of the member in the server ``scope`` (0: every server)."""
        async with self.readers() as session:
            return await overview(session, who(user_id, scope))

    async def delete(
        self, user_id: int, scope: int, issued: int, *, presser: int, where: int, ready: Ready
    ) -> Deletion:
        """The confirmation shown to ``user_id`` at ``issued`` pressed: refused unless by that member, where
        shown, within :data:`CONFIRM_MINUTES`; then ``ready``, and the data deleted in one transaction."""
        if presser != user_id:
            raise NotAllowed(NOT_YOURS)
        here(where, scope)
        now = self.host.clock.now()
        if not 0 <= now.timestamp() - issued <= timedelta(minutes=CONFIRM_MINUTES).total_seconds():
            raise BadInput(EXPIRED)
        await ready()
        async with self.host.session_factory() as session, session.begin():
            return await erase_member(session, who(user_id, scope), now)

    async def left(self, guild_id: int) -> None:
        """The bot was removed from the server: its grace period begins."""
        async with self.host.session_factory() as session, session.begin():
            await servers.mark_left(session, guild_id, self.host.clock.now())

    async def back(self, guild_id: int) -> int:
        """The bot was added (back) to the server: whatever it holds is kept; 1 if it had been left."""
        async with self.host.session_factory() as session, session.begin():
            return await servers.mark_back(session, [guild_id])

    async def reconcile(self, present: Collection[int], ours: Callable[[int], bool]) -> set[int]:
        """At start-up, with the servers Discord listed for this process's shards (``present``): each is kept;
        one of ``ours`` the store holds data of but Discord did not list is marked left now. Those."""
        now = self.host.clock.now()
        async with self.host.session_factory() as session, session.begin():
            await servers.mark_back(session, present)
            gone = {g for g in await servers.known_servers(session) - set(present) if ours(g)}
            for guild_id in sorted(gone):
                await servers.mark_left(session, guild_id, now)
        return gone

    async def lifetimes(self, now: datetime, *, grace: timedelta, running: Collection[str] = ()) -> Enforced:
        """Delete what is past its lifetime, then the servers left more than ``grace`` ago (``running``: this
        process's jobs, whose rows are never idle)."""
        expired = await lifetimes.expire(self.host.session_factory, EXPIRIES, now, running=running)
        gone = await servers.delete_departed(self.host.session_factory, now, grace)
        return Enforced(expired.deleted, gone)
