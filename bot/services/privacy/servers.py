"""What the ``privacy.lifetimes`` job deletes: records past their lifetime, servers left past the grace."""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import ColumnElement, Table, delete, func, literal, or_, select, union
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.services.reading.search import SAVED_QUERY_DAYS
from db.base import Base, insert_ignore
from db.models import ClubSession
from db.models.core import Claim, GuildDeparture, JobRun
from db.models.reading import ReadingSearchQuery
from db.models.reminders import FINAL_STATUSES, Reminder
from db.models.sessions import RecordingOptOut, SessionQuestion

log = logging.getLogger("paperclub.privacy")

CHUNK = 500  # ids in one IN (…)


def guild_tables() -> list[Table]:
    """Every table holding a server's rows, children before parents (the order deleting takes)."""
    return [t for t in reversed(Base.metadata.sorted_tables) if "guild_id" in t.c]


def _children() -> list[tuple[Table, Any, Table]]:
    """(table, column, parent) for each table without a server column whose rows cascade from one with it."""
    found = []
    for table in reversed(Base.metadata.sorted_tables):
        if "guild_id" in table.c:
            continue
        for key in table.foreign_keys:
            parent, cascades = key.column.table, (key.ondelete or "").upper() == "CASCADE"
            if cascades and isinstance(parent, Table) and "guild_id" in parent.c:
                found.append((table, key.parent, parent))
                break
    return found


async def holdings(session: AsyncSession, guild_id: int) -> dict[str, int]:
    """How many rows the store holds of the server, by table (tables with none left out)."""
    counted: dict[str, int] = {}
    wheres = [(table, table.c.guild_id == guild_id) for table in guild_tables()]
    for table, column, parent in _children():
        wheres.append(
            (table, column.in_(select(parent.primary_key.columns[0]).where(parent.c.guild_id == guild_id)))
        )
    for table, where in wheres:
        if n := await session.scalar(select(func.count()).select_from(table).where(where)):
            counted[table.name] = int(n)
    return counted


async def delete_server(session: AsyncSession, guild_id: int) -> dict[str, int]:
    """Delete every row of the server, in the caller's transaction; rows deleted by table (children too)."""
    counted = await holdings(session, guild_id)
    for table in guild_tables():
        if table.name in counted:
            await session.execute(delete(table).where(table.c.guild_id == guild_id))
    return counted


async def known_servers(session: AsyncSession) -> set[int]:
    """Every server the store holds anything of (departures aside)."""
    parts = [
        select(table.c.guild_id.label("guild_id")).distinct()
        for table in guild_tables()
        if table.name != GuildDeparture.__tablename__
    ]
    return {int(g) for g in await session.scalars(union(*parts))}


async def mark_left(session: AsyncSession, guild_id: int, now: datetime) -> None:
    """The bot was removed from the server now (an earlier mark stands: its grace began then)."""
    await session.execute(insert_ignore(session, GuildDeparture, {"guild_id": guild_id, "left_at": now}))


async def mark_back(session: AsyncSession, guild_ids: Collection[int]) -> int:
    """The bot is in these servers (again): whatever they hold is kept. How many had been marked left."""
    back = 0
    wanted = sorted(set(guild_ids))
    for start in range(0, len(wanted), CHUNK):
        result = await session.execute(
            delete(GuildDeparture).where(GuildDeparture.guild_id.in_(wanted[start : start + CHUNK]))
        )
        back += int(getattr(result, "rowcount", 0) or 0)
    return back


async def departed(session: AsyncSession) -> dict[int, datetime]:
    """The servers marked left, and when."""
    rows = await session.execute(select(GuildDeparture.guild_id, GuildDeparture.left_at))
    return {int(g): left for g, left in rows.all()}


async def delete_departed(
    session_factory: async_sessionmaker[AsyncSession], now: datetime, grace: timedelta
) -> dict[int, dict[str, int]]:
    """Delete each server left more than ``grace`` ago (and not rejoined), one transaction each."""
    past = GuildDeparture.left_at <= now - grace
    async with session_factory() as session:
        due = sorted(await session.scalars(select(GuildDeparture.guild_id).where(past)))
    gone: dict[int, dict[str, int]] = {}
    for guild_id in due:
        async with session_factory() as session, session.begin():
            still = await session.scalar(  # locked: the bot's rejoining meanwhile waits, then finds it gone
                select(literal(1)).where(GuildDeparture.guild_id == guild_id, past).with_for_update()
            )
            if still is None:
                continue
            gone[guild_id] = await delete_server(session, guild_id)
        log.info("guild %s: its data deleted, %d days after the bot left", guild_id, grace.days)
    return gone


