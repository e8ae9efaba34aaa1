"""Reminders: one row per occurrence (a repeat's next one shares its ``series_id``), ending in a final status."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base, utcnow

#: Row statuses. ``sending`` means claimed by one runner (see bot/services/reminders/runner.py).
PENDING, SENDING, SENT = "pending", "sending", "sent"
CANCELLED, FAILED, MISSED = "cancelled", "failed", "missed"
LIVE_STATUSES = (PENDING, SENDING)
FINAL_STATUSES = (SENT, CANCELLED, FAILED, MISSED)

#: Kinds: an organizer's, a session's (in its channel), a member's DM, the presenter's before and after,
#: the organizers' nudge for an open series week, the DM once a session's recording is added.
CUSTOM, SESSION, PERSONAL, PRESENTER, RECAP = "custom", "session", "personal", "presenter", "recap"
NUDGE, RECORDING = "nudge", "recording"

_LIVE_SQL = "status IN ('pending', 'sending') AND plan_key IS NOT NULL"
_LIVE_NUMBER_SQL = "status IN ('pending', 'sending') AND number IS NOT NULL"


class Reminder(Base):
    """One reminder occurrence: what to send, where, when, and how its delivery went."""

    __tablename__ = "reminders"
    __table_args__ = (
        Index("ix_reminders_status_next_attempt", "status", "next_attempt_at"),
        Index("ix_reminders_guild_status", "guild_id", "status"),
        Index("ix_reminders_session", "session_id"),
        # At most one live automatic reminder per session slot: concurrent planners cannot both insert.
        Index(
            "uq_reminders_live_plan",
            "session_id",
            "plan_key",
            unique=True,
            sqlite_where=text(_LIVE_SQL),
            postgresql_where=text(_LIVE_SQL),
        ),
        # An organizer's reminder's number is one live row per server (a racing adder numbers again).
        Index(
            "uq_reminders_live_number",
            "guild_id",
            "number",
            unique=True,
            sqlite_where=text(_LIVE_NUMBER_SQL),
            postgresql_where=text(_LIVE_NUMBER_SQL),
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    kind: Mapped[str] = mapped_column(String(12))
    channel_id: Mapped[int | None] = mapped_column(BigInteger)  # a channel target...
    user_id: Mapped[int | None] = mapped_column(BigInteger)  # ...or a DM target
    message: Mapped[str | None] = mapped_column(Text)  # custom text; automatic ones render at send time
    due_at: Mapped[datetime]  # when this occurrence should go out
    next_attempt_at: Mapped[datetime]  # due_at, or later after a failed attempt (backoff)
    session_id: Mapped[int | None] = mapped_column(ForeignKey("sessions.id", ondelete="SET NULL"))
    offset_minutes: Mapped[int | None] = mapped_column(Integer)  # minutes before the session starts
    plan_key: Mapped[str | None] = mapped_column(String(40))  # automatic slot, e.g. "session:1440"
    repeat: Mapped[str | None] = mapped_column(String(10))  # daily, weekly, monthly
    repeat_timezone: Mapped[str | None] = mapped_column(String(64))  # wall clock the repeat keeps
    repeat_anchor_day: Mapped[int | None] = mapped_column(Integer)  # monthly: day of month
    series_id: Mapped[int | None] = mapped_column(Integer)  # first occurrence's id (None: this is it)
    number: Mapped[int | None] = mapped_column(Integer)  # an organizer's reminder's number in its server
    occurrence: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(12), default=PENDING)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(String(300))
    claim_token: Mapped[str | None] = mapped_column(String(32))
    claimed_at: Mapped[datetime | None]
    sent_at: Mapped[datetime | None]
    sent_message_id: Mapped[int | None] = mapped_column(BigInteger)
    delayed: Mapped[bool] = mapped_column(default=False)
    created_by: Mapped[int | None] = mapped_column(BigInteger)
    cancelled_by: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    @property
    def display_id(self) -> int:
        """The series' first id, stable across occurrences (its sends' nonces)."""
        return self.series_id or self.id
