"""The store side of sending reminders: claim due rows, render them, record how the sends ended
(pending → sending → sent | failed | pending again after a backoff; pending → missed | cancelled)."""

from __future__ import annotations

import dataclasses
import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import Table, bindparam, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload
from sqlalchemy.sql import ColumnElement

from bot.claims import claim_due
from bot.services.config.guild import GuildConfig, get_config
from bot.services.reminders.presenter import PresenterNotes, notes_for
from bot.services.reminders.queue import plan_next_occurrence, set_if
from bot.services.reminders.requested import VIA_COMMAND
from bot.services.reminders.texts import (
    ASKED_BUTTON,
    ASKED_COMMAND,
    ASKED_INTERESTED,
    Asked,
    PaperLink,
    SessionFacts,
    custom_text,
    nudge_lines,
    nudge_text,
    personal_text,
    presenter_text,
    recap_text,
    recording_text,
    session_channel_text,
)
from bot.text import cut
from bot.timeutil import DisplayZone
from db.models import ClubSession, SessionSubscription
from db.models.reminders import (
    CANCELLED,
    CUSTOM,
    FAILED,
    NUDGE,
    PENDING,
    PERSONAL,
    PRESENTER,
    RECAP,
    RECORDING,
    SENDING,
    SENT,
    SESSION,
    Reminder,
)

log = logging.getLogger("paperclub.reminders")

BATCH = 250  # rows claimed at once at most: their sends end well inside the claim's lease at 50/s
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
    due_at: datetime | None = None  # the occurrence's time (for the lateness metric)
    form_session_id: int | None = None  # the presenter's DM after the session: its *Add the recording* form


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
        """The number members see: the series' first id."""
        return self.series_id or self.id


_REMINDERS = cast(Table, Reminder.__table__)
_CLAIMED_COLUMNS = [_REMINDERS.c[f.name] for f in dataclasses.fields(ClaimedRow)]


def reminder_nonce(row: Reminder | ClaimedRow) -> str:
    """Derived from the reminder and its occurrence, so every retry of one occurrence uses the same nonce."""
    nonce = f"pc-rem-{row.display_id}-{row.occurrence}"
    return nonce if len(nonce) <= 25 else f"pc-r{row.id}"


def backoff(attempt: int) -> timedelta:
    """30 s, 1 min, 2 min, 4 min, … capped at 15 min."""
    return min(BACKOFF_BASE * (2 ** max(0, attempt - 1)), BACKOFF_CAP)


# ---------------------------------------------------------------- claiming and rendering


def _destination() -> ColumnElement[int]:
    """Where a row's send goes: its member's DMs, its channel, or (session reminders) the guild's
    announcements channel. Snowflakes are unique across users, channels and guilds."""
    return func.coalesce(Reminder.user_id, Reminder.channel_id, Reminder.guild_id)


