"""The club's weekly series: the rule, its weeks (one row per series and date) and per-guild settings."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import BigInteger, Date, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from db.base import Base, utcnow
from db.models.sessions import ClubSession

#: Week statuses.
WEEK_SCHEDULED, WEEK_SKIPPED = "scheduled", "skipped"

DEFAULT_HORIZON_WEEKS = 8
DEFAULT_NUDGE_DAYS = 7


class Series(Base):
    """A weekly (or fortnightly) slot of the club, e.g. Thursdays at 9:30 AM PT."""

    __tablename__ = "series"
    __table_args__ = (UniqueConstraint("guild_id", "name_key", name="uq_series_guild_name_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger, index=True)
    name: Mapped[str] = mapped_column(String(100))
    name_key: Mapped[str] = mapped_column(String(100))  # the name folded, for "a second series of that name"
    weekday: Mapped[int] = mapped_column(Integer)  # 0 Monday … 6 Sunday
    start_time: Mapped[str] = mapped_column(String(5))  # "09:30", wall clock in `timezone`
    timezone: Mapped[str] = mapped_column(String(64))
    interval: Mapped[int] = mapped_column(Integer)  # 1 every week, 2 every other week
    first_date: Mapped[date] = mapped_column(Date)  # the first week ever
    anchor_date: Mapped[date] = mapped_column(
        Date
    )  # the first week of the current rule (moves on /series edit)
    until_date: Mapped[date | None] = mapped_column(Date)  # the last date it may meet on
    duration_minutes: Mapped[int] = mapped_column(Integer, default=60)
    signup_url: Mapped[str | None] = mapped_column(String(600))
    # Held in a voice or stage channel (its weeks' sessions inherit it; migration 0032).
    channel_id: Mapped[int | None] = mapped_column(BigInteger)
    channel_name: Mapped[str | None] = mapped_column(String(100))
    description: Mapped[str | None] = mapped_column(Text)
    sequence: Mapped[int] = mapped_column(Integer, default=0)  # raised on every change (calendar apps)
    board_channel_id: Mapped[int | None] = mapped_column(BigInteger)  # the /series open message
    board_message_id: Mapped[int | None] = mapped_column(BigInteger)
    created_by: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class SeriesWeek(Base):
    """One week of a series: scheduled (with its session once in the horizon) or skipped."""

    __tablename__ = "series_weeks"
    __table_args__ = (
        UniqueConstraint("series_id", "week_date", name="uq_series_weeks_series_date"),
        UniqueConstraint("session_id", name="uq_series_weeks_session"),
        Index("ix_series_weeks_guild_date", "guild_id", "week_date"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    series_id: Mapped[int] = mapped_column(ForeignKey("series.id", ondelete="CASCADE"))
    guild_id: Mapped[int] = mapped_column(BigInteger)
    week_date: Mapped[date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(12), default=WEEK_SCHEDULED)
    skip_reason: Mapped[str | None] = mapped_column(String(200))
    session_id: Mapped[int | None] = mapped_column(ForeignKey("sessions.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    session: Mapped[ClubSession | None] = relationship(lazy="raise")


class SeriesSettings(Base):
    """Per guild: weeks scheduled ahead, days before an open week to nudge the organizers, their thread."""

    __tablename__ = "series_settings"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    horizon_weeks: Mapped[int] = mapped_column(Integer, default=DEFAULT_HORIZON_WEEKS)
    nudge_days: Mapped[int] = mapped_column(Integer, default=DEFAULT_NUDGE_DAYS)
    organizer_thread_id: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)
