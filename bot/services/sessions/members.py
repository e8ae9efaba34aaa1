"""What members do with a session: Remind me or Interested, Keep me out of the recording, questions."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.errors import BadInput, Conflict
from bot.services.sessions.events import SessionsContext
from bot.services.sessions.info import CANCELLED, SCHEDULED, SessionInfo
from bot.services.sessions.store import get_session, load_row
from bot.text import cut, visible
from db.models import ClubSession, SessionSubscription
from db.models.sessions import (
    MAX_NAME,
    MAX_QUESTION,
    RecordingOptOut,
    RecordingPreference,
    SessionQuestion,
)

log = logging.getLogger("paperclub.sessions")
Store = async_sessionmaker[AsyncSession]
DEFAULT_REMIND_BEFORE_MINUTES = 60
MAX_QUESTIONS_PER_MEMBER: Final = 5  # per session: enough to ask, too few to flood the presenter's DM
# What would ping if posted with mentions on (it never is): refused, so nobody expects a ping
_MENTIONS: Final = re.compile(r"<@[!&]?\d+>|@(?:everyone|here)\b")


@dataclass(frozen=True)
class RecordingChoice:
    """Whether the member stays out of this session's recording (``out``), and of every one (``always``)."""

    session_id: int
    title: str
    out: bool
    always: bool


@dataclass(frozen=True)
class Question:
    """A question as the presenter reads it: who asked (None: anonymous), the text, when."""

    name: str | None
    text: str
    asked_at: datetime


@dataclass(frozen=True)
class ForPresenter:
    """What the presenter gets of a session: the names kept out of the recording and the questions."""

    session_id: int
    title: str
    starts_at: datetime
    names: tuple[str, ...]
    questions: tuple[Question, ...]


@dataclass(frozen=True)
class Reminded:
    """A member's reminder of a session: asked for (Remind me, /remind me), Interested on its event, both."""

    asked: bool
    interested: bool

    @property
    def subscribed(self) -> bool:
        """Whether a DM comes before the session."""
        return self.asked or self.interested


async def _mark(
    session: AsyncSession, session_id: int, user_id: int, flag: str, on: bool, now: datetime
) -> bool:
    """Set or clear the member's ``asked`` or ``interested`` flag (the row goes with the last); if it did."""
    row = await session.get(SessionSubscription, (session_id, user_id))
    if row is None:
        if on:
            session.add(
                SessionSubscription(
                    session_id=session_id,
                    user_id=user_id,
                    before_minutes=DEFAULT_REMIND_BEFORE_MINUTES,
                    created_at=now,
                    asked=flag == "asked",
                    interested=flag == "interested",
                )
            )
        return on
    if getattr(row, flag) == on:
        return False
    setattr(row, flag, on)
    if not (row.asked or row.interested):
        await session.delete(row)
    return True


async def toggle_subscription(
    session: AsyncSession, guild_id: int, session_id: int, user_id: int, *, now: datetime
) -> Reminded:
    """Remind me pressed: the member's own reminder on, or off if it was on (a mark of Interested stays)."""
    row = await load_row(session, guild_id, session_id)
    existing = await session.get(SessionSubscription, (session_id, user_id))
    asked = existing is None or not existing.asked
    interested = existing is not None and existing.interested
    if asked and row.status == CANCELLED:
        raise Conflict("That session was cancelled, so there is nothing to remind you of.")
    if asked and row.starts_at <= now:
        raise Conflict("That session has already started.")
    await _mark(session, session_id, user_id, "asked", asked, now)
    await session.flush()
    return Reminded(asked=asked, interested=interested)


async def remind_me(
    ctx: SessionsContext, guild_id: int, session_id: int, user_id: int, now: datetime
) -> tuple[Reminded, SessionInfo]:
    """Remind me pressed: :func:`toggle_subscription`, and the session; the reminders feature hears it."""
    async with ctx.store() as session, session.begin():
        reminded = await toggle_subscription(session, guild_id, session_id, user_id, now=now)
        info = await get_session(session, guild_id, session_id)
    ctx.discord.dispatch("session_subscription_changed", guild_id, session_id, user_id, reminded.subscribed)
    return reminded, info


async def is_subscribed(session: AsyncSession, session_id: int, user_id: int) -> bool:
    """Whether the user asked to be reminded of the session."""
    return await session.get(SessionSubscription, (session_id, user_id)) is not None


