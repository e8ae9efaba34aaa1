"""A member's data: what the store holds of them (per kind and server), deleting it in one transaction, and
exporting it as JSON. Every kind comes from :data:`bot.services.privacy.kinds.MEMBER_KINDS`."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import literal, select, union, union_all
from sqlalchemy.ext.asyncio import AsyncSession

from bot.errors import Conflict
from bot.services.privacy.kinds import MEMBER_KINDS, Kind
from bot.services.privacy.rows import Erased, Follow, MemberData, Who, as_json
from bot.services.reminders.queue import SENDING_LEASE
from db.models.reminders import SENDING, Reminder
from db.models.suggestions import Suggestion, SuggestionVolunteer, SuggestionVote

SENDING_NOW = (
    "A reminder to you is being sent right now, so nothing was deleted: press *Delete my data* again in a "
    "minute or two."
)


@dataclass(frozen=True)
class Overview:
    """How much of each kind the store holds of a member, per server: ``counts[kind key][guild id]``."""

    user_id: int
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


async def overview(session: AsyncSession, who: Who) -> Overview:
    """What the store holds of the member in ``who``'s servers: every kind counted in one statement."""
    parts = [
        select(literal(kind.key).label("kind"), counted.c.guild, counted.c.n)
        for kind in MEMBER_KINDS
        for counted in (statement.subquery() for statement in _member(kind).counting(who))
    ]
    counts: dict[str, dict[int, int]] = {kind.key: {} for kind in MEMBER_KINDS}
    for key, guild, n in (await session.execute(union_all(*parts))).all():
        per = counts[key]
        per[int(guild)] = per.get(int(guild), 0) + int(n)
    return Overview(who.user_id, counts)


@dataclass(frozen=True)
class Deletion:
    """What deleting a member's data did, by kind key; the servers it touched and what must follow."""

    erased: dict[str, Erased]
    follow: frozenset[Follow] = field(default_factory=frozenset)

    @property
    def servers(self) -> set[int]:
        """The servers where anything changed."""
        return {f.guild_id for f in self.follow}

    @property
    def nothing(self) -> bool:
        """Nothing was there to delete (or keep)."""
        return not any(e.count or e.kept for e in self.erased.values())


async def erase_member(session: AsyncSession, who: Who, now: datetime) -> Deletion:
    """Delete every kind of the member's data in ``who``'s servers, in the caller's one transaction: refused
    while a reminder to them is being sent; their suggestions locked first, in the vote writer's order."""
    await _refuse_while_sending(session, who, now)
    await _lock_suggestions(session, who)
    erased: dict[str, Erased] = {}
    follow: set[Follow] = set()
    for kind in MEMBER_KINDS:
        done = await _member(kind).erase(session, who, now)
        erased[kind.key] = done
        follow |= done.follow
    return Deletion(erased, frozenset(follow))


async def _refuse_while_sending(session: AsyncSession, who: Who, now: datetime) -> None:
    """Lock the member's reminders; Conflict if one is claimed by a runner whose lease still runs (its DM
    may be about to go: deleting it now could not stop that)."""
    rows = (
        await session.execute(
            select(Reminder.id, Reminder.status, Reminder.claimed_at)
            .where(Reminder.user_id == who.user_id, who.within(Reminder.guild_id))
            .order_by(Reminder.id)
            .with_for_update()
        )
    ).all()
    if any(
        r.status == SENDING and r.claimed_at is not None and r.claimed_at > now - SENDING_LEASE for r in rows
    ):
        raise Conflict(SENDING_NOW)


async def _lock_suggestions(session: AsyncSession, who: Who) -> None:
    """Lock the suggestions the member is on in id order, as the vote writer (suggestions/votes.py) takes
    them: a vote on the same rows waits for the deletion, or it for the vote."""
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
                "rows": await _member(kind).export(session, who),
            }
            for kind in MEMBER_KINDS
        ],
    }


def _member(kind: Kind) -> MemberData:
    assert kind.member is not None  # MEMBER_KINDS holds only kinds with one
    return kind.member
