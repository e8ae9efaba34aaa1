"""A member's rows, counted per server, exported, and deleted or cleared of the member's id."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Final, cast

from sqlalchemy import ColumnElement, Select, delete, func, inspect, select, true, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from db.models import ClubSession
from db.models.core import SiteSettings

#: What on Discord shows a changed row, so it can follow.
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
    """What deleting one kind did: rows removed or cleared, rows kept on purpose, what on Discord must follow."""

    count: int = 0
    kept: int = 0
    follow: set[Follow] = field(default_factory=set)

    def __iadd__(self, other: Erased) -> Erased:
        self.count += other.count
        self.kept += other.kept
        self.follow |= other.follow
        return self


def as_json(value: Any) -> Any:
    """A column's value as JSON holds it (times in ISO 8601, UTC)."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    return value


@dataclass(frozen=True)
class Rows:
    """The rows whose ``member`` column holds the member's id, in the member's servers (the model's
    ``guild_id``, or through ``via``: (column holding the parent's id, parent model)). ``clear``: set these
    columns instead of deleting; ``only`` narrows the rows; ``keep``: counted but left as they are;
    ``follow``: what shows a changed row on Discord (its id: the parent's, or the row's)."""

    member: InstrumentedAttribute[Any]
    via: tuple[InstrumentedAttribute[Any], type[Any]] | None = None
    clear: Mapping[str, Any] | None = None
    only: ColumnElement[bool] | None = None
    keep: ColumnElement[bool] | None = None
    follow: str | None = None

    @property
    def model(self) -> type[Any]:
        """The member column's model."""
        return cast(type[Any], self.member.class_)

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

    def counting(self, who: Who) -> Select[Any]:
        """How many rows, per server (``guild``, ``n``)."""
        return (
            self._joined(select(self.guild.label("guild"), func.count().label("n")))
            .where(*self._scope(who), who.within(self.guild))
            .group_by(self.guild)
        )

    async def export(self, session: AsyncSession, who: Who) -> list[dict[str, Any]]:
        """Each row's table and columns (with ``clear``: which of them name the member)."""
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
        what, column = self.follow, self.model.id if self.via is None else self.via[0]
        if self.via is None:  # the row has its server: read back with the thing's id
            returned = (await session.execute(statement.returning(column, self.model.guild_id))).all()
            guilds = {int(thing): int(guild) for thing, guild in returned if thing is not None}
        else:  # the parent's: looked up after
            returned = (await session.execute(statement.returning(column))).all()
            parent, ids = self.via[1], sorted({int(thing) for (thing,) in returned if thing is not None})
            found = await session.execute(select(parent.id, parent.guild_id).where(parent.id.in_(ids)))
            guilds = {int(thing): int(guild) for thing, guild in found.all()}
        erased.count = len(returned)
        erased.follow = {Follow(what, guild, thing) for thing, guild in guilds.items()}
        return erased


async def public_guilds(session: AsyncSession, guild_ids: set[int]) -> set[int]:
    """Which of these servers show their sessions, with their presenters, on a club page (website on)."""
    if not guild_ids:
        return set()
    rows = await session.scalars(
        select(SiteSettings.guild_id).where(
            SiteSettings.guild_id.in_(sorted(guild_ids)),
            SiteSettings.enabled.is_(True),
            SiteSettings.slug.is_not(None),
        )
    )
    return {int(g) for g in rows}


class PresenterHistory:
    """The sessions the member presents or presented: deleting drops the name unless a club page shows it."""

    def _scope(self, who: Who) -> list[Any]:
        return [ClubSession.presenter_id == who.user_id, who.within(ClubSession.guild_id)]

    def counting(self, who: Who) -> Select[Any]:
        """How many sessions, per server (``guild``, ``n``)."""
        return (
            select(ClubSession.guild_id.label("guild"), func.count().label("n"))
            .where(*self._scope(who))
            .group_by(ClubSession.guild_id)
        )

    async def export(self, session: AsyncSession, who: Who) -> list[dict[str, Any]]:
        """Each session: its id, title, time, status, the name shown, and whether a club page shows it."""
        columns = ("id", "guild_id", "title", "starts_at", "status", "presenter_name")
        query = select(*(getattr(ClubSession, name) for name in columns)).where(*self._scope(who))
        rows = (await session.execute(query.order_by(ClubSession.starts_at, ClubSession.id))).all()
        public = await public_guilds(session, {int(r.guild_id) for r in rows})
        return [
            {
                "table": "sessions",
                **r._asdict(),
                "starts_at": as_json(r.starts_at),
                "on_the_club_page": r.guild_id in public,
            }
            for r in rows
        ]

    async def erase(self, session: AsyncSession, who: Who, now: datetime) -> Erased:
        """Drop the member as presenter of every session no club page shows; count the ones left."""
        found = await session.execute(self.counting(who))
        counts = {int(guild): int(n) for guild, n in found.all()}
        public = await public_guilds(session, set(counts))
        erased = Erased(kept=sum(n for g, n in counts.items() if g in public))
        hidden = sorted(set(counts) - public)
        if not hidden:
            return erased
        changed = (
            await session.execute(
                update(ClubSession)
                .where(*self._scope(who), ClubSession.guild_id.in_(hidden))
                .values(
                    presenter_id=None,
                    presenter_name=None,
                    sequence=ClubSession.sequence + 1,  # calendar apps take the change
                    updated_at=now,
                )
                .returning(ClubSession.id, ClubSession.guild_id)
                .execution_options(synchronize_session=False)
            )
        ).all()
        erased.count = len(changed)
        erased.follow = {Follow(SESSION, int(g), int(i)) for i, g in changed}
        return erased
