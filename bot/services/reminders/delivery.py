"""Claiming due reminders, rendering them, and recording how their sends ended."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import Table, bindparam, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from bot.claims import claim_due
from bot.services.config.guild import GuildConfig, get_config
from bot.services.reminders import texts
from bot.services.reminders.queue import plan_next_occurrence, set_if
from bot.services.reminders.requested import VIA_COMMAND
from bot.services.reminders.texts import PresenterNotes, SessionFacts
from bot.services.sessions.members import kept_out_since, names_kept_out, questions
from bot.text import cut
from bot.timeutil import DisplayZone
from db.base import from_row
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
START_KEY = "presenter:start"  # the presenter's DM at the start: only what is new
QUESTIONS_KEY = "presenter:questions"  # the presenter's DM a day before: only when members left notes


@dataclass(frozen=True)
class Outgoing:
    """A claimed reminder, ready to send (exactly one of ``channel_id`` and ``user_id`` set)."""

    reminder_id: int
    claim_token: str
    nonce: str
    guild_id: int
    channel_id: int | None
    user_id: int | None
    content: str
    ping_role_id: int | None
    attempt: int
    due_at: datetime  # the occurrence's time (for the lateness metric)
    form_session_id: int | None = None  # the presenter's DM after the session: its *Add the recording* form


_REMINDERS = cast(Table, Reminder.__table__)


def reminder_nonce(row: Reminder) -> str:
    """Derived from the reminder and its occurrence, so every retry of one occurrence uses the same nonce."""
    nonce = f"pc-rem-{row.display_id}-{row.occurrence}"
    return nonce if len(nonce) <= 25 else f"pc-r{row.id}"


def backoff(attempt: int) -> timedelta:
    """30 s, 1 min, 2 min, 4 min, … capped at 15 min."""
    return min(BACKOFF_BASE * (2 ** max(0, attempt - 1)), BACKOFF_CAP)


async def notes_for(
    session: AsyncSession, guild_id: int, session_id: int, plan_key: str | None
) -> PresenterNotes | None:
    """The notes of one presenter DM (None: the day's or the start's DM, with nothing to tell)."""
    names = tuple(await names_kept_out(session, guild_id, session_id))
    last: datetime | None = None
    if plan_key == START_KEY:
        last = await session.scalar(
            select(func.max(Reminder.sent_at)).where(
                Reminder.session_id == session_id, Reminder.kind == PRESENTER, Reminder.status == SENT
            )
        )
    if last is None:
        notes = PresenterNotes(names, tuple(await questions(session, session_id)))
        empty = not notes.names and not notes.questions
        return None if empty and plan_key in (START_KEY, QUESTIONS_KEY) else notes
    news = tuple(await questions(session, session_id, since=last))
    names_changed = await kept_out_since(session, guild_id, session_id, last)
    if not news and not names_changed:
        return None
    return PresenterNotes(names if names_changed else (), news, new=True)


async def claim(
    session: AsyncSession, *, token: str, now: datetime, late_origin: datetime, limit: int = BATCH
) -> tuple[int, list[Outgoing]]:
    """Claim with ``token`` the due reminders at the head of their destinations (a member's DMs, a channel,
    or the announcements channel: snowflakes never collide) and render them: (rows claimed, those to send)."""
    due = [Reminder.status == PENDING, Reminder.next_attempt_at <= now]
    order = (Reminder.next_attempt_at, Reminder.id)
    destination = func.coalesce(Reminder.user_id, Reminder.channel_id, Reminder.guild_id)
    ranked = (
        select(Reminder.id, func.row_number().over(partition_by=destination, order_by=order).label("place"))
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
        returning=[Reminder.id],
        order_by=order,
        limit=limit,
    )
    if not rows:
        return 0, []
    mine = select(Reminder).where(Reminder.id.in_([row.id for row in rows])).order_by(Reminder.id)
    claimed = (await session.scalars(mine.execution_options(populate_existing=True))).all()
    configs = {g: await get_config(session, g) for g in sorted({row.guild_id for row in claimed})}
    zones = {g: config.display_zones for g, config in configs.items()}  # parsed once per guild
    facts = await _session_facts(session, {r.session_id for r in claimed if r.session_id is not None})
    how = await _how_asked(session, [r for r in claimed if r.kind == PERSONAL])
    still_ours = [Reminder.claim_token == token]
    out: list[Outgoing] = []
    for row in claimed:
        config = configs[row.guild_id]
        row_facts, session_status = facts.get(row.session_id or 0, (None, None))
        refusal = _refusal(row, config, session_status, row_facts)
        notes: PresenterNotes | None = None
        if refusal is None and row.kind == PRESENTER and row.session_id:
            notes = await notes_for(session, row.guild_id, row.session_id, row.plan_key)
            if notes is None:
                refusal = CANCELLED, "Nothing new for the presenter."
        if refusal is not None:
            status, reason = refusal
            await set_if(session, row.id, still_ours, status=status, last_error=reason, claim_token=None)
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
                content=_render(row, config, zones[row.guild_id], row_facts, how, notes),
                ping_role_id=config.ping_role_id if row.kind == SESSION else None,
                attempt=row.attempts,
                due_at=row.due_at,
                form_session_id=row.session_id if row.kind == RECAP else None,
            )
        )
    return len(claimed), out


def _refusal(
    row: Reminder, config: GuildConfig, session_status: str | None, facts: SessionFacts | None
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
    if row.kind == RECORDING and (facts is None or not facts.recording_url):
        return CANCELLED, "The session has no recording."
    if (
        row.kind == NUDGE
        and facts is not None
        and not texts.nudge_lines(row.plan_key or "", row.message or "", facts)
    ):
        return CANCELLED, "No longer needed: the week has a presenter and a paper now."
    return None


def _render(
    row: Reminder,
    config: GuildConfig,
    zones: list[DisplayZone],
    facts: SessionFacts | None,
    how: dict[tuple[int | None, int | None], str],
    notes: PresenterNotes | None,
) -> str:
    delayed = row.delayed
    if row.kind == CUSTOM or facts is None:
        return texts.custom_text(row.message or "", facts, zones, delayed=delayed)
    if row.kind == SESSION:
        largest = max(config.reminder_offsets, default=timedelta(0))
        with_papers = row.offset_minutes is not None and timedelta(minutes=row.offset_minutes) >= min(
            largest, timedelta(hours=24)
        )
        return texts.session_channel_text(
            facts, zones, ping_role_id=config.ping_role_id, with_papers=with_papers, delayed=delayed
        )
    if row.kind == PERSONAL:
        way = how.get((row.session_id, row.user_id), texts.ASKED_BUTTON)
        return texts.personal_text(facts, zones, how=way, delayed=delayed)
    if row.kind == PRESENTER and notes is not None:  # claim() refuses a presenter DM without notes
        return texts.presenter_text(facts, zones, notes, delayed=delayed)
    if row.kind == RECAP:
        return texts.recap_text(facts, delayed=delayed)
    if row.kind == RECORDING and facts.recording_url:
        return texts.recording_text(facts, facts.recording_url, delayed=delayed)
    if row.kind == NUDGE:
        return texts.nudge_text(
            texts.nudge_lines(row.plan_key or "", row.message or "", facts), facts, zones, delayed=delayed
        )
    return texts.custom_text(row.message or "", facts, zones, delayed=delayed)


async def _how_asked(session: AsyncSession, rows: list[Reminder]) -> dict[tuple[int | None, int | None], str]:
    """How each (session, member) of these DMs asked: the button, /remind me, or Interested alone."""
    sessions = sorted({row.session_id for row in rows if row.session_id is not None})
    if not sessions:
        return {}
    found = await session.scalars(
        select(SessionSubscription).where(SessionSubscription.session_id.in_(sessions))
    )
    return {
        (sub.session_id, sub.user_id): (texts.ASKED_COMMAND if sub.via == VIA_COMMAND else texts.ASKED_BUTTON)
        if sub.asked
        else texts.ASKED_INTERESTED
        for sub in found
    }


async def _session_facts(session: AsyncSession, session_ids: set[int]) -> dict[int, tuple[SessionFacts, str]]:
    """The facts reminders show of these sessions, and each one's status, by id (missing: deleted)."""
    if not session_ids:
        return {}
    wanted = select(ClubSession).where(ClubSession.id.in_(sorted(session_ids)))
    clubs = await session.scalars(wanted.options(selectinload(ClubSession.papers)))
    out: dict[int, tuple[SessionFacts, str]] = {}
    for club in clubs:
        found: dict[str, Any] = {
            "ends_at": club.starts_at + timedelta(minutes=club.duration_minutes),
            "papers": tuple(texts.PaperLink(link.paper.title, link.paper.url) for link in club.papers),
        }
        out[club.id] = (from_row(SessionFacts, club, **found), club.status)
    return out


