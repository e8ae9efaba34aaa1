"""The privacy flows: a member's overview, export and deletion; servers left and rejoined; the lifetimes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import literal, select, union, union_all
from sqlalchemy.ext.asyncio import AsyncSession

from bot.clock import Host
from bot.errors import BadInput, Conflict, NotAllowed
from bot.services.privacy import servers
from bot.services.privacy.kinds import EXPIRIES, MEMBER_KINDS, Kind
from bot.services.privacy.rows import Erased, Follow, Who, as_json
from bot.services.reminders.queue import SENDING_LEASE
from db.engine import read_only_session_factory
from db.models.reminders import SENDING, Reminder
from db.models.suggestions import Suggestion, SuggestionVolunteer, SuggestionVote

CONFIRM_MINUTES: Final = 10
NOT_YOURS: Final = (
    "This confirmation was shown to another member, so nothing was deleted: `/privacy` shows what the bot "
    "keeps about you."
)
ELSEWHERE: Final = (
    "This button belongs to /privacy somewhere else, so nothing was deleted: run `/privacy` here."
)
EXPIRED: Final = f"This confirmation is more than {CONFIRM_MINUTES} minutes old, so nothing was deleted: run `/privacy` again."
SENDING_NOW: Final = (
    "A reminder to you is being sent right now, so nothing was deleted: press *Delete my data* again in a "
    "minute or two."
)
Ready = Callable[[], Awaitable[object]]


@dataclass(frozen=True)
class Overview:
    """How much of each kind the store holds of a member, per server: ``counts[kind key][guild id]``."""

    counts: dict[str, dict[int, int]]

    @property
    def servers(self) -> list[int]:
        """The servers holding anything of the member."""
        return sorted({g for per in self.counts.values() for g, n in per.items() if n})

    def in_server(self, guild_id: int) -> list[tuple[Kind, int]]:
        """Each kind and how many in one server (kinds with none left out), in the list's order."""
        found = [(kind, self.counts.get(kind.key, {}).get(guild_id, 0)) for kind in MEMBER_KINDS]
        return [(kind, n) for kind, n in found if n]

    @property
    def empty(self) -> bool:
        """Nothing at all."""
        return not self.servers


@dataclass(frozen=True)
class Deletion:
    """What deleting a member's data did, by kind key, and what must follow."""

    erased: dict[str, Erased]
    follow: frozenset[Follow] = field(default_factory=frozenset)


@dataclass(frozen=True)
class Enforced:
    """What one run of the lifetimes job deleted: records by table, and each server's rows by table."""

    expired: dict[str, int]
    servers: dict[int, dict[str, int]]


async def overview(session: AsyncSession, who: Who) -> Overview:
    """What the store holds of the member in ``who``'s servers: every kind counted in one statement."""
    parts = [
        select(literal(kind.key).label("kind"), counted.c.guild, counted.c.n)
        for kind in MEMBER_KINDS
        for counted in (part.counting(who).subquery() for part in kind.member)
    ]
    counts: dict[str, dict[int, int]] = {kind.key: {} for kind in MEMBER_KINDS}
    for key, guild, n in (await session.execute(union_all(*parts))).all():
        counts[key][int(guild)] = counts[key].get(int(guild), 0) + int(n)
    return Overview(counts)


async def erase_member(session: AsyncSession, who: Who, now: datetime) -> Deletion:
    """Delete every kind of the member's data in ``who``'s servers, in the caller's one transaction."""
    # Refused while a runner whose lease still runs holds a reminder to them (deleting could not stop it).
    rows = await session.execute(
        select(Reminder.status, Reminder.claimed_at)
        .where(Reminder.user_id == who.user_id, who.within(Reminder.guild_id))
        .order_by(Reminder.id)
        .with_for_update()
    )
    if any(s == SENDING and at is not None and at > now - SENDING_LEASE for s, at in rows.all()):
        raise Conflict(SENDING_NOW)
    # Their suggestions locked in id order, as the vote writer takes them: a vote waits, or it for the vote.
    mine = union(
        select(SuggestionVote.suggestion_id).where(SuggestionVote.user_id == who.user_id),
        select(SuggestionVolunteer.suggestion_id).where(SuggestionVolunteer.user_id == who.user_id),
        select(Suggestion.id).where(Suggestion.submitter_id == who.user_id),
        select(Suggestion.id).where(Suggestion.reviewed_by == who.user_id),
    )
    await session.execute(
        select(Suggestion.id)
        .where(Suggestion.id.in_(mine), who.within(Suggestion.guild_id))
        .order_by(Suggestion.id)
        .with_for_update(key_share=True)  # FOR NO KEY UPDATE, as the vote writer
    )
    erased = {kind.key: Erased() for kind in MEMBER_KINDS}
    for kind in MEMBER_KINDS:
        for part in kind.member:
            erased[kind.key] += await part.erase(session, who, now)
    return Deletion(erased, frozenset(f for done in erased.values() for f in done.follow))


async def export_member(session: AsyncSession, guild_id: int, user_id: int, now: datetime) -> dict[str, Any]:
    """Everything the store holds of the member in one server, as JSON values, kind by kind."""
    who = Who(user_id, frozenset({guild_id}))
    return {
        "guild_id": str(guild_id),
        "user_id": str(user_id),
        "exported_at": as_json(now),
        "kinds": [
            {
                "kind": kind.name,
                "what": kind.what,
                "why": kind.why,
                "kept": kind.kept,
                "rows": [row for part in kind.member for row in await part.export(session, who)],
            }
            for kind in MEMBER_KINDS
        ],
    }


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
        """The confirmation pressed: checked, then ``ready``, then the data deleted in one transaction."""
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
        """Delete what is past its lifetime, then the servers left more than ``grace`` ago."""
        expired = await servers.expire(self.host.session_factory, EXPIRIES, now, running=running)
        return Enforced(expired, await servers.delete_departed(self.host.session_factory, now, grace))
