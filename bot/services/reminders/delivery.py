"""The store side of sending one reminder: claiming its row, rendering it, and recording how the send ended.

Every state change is one conditional UPDATE checked by its row count, so a reminder goes out at most
once even when two runners (two processes on one PostgreSQL store, or a timer that fires twice) race:

    pending --claim--> sending --> sent | failed | pending (retry after backoff)
    pending --------------------> missed (fell due while the bot was down, beyond the grace period)
    pending --------------------> cancelled (by an organizer, or its session was cancelled)

Finding the work (what is due, stale claims, repeats) is in :mod:`bot.services.reminders.queue`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from bot.services.reminders.queue import missed_reason, plan_next_occurrence, set_if
from bot.services.reminders.texts import (
    PaperLink,
    SessionFacts,
    custom_text,
    personal_text,
    presenter_text,
    recap_text,
    session_channel_text,
)
from bot.services.setup.config import GuildConfig, get_config
from db.models import ClubSession
from db.models.reminders import (
    CANCELLED,
    CUSTOM,
    FAILED,
    MISSED,
    PENDING,
    PERSONAL,
    PRESENTER,
    RECAP,
    SENDING,
    SENT,
    SESSION,
    Reminder,
)

log = logging.getLogger("paperclub.reminders")

MAX_ATTEMPTS = 5
BACKOFF_BASE = timedelta(seconds=30)
BACKOFF_CAP = timedelta(minutes=15)
DELAYED_AFTER = timedelta(minutes=1)  # later than this (because the bot was down) shows "(delayed)"
ERROR_LIMIT = 300


@dataclass(frozen=True)
class Outgoing:
    """A claimed reminder, ready to send. Exactly one of ``channel_id`` and ``user_id`` is set."""

    reminder_id: int
    claim_token: str
    nonce: str
    guild_id: int
    channel_id: int | None
    user_id: int | None
    content: str
    ping_role_id: int | None
    attempt: int
    repeats: bool = False
    due_at: datetime | None = None  # the occurrence's time (for the runner's lateness metric)


def reminder_nonce(row: Reminder) -> str:
    """Derived from the reminder and its occurrence, so every retry of one occurrence uses the same nonce."""
    nonce = f"pc-rem-{row.display_id}-{row.occurrence}"
    return nonce if len(nonce) <= 25 else f"pc-r{row.id}"


def backoff(attempt: int) -> timedelta:
    """30 s, 1 min, 2 min, 4 min, … capped at 15 min."""
    return min(BACKOFF_BASE * (2 ** max(0, attempt - 1)), BACKOFF_CAP)


def _clip(text: str) -> str:
    return text if len(text) <= ERROR_LIMIT else text[: ERROR_LIMIT - 1] + "…"


# ---------------------------------------------------------------- claiming and rendering


async def claim(
    session: AsyncSession,
    row_id: int,
    *,
    token: str,
    now: datetime,
    late_origin: datetime,
    grace: timedelta,
) -> Outgoing | None:
    """Claim one due reminder and render it; None when it is not ours to send (any more).

    ``late_origin`` is when the runner last looked: a reminder due before then fell due while nobody was
    watching (the bot was down), and the grace rule applies to how long before.
    """
    pending_now = [Reminder.status == PENDING, Reminder.id == row_id, Reminder.next_attempt_at <= now]
    in_grace = or_(Reminder.attempts > 0, Reminder.due_at >= late_origin - grace)
    claim_it = (
        update(Reminder)
        .where(*pending_now, in_grace)
        .values(
            status=SENDING,
            claim_token=token,
            claimed_at=now,
            attempts=Reminder.attempts + 1,
            delayed=or_(Reminder.delayed, Reminder.due_at < late_origin - DELAYED_AFTER),
            updated_at=now,
        )
        .returning(Reminder)
        .execution_options(populate_existing=True)
    )
    row = (await session.execute(claim_it)).scalars().first()
    if row is None:
        await _mark_missed(session, row_id, pending_now, late_origin=late_origin, grace=grace, now=now)
        return None
    config = await get_config(session, row.guild_id)
    facts, session_status = await _session_facts(session, row.session_id)
    refusal = _refusal(row, config, session_status)
    if refusal is not None:
        status, reason = refusal
        await set_if(
            session,
            row_id,
            [Reminder.claim_token == token],
            status=status,
            last_error=reason,
            claim_token=None,
        )
        log.info("reminder=%s %s: %s", row_id, status, reason)
        return None
    content = _render(row, config, facts, row.delayed)
    channel_id = config.announcements_channel_id if row.kind == SESSION else row.channel_id
    return Outgoing(
        reminder_id=row.id,
        claim_token=token,
        nonce=reminder_nonce(row),
        guild_id=row.guild_id,
        channel_id=None if row.user_id is not None else channel_id,
        user_id=row.user_id,
        content=content,
        ping_role_id=config.ping_role_id if row.kind == SESSION else None,
        attempt=row.attempts,
        repeats=row.repeat is not None,
        due_at=row.due_at,
    )


async def _mark_missed(
    session: AsyncSession,
    row_id: int,
    pending_now: list[Any],
    *,
    late_origin: datetime,
    grace: timedelta,
    now: datetime,
) -> None:
    """A first attempt that fell due more than ``grace`` before the bot came back: missed, not sent."""
    beyond_grace = [Reminder.attempts == 0, Reminder.due_at < late_origin - grace]
    if await set_if(
        session,
        row_id,
        pending_now + beyond_grace,
        status=MISSED,
        last_error=missed_reason(grace),
        updated_at=now,
    ):
        log.info("reminder=%s missed: fell due while the bot was down", row_id)
        await plan_next_occurrence(session, row_id, now)


def _refusal(row: Reminder, config: GuildConfig, session_status: str | None) -> tuple[str, str] | None:
    """Why this claimed reminder must not go out, as (final status, reason), or None."""
    if row.session_id is None and row.kind != CUSTOM:
        return CANCELLED, "Its session was deleted."
    if row.session_id is not None and session_status != "scheduled":
        return CANCELLED, "Its session was cancelled."
    if row.kind == SESSION and config.announcements_channel_id is None:
        return FAILED, "No announcements channel is set (an admin can set one with /setup announcements)."
    if row.user_id is None and row.kind != SESSION and row.channel_id is None:
        return FAILED, "The reminder has no channel."
    return None


def _render(row: Reminder, config: GuildConfig, facts: SessionFacts | None, delayed: bool) -> str:
    zones = config.display_zones
    if row.kind == CUSTOM or facts is None:
        return custom_text(row.message or "", facts, zones, delayed=delayed)
    if row.kind == SESSION:
        largest = max(config.reminder_offsets, default=timedelta(0))
        with_papers = row.offset_minutes is not None and timedelta(minutes=row.offset_minutes) >= min(
            largest, timedelta(hours=24)
        )
        return session_channel_text(
            facts, zones, ping_role_id=config.ping_role_id, with_papers=with_papers, delayed=delayed
        )
    if row.kind == PERSONAL:
        return personal_text(facts, zones, delayed=delayed)
    if row.kind == PRESENTER:
        return presenter_text(facts, zones, delayed=delayed)
    if row.kind == RECAP:
        return recap_text(facts, session_ref=f"#{facts.id}", delayed=delayed)
    return custom_text(row.message or "", facts, zones, delayed=delayed)


async def _session_facts(
    session: AsyncSession, session_id: int | None
) -> tuple[SessionFacts | None, str | None]:
    if session_id is None:
        return None, None
    club = (
        await session.execute(
            select(ClubSession).where(ClubSession.id == session_id).options(selectinload(ClubSession.papers))
        )
    ).scalar_one_or_none()
    if club is None:
        return None, None
    facts = SessionFacts(
        id=club.id,
        title=club.title,
        starts_at=club.starts_at,
        ends_at=club.starts_at + timedelta(minutes=club.duration_minutes),
        signup_url=club.signup_url,
        presenter_name=club.presenter_name,
        papers=tuple(PaperLink(link.paper.title, link.paper.url) for link in club.papers),
    )
    return facts, club.status


# ---------------------------------------------------------------- how a send ended


async def finish_sent(
    session: AsyncSession,
    row_id: int,
    *,
    token: str,
    now: datetime,
    message_id: int | None,
    repeats: bool = True,
) -> bool:
    done = await set_if(
        session,
        row_id,
        [Reminder.status == SENDING, Reminder.claim_token == token],
        status=SENT,
        sent_at=now,
        sent_message_id=message_id,
        last_error=None,
        claim_token=None,
        updated_at=now,
    )
    if done and repeats:
        await plan_next_occurrence(session, row_id, now)
    elif not done:
        log.warning(
            "reminder=%s was sent but its claim had been taken over (the nonce prevents a repeat)", row_id
        )
    return done


async def finish_failed(
    session: AsyncSession, row_id: int, *, token: str, now: datetime, reason: str
) -> bool:
    done = await set_if(
        session,
        row_id,
        [Reminder.status == SENDING, Reminder.claim_token == token],
        status=FAILED,
        last_error=_clip(reason),
        claim_token=None,
        updated_at=now,
    )
    if done:
        await plan_next_occurrence(session, row_id, now)
    return done


async def finish_retry(
    session: AsyncSession, row_id: int, *, token: str, now: datetime, error: str, attempt: int
) -> datetime | None:
    """Put the row back for another try after a backoff; after MAX_ATTEMPTS it fails. Returns the next try."""
    if attempt >= MAX_ATTEMPTS:
        await finish_failed(
            session, row_id, token=token, now=now, reason=f"Gave up after {attempt} attempts: {error}"
        )
        return None
    next_try = now + backoff(attempt)
    done = await set_if(
        session,
        row_id,
        [Reminder.status == SENDING, Reminder.claim_token == token],
        status=PENDING,
        next_attempt_at=next_try,
        last_error=_clip(f"Attempt {attempt} failed: {error}"),
        claim_token=None,
        updated_at=now,
    )
    return next_try if done else None