async def interest_marked(
    ctx: SessionsContext, guild_id: int, event_id: int, user_id: int, interested: bool, now: datetime
) -> int | None:
    """A member marked (or unmarked) *Interested* on an event: the session it changed, or None."""
    async with ctx.store() as session, session.begin():
        session_id = await session.scalar(
            select(ClubSession.id).where(
                ClubSession.guild_id == guild_id,
                ClubSession.event_id == event_id,
                ClubSession.status == SCHEDULED,
                ClubSession.starts_at > now,
            )
        )
        if session_id is None or not await _mark(session, session_id, user_id, "interested", interested, now):
            return None
        await session.flush()
        subscribed = interested or bool(await session.get(SessionSubscription, (session_id, user_id)))
    ctx.discord.dispatch("session_subscription_changed", guild_id, session_id, user_id, subscribed)
    return session_id


async def catch_up_interest(ctx: SessionsContext, guild_id: int, now: datetime) -> int:
    """Bring the guild's Interested marks in line with their events' users; how many changed."""
    async with ctx.store() as session:
        coming = (
            await session.execute(
                select(ClubSession.id, ClubSession.event_id).where(
                    ClubSession.guild_id == guild_id,
                    ClubSession.status == SCHEDULED,
                    ClubSession.starts_at > now,
                    ClubSession.event_id.is_not(None),
                )
            )
        ).all()
    changed = 0
    for session_id, event_id in coming:
        users = await ctx.discord.event_users(guild_id, int(event_id))
        if users is None:
            continue  # the event is gone, or Discord refused: the marks stay as they were
        async with ctx.store() as session, session.begin():
            marked_now = set(
                await session.scalars(
                    select(SessionSubscription.user_id).where(
                        SessionSubscription.session_id == session_id, SessionSubscription.interested
                    )
                )
            )
            moves = [(user, True) for user in users - marked_now] + [
                (user, False) for user in marked_now - users
            ]
            for user_id, interested in moves:
                await _mark(session, session_id, user_id, "interested", interested, now)
        for user_id, interested in moves:
            ctx.discord.dispatch("session_subscription_changed", guild_id, session_id, user_id, interested)
        changed += len(moves)
    if changed:
        log.info("guild %s: %d Interested mark(s) caught up", guild_id, changed)
    return changed


def clean_name(name: str) -> str:
    """A display name as the presenter reads it (one line, within the column)."""
    return cut(" ".join(name.split()), MAX_NAME) or "a member"


async def _open_session(session: AsyncSession, guild_id: int, session_id: int, now: datetime) -> ClubSession:
    row = await load_row(session, guild_id, session_id)
    if row.status == CANCELLED:
        raise Conflict(f"Session #{session_id} was cancelled.")
    if row.starts_at <= now:
        raise Conflict(f"Session #{session_id} has already started.")
    return row


async def _choice(session: AsyncSession, guild_id: int, row: ClubSession, user_id: int) -> RecordingChoice:
    out = await session.scalar(
        select(RecordingOptOut.id).where(
            RecordingOptOut.session_id == row.id, RecordingOptOut.user_id == user_id
        )
    )
    always = await session.get(RecordingPreference, (guild_id, user_id))
    return RecordingChoice(row.id, row.title, out is not None, always is not None)


async def keep_out(
    factory: Store, guild_id: int, session_id: int, user_id: int, name: str, now: datetime
) -> RecordingChoice:
    """*Keep me out of the recording* pressed: on for this session, or off when it was on."""
    async with factory() as session, session.begin():
        row = await _open_session(session, guild_id, session_id, now)
        done = await session.execute(
            delete(RecordingOptOut).where(
                RecordingOptOut.session_id == session_id, RecordingOptOut.user_id == user_id
            )
        )
        if not getattr(done, "rowcount", 0):
            session.add(
                RecordingOptOut(session_id=session_id, user_id=user_id, name=clean_name(name), created_at=now)
            )
            await session.flush()
        return await _choice(session, guild_id, row, user_id)


async def keep_out_always(
    factory: Store, guild_id: int, session_id: int, user_id: int, name: str, now: datetime
) -> RecordingChoice:
    """*Always keep me out* pressed: the member's standing choice for the server on, or off when it was on."""
    async with factory() as session, session.begin():
        row = await load_row(session, guild_id, session_id)
        standing = await session.get(RecordingPreference, (guild_id, user_id))
        if standing is not None:
            await session.delete(standing)
        else:
            session.add(
                RecordingPreference(guild_id=guild_id, user_id=user_id, name=clean_name(name), created_at=now)
            )
        await session.flush()
        return await _choice(session, guild_id, row, user_id)


