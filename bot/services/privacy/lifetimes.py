"""The lifetimes of what records sends and work (reminders that ended, a job's row, claims, saved searches,
session notes): each deleted once past its lifetime, a batch per transaction, by the ``privacy.lifetimes`` job."""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import ColumnElement, delete, or_, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.services.reading.search import SAVED_QUERY_DAYS
from db.models import ClubSession
from db.models.jobs import Claim, JobRun
from db.models.reading import ReadingSearchQuery
from db.models.reminders import FINAL_STATUSES, Reminder
from db.models.session_members import RecordingOptOut, SessionQuestion

REMINDER_DAYS: Final = 30  # a reminder that went out (or failed, was missed or cancelled): then deleted
JOB_DAYS: Final = 30  # a job no process has run for this long is gone (renamed or removed): its row too
CLAIM_DAYS: Final = 1  # a claim this long past its expiry holds nothing (an expired claim is free)
SEARCH_DAYS: Final = SAVED_QUERY_DAYS  # a search's text, kept for its page buttons (the reading feature's)
SESSION_NOTES_DAYS: Final = 7  # recording opt-outs and questions: kept while the recording is edited
BATCH: Final = 5000  # rows deleted per transaction (a short hold of SQLite's write lock)

Expiry = Callable[[datetime, Collection[str]], tuple[type[Any], ColumnElement[bool]]]
"""What is past its lifetime at ``now`` (given this process's job names): a model, and the condition on its rows."""


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


def _over(days: int, now: datetime) -> Any:
    """The sessions that ended over ``days`` ago (a session lasts at most 10 hours: 12 are allowed)."""
    return select(ClubSession.id).where(ClubSession.starts_at < now - timedelta(days=days, hours=12))


def old_opt_outs(now: datetime, _running: Collection[str]) -> tuple[type[Any], ColumnElement[bool]]:
    """Recording opt-outs of sessions over :data:`SESSION_NOTES_DAYS` past."""
    return RecordingOptOut, RecordingOptOut.session_id.in_(_over(SESSION_NOTES_DAYS, now))


def old_questions(now: datetime, _running: Collection[str]) -> tuple[type[Any], ColumnElement[bool]]:
    """Questions of sessions over :data:`SESSION_NOTES_DAYS` past."""
    return SessionQuestion, SessionQuestion.session_id.in_(_over(SESSION_NOTES_DAYS, now))


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
