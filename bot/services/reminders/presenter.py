"""What the presenter's DMs before a session carry besides the time: who stays out of the recording and the
members' questions (``presenter:start``: only what is new since the last of them went out)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.sessions.members import Question, kept_out_since, names_kept_out, questions
from db.models.reminders import PRESENTER, SENT, Reminder

START_KEY = "presenter:start"
QUESTIONS_KEY = "presenter:questions"


@dataclass(frozen=True)
class PresenterNotes:
    """The names kept out of the recording and the questions a presenter's DM lists (``new``: since the
    last DM; None when a DM that only carries news has none)."""

    names: tuple[str, ...]
    questions: tuple[Question, ...]
    new: bool = False

    @property
    def empty(self) -> bool:
        """Nothing to tell."""
        return not self.names and not self.questions


async def notes_for(
    session: AsyncSession, guild_id: int, session_id: int, plan_key: str | None
) -> PresenterNotes | None:
    """The notes of one presenter DM (None: it only carries news, and there is none)."""
    names = tuple(await names_kept_out(session, guild_id, session_id))
    if plan_key != START_KEY:
        notes = PresenterNotes(names, tuple(await questions(session, session_id)))
        return None if plan_key == QUESTIONS_KEY and notes.empty else notes
    last: datetime | None = await session.scalar(
        select(func.max(Reminder.sent_at)).where(
            Reminder.session_id == session_id, Reminder.kind == PRESENTER, Reminder.status == SENT
        )
    )
    if last is None:
        notes = PresenterNotes(names, tuple(await questions(session, session_id)))
        return None if notes.empty else notes
    news = tuple(await questions(session, session_id, since=last))
    names_changed = await kept_out_since(session, guild_id, session_id, last)
    if not news and not names_changed:
        return None
    return PresenterNotes(names if names_changed else (), news, new=True)