def clean_question(text: str) -> str:
    """The question as typed, checked: not empty, within the form's limit, nothing that looks like a ping."""
    text = text.strip()
    if not visible(text):
        raise BadInput("Write a question first.")
    if len(text) > MAX_QUESTION:
        raise BadInput(f"Keep the question within {MAX_QUESTION} characters (it has {len(text)}).")
    if _MENTIONS.search(text):
        raise BadInput(
            "Write names without @ mentions: the question goes to the presenter by DM, never pinging."
        )
    return text


async def ask(
    factory: Store,
    guild_id: int,
    session_id: int,
    user_id: int,
    *,
    text: str,
    name: str | None,
    now: datetime,
) -> str:
    """Store a member's question for the presenter (``name`` None: anonymous); the session's title."""
    question = clean_question(text)
    async with factory() as session, session.begin():
        row = await _open_session(session, guild_id, session_id, now)
        if row.presenter_id is None and not row.presenter_name:
            raise Conflict("This session has no presenter yet; ask again once it has one.")
        asked = await session.scalar(
            select(func.count()).where(
                SessionQuestion.session_id == session_id, SessionQuestion.user_id == user_id
            )
        )
        if (asked or 0) >= MAX_QUESTIONS_PER_MEMBER:
            raise Conflict(f"You have asked {MAX_QUESTIONS_PER_MEMBER} questions for this session already.")
        session.add(
            SessionQuestion(
                session_id=session_id,
                user_id=user_id,
                named=name is not None,
                name=clean_name(name) if name is not None else None,
                text=question,
                created_at=now,
            )
        )
        return row.title


async def names_kept_out(session: AsyncSession, guild_id: int, session_id: int) -> list[str]:
    """Who stays out of the session's recording: those who asked for it, and for every one, by name."""
    one = select(RecordingOptOut.user_id, RecordingOptOut.name).where(
        RecordingOptOut.session_id == session_id
    )
    every = select(RecordingPreference.user_id, RecordingPreference.name).where(
        RecordingPreference.guild_id == guild_id
    )
    names = {user_id: name for user_id, name in (await session.execute(every)).all()}
    names.update({user_id: name for user_id, name in (await session.execute(one)).all()})
    return sorted(names.values(), key=str.casefold)


async def kept_out_since(session: AsyncSession, guild_id: int, session_id: int, since: datetime) -> bool:
    """Whether anyone asked to stay out of the recording since ``since``."""
    newer = [
        select(RecordingOptOut.id).where(
            RecordingOptOut.session_id == session_id, RecordingOptOut.created_at >= since
        ),
        select(RecordingPreference.user_id).where(
            RecordingPreference.guild_id == guild_id, RecordingPreference.created_at >= since
        ),
    ]
    return any([(await session.scalar(query.limit(1))) is not None for query in newer])


async def has_notes(session: AsyncSession, guild_id: int, session_id: int) -> bool:
    """Whether the presenter has anything from members: a question, or a name to keep out of the recording."""
    found = [
        select(SessionQuestion.id).where(SessionQuestion.session_id == session_id),
        select(RecordingOptOut.id).where(RecordingOptOut.session_id == session_id),
        select(RecordingPreference.user_id).where(RecordingPreference.guild_id == guild_id),
    ]
    return any([(await session.scalar(query.limit(1))) is not None for query in found])


async def questions(session: AsyncSession, session_id: int, since: datetime | None = None) -> list[Question]:
    """The session's questions in the order asked (only those since ``since``, when given)."""
    query = select(SessionQuestion).where(SessionQuestion.session_id == session_id)
    if since is not None:
        query = query.where(SessionQuestion.created_at >= since)  # at the very instant: told again, not lost
    rows = await session.scalars(query.order_by(SessionQuestion.created_at, SessionQuestion.id))
    return [Question(row.name if row.named else None, row.text, row.created_at) for row in rows]


async def for_presenter(factory: Store, guild_id: int, session_id: int) -> ForPresenter:
    """What the presenter gets of the guild's session, for the organizers (NotFound: no such session)."""
    async with factory() as session:
        row = await load_row(session, guild_id, session_id)
        names = await names_kept_out(session, guild_id, session_id)
        asked = await questions(session, session_id)
    return ForPresenter(row.id, row.title, row.starts_at, tuple(names), tuple(asked))