async def claim(
    session: AsyncSession, *, token: str, now: datetime, late_origin: datetime, limit: int = BATCH
) -> tuple[int, list[Outgoing]]:
    """Claim with ``token`` the due reminders at the head of their destinations and render them: (rows
    claimed, those to send). One that must not go out ends here; one due before ``late_origin`` is delayed."""
    due = [Reminder.status == PENDING, Reminder.next_attempt_at <= now]
    order = (Reminder.next_attempt_at, Reminder.id)
    ranked = (
        select(
            Reminder.id, func.row_number().over(partition_by=_destination(), order_by=order).label("place")
        )
        .where(*due)
        .subquery()
    )
    rows = await claim_due(
        session,
        Reminder,
        due=due,
        among=Reminder.id.in_(select(ranked.c.id).where(ranked.c.place == 1)),
        values={
            "status": SENDING,
            "claim_token": token,
            "claimed_at": now,
            "attempts": Reminder.attempts + 1,
            "delayed": or_(Reminder.delayed, Reminder.due_at < late_origin - DELAYED_AFTER),
            "updated_at": now,
        },
        returning=_CLAIMED_COLUMNS,
        order_by=order,
        limit=limit,
    )
    claimed = [ClaimedRow(*row) for row in rows]
    configs = {g: await get_config(session, g) for g in sorted({row.guild_id for row in claimed})}
    zones = {g: config.display_zones for g, config in configs.items()}  # parsed once per guild
    facts = await _session_facts(session, {r.session_id for r in claimed if r.session_id is not None})
    how = await _how_asked(session, [r for r in claimed if r.kind == PERSONAL])
    out: list[Outgoing] = []
    for row in sorted(claimed, key=lambda r: r.id):
        config = configs[row.guild_id]
        found = facts.get(row.session_id) if row.session_id is not None else None
        row_facts, session_status = found if found is not None else (None, None)
        refusal = _refusal(row, config, session_status, row_facts)
        notes: PresenterNotes | None = None
        if refusal is None and row.kind == PRESENTER and row.session_id is not None:
            notes = await notes_for(session, row.guild_id, row.session_id, row.plan_key)
            if notes is None:
                refusal = CANCELLED, "Nothing new for the presenter."
        if refusal is None and row.kind == RECORDING and (row_facts is None or not row_facts.recording_url):
            refusal = CANCELLED, "The session has no recording."
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
        out.append(
            Outgoing(
                reminder_id=row.id,
                claim_token=token,
                nonce=reminder_nonce(row),
                guild_id=row.guild_id,
                channel_id=None if row.user_id is not None else channel_id,
                user_id=row.user_id,
                content=_render(
                    row,
                    config,
                    zones[row.guild_id],
                    row_facts,
                    row.delayed,
                    how.get((row.session_id, row.user_id), ASKED_BUTTON),
                    notes,
                ),
                ping_role_id=config.ping_role_id if row.kind == SESSION else None,
                attempt=row.attempts,
                repeats=row.repeat is not None,
                due_at=row.due_at,
                form_session_id=row.session_id if row.kind == RECAP else None,
            )
        )
    return len(claimed), out


def _refusal(
    row: ClaimedRow, config: GuildConfig, session_status: str | None, facts: SessionFacts | None
) -> tuple[str, str] | None:
    """Why this claimed reminder must not go out, as (final status, reason), or None."""
    if row.session_id is None and row.kind != CUSTOM:
        return CANCELLED, "Its session was deleted."
    if row.session_id is not None and session_status != "scheduled":
        return CANCELLED, "Its session was cancelled."
    if row.kind == SESSION and config.announcements_channel_id is None:
        return FAILED, "No announcements channel is set (an admin can set one with /setup announcements)."
    if row.user_id is None and row.kind != SESSION and row.channel_id is None:
        return FAILED, "The reminder has no channel."
    if (
        row.kind == NUDGE
        and facts is not None
        and not nudge_lines(row.plan_key or "", row.message or "", facts)
    ):
        return CANCELLED, "No longer needed: the week has a presenter and a paper now."
    return None


def _render(
    row: ClaimedRow,
    config: GuildConfig,
    zones: list[DisplayZone],
    facts: SessionFacts | None,
    delayed: bool,
    how: str = "button",
    notes: PresenterNotes | None = None,
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
        return personal_text(facts, zones, how=how, delayed=delayed)
    if row.kind == PRESENTER:
        notes = notes or PresenterNotes((), ())
        asked = [Asked(q.name, q.text) for q in notes.questions]
        return presenter_text(
            facts, zones, names=notes.names, questions=asked, new=notes.new, delayed=delayed
        )
    if row.kind == RECAP:
        return recap_text(facts, delayed=delayed)
    if row.kind == RECORDING and facts.recording_url:
        return recording_text(facts, facts.recording_url, delayed=delayed)
    if row.kind == NUDGE:
        return nudge_text(
            nudge_lines(row.plan_key or "", row.message or "", facts), facts, zones, delayed=delayed
        )
    return custom_text(row.message or "", facts, zones, delayed=delayed)


async def _how_asked(
    session: AsyncSession, rows: list[ClaimedRow]
) -> dict[tuple[int | None, int | None], str]:
    """How each (session, member) of these DMs asked: the button, /remind me, or Interested alone."""
    sessions = sorted({row.session_id for row in rows if row.session_id is not None})
    if not sessions:
        return {}
    found = await session.execute(
        select(
            SessionSubscription.session_id,
            SessionSubscription.user_id,
            SessionSubscription.asked,
            SessionSubscription.via,
        ).where(SessionSubscription.session_id.in_(sessions))
    )
    return {
        (session_id, user_id): (ASKED_COMMAND if via == VIA_COMMAND else ASKED_BUTTON)
        if asked
        else ASKED_INTERESTED
        for session_id, user_id, asked, via in found.all()
    }


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
            presenter_id=club.presenter_id,
            papers=tuple(PaperLink(link.paper.title, link.paper.url) for link in club.papers),
            recording_url=club.recording_url,
        )
        out[club.id] = (facts, club.status)
    return out


