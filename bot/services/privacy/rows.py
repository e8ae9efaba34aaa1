"""A member's rows of one table: counted per server, exported, and deleted or cleared of the member's id
(:class:`Rows`); several such as one kind (:class:`Several`). The kinds of bot/services/privacy/kinds.py
are built from these, so a new kind of member data is one entry there."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Final, Protocol

from sqlalchemy import ColumnElement, Select, delete, func, inspect, select, true, union_all, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

#: What on Discord shows a changed row, so it can follow (cogs/privacy/_follow.py).
SUGGESTION: Final = "suggestion"  # the suggestion's post (its votes, offers, who suggested and reviewed it)
SUBSCRIPTION: Final = "subscription"  # a Remind me on a session (its count, its planned DMs)
SESSION: Final = "session"  # the session's announcement, event and series week (its presenter)


@dataclass(frozen=True)
class Who:
    """Whose data, and where: the servers ``guild_ids``, or (None) every server the store holds it in."""

    user_id: int
    guild_ids: frozenset[int] | None = None

    def within(self, guild: ColumnElement[Any] | InstrumentedAttribute[Any]) -> ColumnElement[bool]:
        """The condition that a row's server is one of ours."""
        return true() if self.guild_ids is None else guild.in_(sorted(self.guild_ids))


@dataclass(frozen=True, order=True)
class Follow:
    """One thing on Discord to bring in line after a deletion: ``what`` (above) of ``id`` in a server."""

    what: str
    guild_id: int
    id: int


@dataclass
class Erased:
    """What deleting one kind did: rows removed or cleared, rows kept on purpose (and why it is for the
    kind to say), and what on Discord must follow."""

    count: int = 0
    kept: int = 0
    follow: set[Follow] = field(default_factory=set)

    def __iadd__(self, other: Erased) -> Erased:
        self.count += other.count
        self.kept += other.kept
        self.follow |= other.follow
        return self


class MemberData(Protocol):
    """How one kind finds, exports and deletes a member's data (in the caller's transaction)."""

    def counting(self, who: Who) -> list[Select[Any]]:
        """Statements of (``guild``, ``n``) rows: how many, per server (summed across them)."""

    async def export(self, session: AsyncSession, who: Who) -> list[dict[str, Any]]:
        """Every row, as JSON values."""

    async def erase(self, session: AsyncSession, who: Who, now: datetime) -> Erased:
        """Delete (or clear the member's id from) every row."""


async def count(session: AsyncSession, statements: list[Select[Any]]) -> dict[int, int]:
    """Run counting statements (of ``guild``, ``n``) as one: how many per server, summed."""
    total: dict[int, int] = {}
    if not statements:
        return total
    parts = [s.subquery() for s in statements]
    both = union_all(*(select(p.c.guild, p.c.n) for p in parts)) if len(parts) > 1 else statements[0]
    for guild, n in (await session.execute(both)).all():
        total[int(guild)] = total.get(int(guild), 0) + int(n)
    return total