class SendError(Exception):
    """A send that did not go out; ``retryable``: worth another try after a backoff."""

    def __init__(self, reason: str, *, retryable: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retryable = retryable


@dataclass(frozen=True)
class Outcome:
    """How one claimed send ended, and when: ``message_id`` the message it made, or ``error``."""

    outgoing: Outgoing
    at: datetime
    message_id: int | None = None
    error: SendError | None = None


async def record(
    session: AsyncSession, outcomes: Sequence[Outcome], now: datetime
) -> tuple[set[int], dict[int, datetime | None]]:
    """Write how these sends ended: the ids recorded as sent, and each failure's next try (None: failed for
    good, or its claim was taken back meanwhile). After MAX_ATTEMPTS a retryable failure fails."""
    sends = [o for o in outcomes if o.error is None]
    recorded = await finish_sent(session, sends, now=now) if sends else set()
    retries: dict[int, datetime | None] = {}
    for one in outcomes:
        outgoing, error = one.outgoing, one.error
        if error is None:
            continue
        row_id, attempt = outgoing.reminder_id, outgoing.attempt
        same_claim = [Reminder.status == SENDING, Reminder.claim_token == outgoing.claim_token]
        if error.retryable and attempt < MAX_ATTEMPTS:
            next_try: datetime | None = now + backoff(attempt)
            values = {"status": PENDING, "next_attempt_at": next_try}
            reason = f"Attempt {attempt} failed: {error.reason}"
        else:
            next_try, values = None, {"status": FAILED}
            reason = f"Gave up after {attempt} attempts: {error.reason}" if error.retryable else error.reason
        values.update(last_error=cut(reason, ERROR_LIMIT), claim_token=None, updated_at=now)
        done = await set_if(session, row_id, same_claim, **values)
        retries[row_id] = next_try if done else None
        if done and next_try is None:
            await plan_next_occurrence(session, row_id, now)  # a repeating reminder's next occurrence
    return recorded, retries


_DETAILS = (  # a Core statement: executemany, not the ORM's bulk update by primary key
    update(_REMINDERS)
    .where(_REMINDERS.c.id == bindparam("row_id"))
    .values(sent_at=bindparam("b_at"), sent_message_id=bindparam("b_message"))
)


async def finish_sent(session: AsyncSession, sends: Sequence[Outcome], *, now: datetime) -> set[int]:
    """Record the sends that went out, if still claimed by their token; the ids recorded."""
    by_token: dict[str, list[int]] = defaultdict(list)
    for sent in sends:
        by_token[sent.outgoing.claim_token].append(sent.outgoing.reminder_id)
    recorded: set[int] = set()
    repeating: list[int] = []
    for token, ids in by_token.items():
        statement = (
            update(_REMINDERS)
            .where(_REMINDERS.c.id.in_(ids), Reminder.status == SENDING, Reminder.claim_token == token)
            .values(status=SENT, sent_at=now, last_error=None, claim_token=None, updated_at=now)
            .returning(_REMINDERS.c.id, _REMINDERS.c.repeat)
        )
        for row_id, repeat in await session.execute(statement):
            recorded.add(row_id)
            if repeat is not None:
                repeating.append(row_id)
    details = [
        {"row_id": s.outgoing.reminder_id, "b_at": s.at, "b_message": s.message_id}
        for s in sends
        if s.outgoing.reminder_id in recorded
    ]
    if details:
        await session.execute(_DETAILS, details)
    for sent in sends:
        if sent.outgoing.reminder_id not in recorded:
            log.warning(
                "reminder=%s was sent but its claim had been taken over (the nonce prevents a repeat)",
                sent.outgoing.reminder_id,
            )
    for row_id in sorted(repeating):
        await plan_next_occurrence(session, row_id, now)
    return recorded