# ---------------------------------------------------------------- how sends ended


class SendError(Exception):
    """A send that did not go out. ``retryable``: worth another try after a backoff."""

    def __init__(self, reason: str, *, retryable: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retryable = retryable


@dataclass(frozen=True)
class Sent:
    """A send that went out: which claim, the message Discord made, and when."""

    reminder_id: int
    claim_token: str
    message_id: int | None
    sent_at: datetime
    repeats: bool = False


@dataclass(frozen=True)
class Outcome:
    """How one claimed send ended: ``sent`` if it went out, else ``error``."""

    outgoing: Outgoing
    sent: Sent | None = None
    error: SendError | None = None


async def record(
    session: AsyncSession, outcomes: Sequence[Outcome], now: datetime
) -> tuple[set[int], dict[int, datetime | None]]:
    """Write how these sends ended: the ids recorded as sent, and each failure's next try (or None).
    A row whose claim was taken back meanwhile (its lease ran out) is in neither."""
    sends = [o.sent for o in outcomes if o.sent is not None]
    recorded = await finish_sent(session, sends, now=now) if sends else set()
    retries: dict[int, datetime | None] = {}
    for failure in outcomes:
        outgoing, error = failure.outgoing, failure.error
        if error is None:
            continue
        if error.retryable:
            retries[outgoing.reminder_id] = await finish_retry(
                session,
                outgoing.reminder_id,
                token=outgoing.claim_token,
                now=now,
                error=error.reason,
                attempt=outgoing.attempt,
            )
        else:
            await finish_failed(
                session, outgoing.reminder_id, token=outgoing.claim_token, now=now, reason=error.reason
            )
            retries[outgoing.reminder_id] = None
    return recorded, retries


_DETAILS = (  # a Core statement: executemany, not the ORM's bulk update by primary key
    update(_REMINDERS)
    .where(_REMINDERS.c.id == bindparam("row_id"))
    .values(sent_at=bindparam("b_at"), sent_message_id=bindparam("b_message"))
)


async def finish_sent(session: AsyncSession, sends: Sequence[Sent], *, now: datetime) -> set[int]:
    """Record the sends that went out, if still claimed by their token; the ids recorded."""
    by_token: dict[str, list[int]] = defaultdict(list)
    for sent in sends:
        by_token[sent.claim_token].append(sent.reminder_id)
    recorded: set[int] = set()
    for token, ids in by_token.items():
        statement = (
            update(_REMINDERS)
            .where(_REMINDERS.c.id.in_(ids), Reminder.status == SENDING, Reminder.claim_token == token)
            .values(status=SENT, sent_at=now, last_error=None, claim_token=None, updated_at=now)
            .returning(_REMINDERS.c.id)
        )
        recorded.update((await session.execute(statement)).scalars().all())
    details = [
        {"row_id": s.reminder_id, "b_at": s.sent_at, "b_message": s.message_id}
        for s in sends
        if s.reminder_id in recorded
    ]
    if details:
        await session.execute(_DETAILS, details)
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
    """Fail a claimed row for good (a repeating reminder's next occurrence is planned)."""
    done = await set_if(
        session,
        row_id,
        [Reminder.status == SENDING, Reminder.claim_token == token],
        status=FAILED,
        last_error=cut(reason, ERROR_LIMIT),
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
        last_error=cut(f"Attempt {attempt} failed: {error}", ERROR_LIMIT),
        claim_token=None,
        updated_at=now,
    )
    return next_try if done else None