def as_json(value: Any) -> Any:
    """A column's value as JSON holds it (times in ISO 8601, UTC)."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    return value


@dataclass(frozen=True)
class Rows:
    """The rows of ``model`` whose ``member`` column holds the member's id, in the member's servers: the
    model's own ``guild_id``, or its parent's, reached through ``via`` (the column here that holds the
    parent's id, and the parent model, which has ``id`` and ``guild_id``).

    Deleting removes the rows; with ``clear`` it sets those columns instead (the rows stay, for the club).
    ``only`` narrows the rows; rows matching ``keep`` are counted but left as they are (``Erased.kept``).
    ``follow`` names what shows each changed row on Discord: (one of the kinds above, the column holding
    that thing's id: the parent's id column through ``via``, or one of the model's)."""

    model: type[Any]
    member: InstrumentedAttribute[Any]
    via: tuple[InstrumentedAttribute[Any], type[Any]] | None = None
    clear: Mapping[str, Any] | None = None
    only: ColumnElement[bool] | None = None
    keep: ColumnElement[bool] | None = None
    follow: tuple[str, InstrumentedAttribute[Any]] | None = None

    @property
    def guild(self) -> InstrumentedAttribute[Any]:
        """The server column (the model's, or its parent's)."""
        owner = self.model if self.via is None else self.via[1]
        column: InstrumentedAttribute[Any] = owner.guild_id
        return column

    def _scope(self, who: Who) -> list[ColumnElement[bool]]:
        """The member's rows, of the member's servers, narrowed by ``only``."""
        where = [self.member == who.user_id]
        if who.guild_ids is not None:
            if self.via is None:
                where.append(who.within(self.guild))
            else:
                column, parent = self.via
                where.append(column.in_(select(parent.id).where(who.within(parent.guild_id))))
        if self.only is not None:
            where.append(self.only)
        return where

    def _joined(self, statement: Select[Any]) -> Select[Any]:
        if self.via is None:
            return statement.select_from(self.model)
        column, parent = self.via
        return statement.select_from(self.model).join(parent, column == parent.id)

    def counting(self, who: Who) -> list[Select[Any]]:
        """How many rows, per server."""
        return [
            self._joined(select(self.guild.label("guild"), func.count().label("n")))
            .where(*self._scope(who), who.within(self.guild))
            .group_by(self.guild)
        ]

    async def export(self, session: AsyncSession, who: Who) -> list[dict[str, Any]]:
        """Each row's table and columns (with ``clear``: which of them name the member; the rest is the
        club's)."""
        mapper = inspect(self.model)
        keys = [getattr(self.model, c.key) for c in mapper.primary_key]
        found = await session.scalars(select(self.model).where(*self._scope(who)).order_by(*keys))
        named = {"names_you": sorted(self.clear)} if self.clear is not None else {}
        return [
            {
                "table": mapper.local_table.name,
                **{c.key: as_json(getattr(row, c.key)) for c in mapper.columns},
                **named,
            }
            for row in found
        ]

    async def erase(self, session: AsyncSession, who: Who, now: datetime) -> Erased:
        """Delete the rows (or clear them); what follows on Discord, read by RETURNING."""
        scope = self._scope(who)
        erased = Erased()
        if self.keep is not None:
            erased.kept = int(
                await session.scalar(select(func.count()).select_from(self.model).where(*scope, self.keep))
                or 0
            )
            scope = [*scope, ~self.keep]
        statement = (
            delete(self.model).where(*scope)
            if self.clear is None
            else update(self.model).where(*scope).values(dict(self.clear))
        )
        statement = statement.execution_options(synchronize_session=False)
        if self.follow is None:
            result = await session.execute(statement)
            erased.count = int(getattr(result, "rowcount", 0) or 0)
            return erased
        what, column = self.follow
        if self.via is None:  # the row has its server: read back with the thing's id
            returned = (await session.execute(statement.returning(column, self.model.guild_id))).all()
            guilds = {int(thing): int(guild) for thing, guild in returned if thing is not None}
        else:  # the parent's: looked up after
            returned = (await session.execute(statement.returning(column))).all()
            guilds = await guilds_of(
                session, self.via[1], (thing for (thing,) in returned if thing is not None)
            )
        erased.count = len(returned)
        erased.follow = {Follow(what, guild, thing) for thing, guild in guilds.items()}
        return erased


async def guilds_of(session: AsyncSession, model: type[Any], ids: Iterable[int]) -> dict[int, int]:
    """The server of each of these rows of ``model`` (by ``id``)."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    rows = await session.execute(select(model.id, model.guild_id).where(model.id.in_(wanted)))
    return {int(i): int(g) for i, g in rows.all()}


@dataclass(frozen=True)
class Several:
    """One kind kept in several places (each a :class:`Rows`), counted, exported and deleted together."""

    parts: Sequence[Rows]

    def counting(self, who: Who) -> list[Select[Any]]:
        """How many rows, per server, in each place."""
        return [statement for part in self.parts for statement in part.counting(who)]

    async def export(self, session: AsyncSession, who: Who) -> list[dict[str, Any]]:
        """Every place's rows, one after the other."""
        return [row for part in self.parts for row in await part.export(session, who)]

    async def erase(self, session: AsyncSession, who: Who, now: datetime) -> Erased:
        """Each place in turn."""
        erased = Erased()
        for part in self.parts:
            erased += await part.erase(session, who, now)
        return erased