REMINDER_DAYS: Final = 30  # a reminder that went out (or failed, was missed or cancelled): then deleted
JOB_DAYS: Final = 30  # a job no process has run for this long is gone (renamed or removed): its row too
CLAIM_DAYS: Final = 1  # a claim this long past its expiry holds nothing (an expired claim is free)
SEARCH_DAYS: Final = SAVED_QUERY_DAYS  # a search's text, kept for its page buttons (the reading feature's)
SESSION_NOTES_DAYS: Final = 7  # recording opt-outs and questions: kept while the recording is edited
BATCH: Final = 5000  # rows deleted per transaction (a short hold of SQLite's write lock)

# What is past its lifetime at ``now`` (given this process's job names): a model, and the condition on its rows.
Expiry = Callable[[datetime, Collection[str]], tuple[type[Any], ColumnElement[bool]]]


def ended_reminders(now: datetime, _running: Collection[str]) -> tuple[type[Any], ColumnElement[bool]]:
    """Final reminders due over :data:`REMINDER_DAYS` ago whose session (if any) started before then too
    (the planners only look at slots still to come)."""
    cutoff = now - timedelta(days=REMINDER_DAYS)
    started = select(ClubSession.id).where(ClubSession.starts_at < cutoff)
    return Reminder, (
        Reminder.status.in_(FINAL_STATUSES)
        & (Reminder.due_at < cutoff)
        & or_(Reminder.session_id.is_(None), Reminder.session_id.in_(started))
    )


def idle_jobs(now: datetime, running: Collection[str]) -> tuple[type[Any], ColumnElement[bool]]:
    """A ``once`` job's row not claimed for :data:`JOB_DAYS` (no process runs it) and not this process's."""
    cutoff = now - timedelta(days=JOB_DAYS)
    return JobRun, (
        JobRun.lease_owner.is_(None) & (JobRun.next_run_at < cutoff) & JobRun.name.not_in(sorted(running))
    )


def expired_claims(now: datetime, _running: Collection[str]) -> tuple[type[Any], ColumnElement[bool]]:
    """Claims over :data:`CLAIM_DAYS` past their expiry."""
    return Claim, Claim.expires_at < now - timedelta(days=CLAIM_DAYS)


def old_searches(now: datetime, _running: Collection[str]) -> tuple[type[Any], ColumnElement[bool]]:
    """Saved searches over :data:`SEARCH_DAYS` old."""
    return ReadingSearchQuery, ReadingSearchQuery.created_at < now - timedelta(days=SEARCH_DAYS)


def _session_notes(model: type[RecordingOptOut | SessionQuestion]) -> Expiry:
    """A session's rows of ``model``, :data:`SESSION_NOTES_DAYS` after the session (it lasts at most 12 hours)."""

    def expiry(now: datetime, _running: Collection[str]) -> tuple[type[Any], ColumnElement[bool]]:
        ended = select(ClubSession.id).where(
            ClubSession.starts_at < now - timedelta(days=SESSION_NOTES_DAYS, hours=12)
        )
        return model, model.session_id.in_(ended)

    return expiry


old_opt_outs, old_questions = _session_notes(RecordingOptOut), _session_notes(SessionQuestion)


async def expire(
    session_factory: async_sessionmaker[AsyncSession],
    expiries: Collection[Expiry],
    now: datetime,
    *,
    running: Collection[str] = (),
) -> dict[str, int]:
    """Delete whatever is past its lifetime, ``BATCH`` rows per transaction; rows deleted by table."""
    deleted: dict[str, int] = {}
    for expiry in expiries:
        model, condition = expiry(now, running)
        (key,) = model.__table__.primary_key.columns
        chosen = select(key).where(condition).limit(BATCH).scalar_subquery()
        count = BATCH
        while count == BATCH:
            async with session_factory() as session, session.begin():
                result = await session.execute(
                    delete(model).where(key.in_(chosen)).execution_options(synchronize_session=False)
                )
            count = int(getattr(result, "rowcount", 0) or 0)
            deleted[model.__tablename__] = deleted.get(model.__tablename__, 0) + count
    return deleted
