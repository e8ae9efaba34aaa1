"""The store side of sending one reminder: claiming its row, rendering it, and recording how the send ended.

Every state change is a conditional UPDATE checked by the rows it matched, so a reminder goes out at most
once even when two runners (two processes on one PostgreSQL store, or a timer that fires twice) race. A
burst is claimed and recorded in batches: one UPDATE … RETURNING claims many due rows (on PostgreSQL the
candidates are locked ``FOR UPDATE SKIP LOCKED``, so two runners claiming at once take different rows
instead of waiting on each other), and one UPDATE records many sends:

    pending --claim--> sending --> sent | failed | pending (retry after backoff)
    pending --------------------> missed (fell due while the bot was down, beyond the grace period)
    pending --------------------> cancelled (by an organizer, or its session was cancelled)

Finding the work (what is due, stale claims, repeats) is in :mod:`bot.services.reminders.queue`.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import Table, bindparam, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from bot.services.reminders.queue import missed_reason, plan_next_occurrence, set_if
from bot.services.reminders.texts import (
    PaperLink,
    SessionFacts,
    custom_text,
    nudge_text,
    personal_text,
    presenter_text,
    recap_text,
    session_channel_text,
)
from bot.services.setup.config import GuildConfig, get_config
from bot.timeutil import DisplayZone
from db.models import ClubSession
from db.models.reminders import (
    CANCELLED,
    CUSTOM,
    FAILED,
    MISSED,
    NUDGE,
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


@dataclass(frozen=True)
class ClaimedRow:
    """What sending a claimed reminder needs of its row (read back by the claim's RETURNING)."""

    id: int
    guild_id: int
    kind: str
    channel_id: int | None
    user_id: int | None
    message: str | None
    session_id: int | None
    offset_minutes: int | None
    repeat: str | None
    series_id: int | None
    occurrence: int
    attempts: int
    delayed: bool
    due_at: datetime
    plan_key: str | None  # a nudge's week and kind (series:<id>:<date>:presenter|paper)

    @property
    def display_id(self) -> int:
        return self.series_id or self.id


_CLAIMED_COLUMNS = [cast(Table, Reminder.__table__).c[f.name] for f in dataclasses.fields(ClaimedRow)]


def reminder_nonce(row: Reminder | ClaimedRow) -> str:
    """Derived from the reminder and its occurrence, so every retry of one occurrence uses the same nonce."""
    nonce = f"pc-rem-{row.display_id}-{row.occurrence}"
    return nonce if len(nonce) <= 25 else f"pc-r{row.id}"


def backoff(attempt: int) -> timedelta:
    """30 s, 1 min, 2 min, 4 min, … capped at 15 min."""
    return min(BACKOFF_BASE * (2 ** max(0, attempt - 1)), BACKOFF_CAP)


def _clip(text: str) -> str:
    return text if len(text) <= ERROR_LIMIT else text[: ERROR_LIMIT - 1] + "…"


# ---------------------------------------------------------------- claiming and rendering

_REMINDERS = cast(Table, Reminder.__table__)
CHUNK = 500  # rows per statement (bound parameters stay far below SQLite's and asyncpg's limits)


def _chunks(items: Sequence[Any], size: int = CHUNK) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


async def claim(
    session: AsyncSession,
    row_id: int,
    *,
    token: str,
    now: datetime,
    late_origin: datetime,
    grace: timedelta,
) -> Outgoing | None:
    """Claim one due reminder and render it; None when it is not ours to send (any more)."""
    claimed = await claim_many(session, [row_id], token=token, now=now, late_origin=late_origin, grace=grace)
    return claimed.get(row_id)


async def claim_many(
    session: AsyncSession,
    row_ids: Sequence[int],
    *,
    token: str,
    now: datetime,
    late_origin: datetime,
    grace: timedelta,
) -> dict[int, Outgoing]:
    """Claim these due reminders with one token and render them: the ones that are ours to send, by id.

    ``late_origin`` is when the runner last looked: a reminder due before then fell due while nobody was
    watching (the bot was down), and the grace rule applies to how long before. A row another runner has
    (or had) claimed is left out; a first attempt beyond the grace period is marked missed; a claimed row
    that must not go out (its session was cancelled, no channel) gets its final status here.
    """
    pending_now = [Reminder.status == PENDING, Reminder.next_attempt_at <= now]
    in_grace = or_(Reminder.attempts > 0, Reminder.due_at >= late_origin - grace)
    rows: list[ClaimedRow] = []
    for ids in _chunks(sorted(set(row_ids))):
        locked = await _lock_candidates(session, ids, pending_now)
        if not locked:
            continue
        claim_them = (  # Core RETURNING of plain columns: no ORM objects to build for a burst
            update(_REMINDERS)
            .where(Reminder.id.in_(locked), *pending_now, in_grace)
            .values(
                status=SENDING,
                claim_token=token,
                claimed_at=now,
                attempts=Reminder.attempts + 1,
                delayed=or_(Reminder.delayed, Reminder.due_at < late_origin - DELAYED_AFTER),
                updated_at=now,
            )
            .returning(*_CLAIMED_COLUMNS)
        )
        rows.extend(ClaimedRow(*row) for row in await session.execute(claim_them))
    claimed_ids = {row.id for row in rows}
    unclaimed = [i for i in row_ids if i not in claimed_ids]
    if unclaimed:
        await _mark_missed(session, unclaimed, pending_now, late_origin=late_origin, grace=grace, now=now)
    configs = {g: await get_config(session, g) for g in sorted({row.guild_id for row in rows})}
    zones = {g: config.display_zones for g, config in configs.items()}  # parsed once per guild
    facts = await _session_facts(session, {row.session_id for row in rows if row.session_id is not None})
    out: dict[int, Outgoing] = {}
    for row in sorted(rows, key=lambda r: r.id):
        config = configs[row.guild_id]
        found = facts.get(row.session_id) if row.session_id is not None else None
        row_facts, session_status = found if found is not None else (None, None)
        refusal = _refusal(row, config, session_status)
        if refusal is not None:
            status, reason = refusal
            await set_if(
                session,
                row.id,
                [Reminder.claim_token == token],
                status=status,
                last_error=reason,
                claim_token=None,
            )
            log.info("reminder=%s %s: %s", row.id, status, reason)
            continue
        channel_id = config.announcements_channel_id if row.kind == SESSION else row.channel_id
        out[row.id] = Outgoing(
            reminder_id=row.id,
            claim_token=token,
            nonce=reminder_nonce(row),
            guild_id=row.guild_id,
            channel_id=None if row.user_id is not None else channel_id,
            user_id=row.user_id,
            content=_render(row, config, zones[row.guild_id], row_facts, row.delayed),
            ping_role_id=config.ping_role_id if row.kind == SESSION else None,
            attempt=row.attempts,
            repeats=row.repeat is not None,
            due_at=row.due_at,
        )
    return out


async def _lock_candidates(session: AsyncSession, ids: Sequence[int], where: list[Any]) -> list[int]:
    """Of these rows, the ones still matching ``where``, locked for this transaction. On PostgreSQL rows
    another runner is claiming right now are skipped (``FOR UPDATE SKIP LOCKED``) instead of waited for;
    SQLite takes one writer at a time anyway. A statement of its own, so the UPDATE that follows is a
    plain one over a list of ids, planned well even before the table has statistics (a freshly
    written burst): locking inside the UPDATE made PostgreSQL re-run the locking query per row."""
    candidates = select(Reminder.id).where(Reminder.id.in_(ids), *where).with_for_update(skip_locked=True)
    return list((await session.execute(candidates)).scalars().all())


async def prepare(session: AsyncSession, now: datetime) -> None:
    """Run the claim and record statements once over no rows, so SQLAlchemy has compiled them (and the
    ORM set up what they load) before a burst falls due: the first claim of a burst is then as quick as
    the others (about 100 ms sooner on a cold process)."""
    await claim_many(session, [0], token="", now=now, late_origin=now, grace=timedelta(0))
    await finish_sent(session, [], now=now, prepare=True)


async def _mark_missed(
    session: AsyncSession,
    row_ids: Sequence[int],
    pending_now: list[Any],
    *,
    late_origin: datetime,
    grace: timedelta,
    now: datetime,
) -> None:
    """First attempts that fell due more than ``grace`` before the bot came back: missed, not sent."""
    beyond_grace = [Reminder.attempts == 0, Reminder.due_at < late_origin - grace]
    for ids in _chunks(sorted(row_ids)):
        locked = await _lock_candidates(session, ids, pending_now + beyond_grace)
        if not locked:
            continue
        statement = (
            update(Reminder)
            .where(Reminder.id.in_(locked), *pending_now, *beyond_grace)
            .values(status=MISSED, last_error=missed_reason(grace), updated_at=now)
            .returning(Reminder.id)
            .execution_options(synchronize_session=False)
        )
        for row_id in (await session.execute(statement)).scalars().all():
            log.info("reminder=%s missed: fell due while the bot was down", row_id)
            await plan_next_occurrence(session, row_id, now)


def _refusal(row: ClaimedRow, config: GuildConfig, session_status: str | None) -> tuple[str, str] | None:
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


def _render(
    row: ClaimedRow, config: GuildConfig, zones: list[DisplayZone], facts: SessionFacts | None, delayed: bool
) -> str:
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
    if row.kind == NUDGE:
        return nudge_text(row.plan_key or "", row.message or "", facts, zones, delayed=delayed)
    return custom_text(row.message or "", facts, zones, delayed=delayed)


async def _session_facts(session: AsyncSession, session_ids: set[int]) -> dict[int, tuple[SessionFacts, str]]:
    """The facts reminders show of these sessions, and each one's status, by id (missing: deleted)."""
    if not session_ids:
        return {}
    clubs = (
        await session.execute(
            select(ClubSession)
            .where(ClubSession.id.in_(sorted(session_ids)))
            .options(selectinload(ClubSession.papers))
        )
    ).scalars()
    out: dict[int, tuple[SessionFacts, str]] = {}
    for club in clubs:
        facts = SessionFacts(
            id=club.id,
            title=club.title,
            starts_at=club.starts_at,
            ends_at=club.starts_at + timedelta(minutes=club.duration_minutes),
            signup_url=club.signup_url,
            presenter_name=club.presenter_name,
            papers=tuple(PaperLink(link.paper.title, link.paper.url) for link in club.papers),
        )
        out[club.id] = (facts, club.status)
    return out


# ---------------------------------------------------------------- how a send ended


@dataclass(frozen=True)
class Sent:
    """A send that went out: which claim, the message Discord made, and when."""

    reminder_id: int
    claim_token: str
    message_id: int | None
    sent_at: datetime
    repeats: bool = False


_DETAILS = (  # a Core statement: executemany, not the ORM's bulk update by primary key
    update(_REMINDERS)
    .where(_REMINDERS.c.id == bindparam("row_id"))
    .values(sent_at=bindparam("b_at"), sent_message_id=bindparam("b_message"))
)


async def finish_sent(
    session: AsyncSession, sends: Sequence[Sent], *, now: datetime, prepare: bool = False
) -> set[int]:
    """Record sends that went out; returns the ids recorded. One conditional UPDATE … RETURNING per claim
    token (and per CHUNK) moves the rows still claimed by that token to ``sent``; their message ids and send
    times follow in one executemany. A send whose claim had been taken over meanwhile is not recorded (its
    nonce prevented a repeat)."""
    by_token: dict[str, list[int]] = defaultdict(list)
    for sent in sends:
        by_token[sent.claim_token].append(sent.reminder_id)
    if prepare:  # see prepare(): both statements, over no rows
        by_token[""] = [0]
    recorded: set[int] = set()
    for token, ids in by_token.items():
        for chunk in _chunks(ids):
            statement = (
                update(Reminder)
                .where(Reminder.id.in_(chunk), Reminder.status == SENDING, Reminder.claim_token == token)
                .values(status=SENT, sent_at=now, last_error=None, claim_token=None, updated_at=now)
                .returning(Reminder.id)
                .execution_options(synchronize_session=False)
            )
            recorded.update((await session.execute(statement)).scalars().all())
    details = [
        {"row_id": s.reminder_id, "b_at": s.sent_at, "b_message": s.message_id}
        for s in sends
        if s.reminder_id in recorded
    ]
    if details or prepare:
        await session.execute(_DETAILS, details or [{"row_id": 0, "b_at": now, "b_message": None}])
    for sent in sends:
        if sent.reminder_id not in recorded:
            log.warning(
                "reminder=%s was sent but its claim had been taken over (the nonce prevents a repeat)",
                sent.reminder_id,
            )
        elif sent.repeats:
            await plan_next_occurrence(session, sent.reminder_id, now)
    return recorded


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
