"""What members leave a session's presenter: recording opt-outs and questions (kept a week after)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base, utcnow

MAX_NAME = 100  # a member's display name as the presenter reads it (Discord's nicknames: 32; names: 32)
MAX_QUESTION = 1000


class RecordingOptOut(Base):
    """A member who asked to stay out of one session's recording (*Keep me out of the recording*)."""

    __tablename__ = "recording_opt_outs"
    __table_args__ = (UniqueConstraint("session_id", "user_id", name="uq_recording_opt_outs_session_user"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("sessions.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(BigInteger, index=True)
    name: Mapped[str] = mapped_column(String(MAX_NAME))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class RecordingPreference(Base):
    """A member who stays out of every recording of a server (set once, until taken back)."""

    __tablename__ = "recording_preferences"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False, index=True)
    name: Mapped[str] = mapped_column(String(MAX_NAME))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class SessionQuestion(Base):
    """A question for a session's presenter; ``named``: the presenter sees who asked (else nobody does)."""

    __tablename__ = "session_questions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("sessions.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(BigInteger, index=True)  # kept so the member can delete it
    named: Mapped[bool] = mapped_column(Boolean, default=False)
    name: Mapped[str | None] = mapped_column(String(MAX_NAME))  # only when named
    text: Mapped[str] = mapped_column(String(MAX_QUESTION))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
