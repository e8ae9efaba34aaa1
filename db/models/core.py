"""Per-guild settings (the website's too), servers left, members' feed tokens, the app's own state."""

from __future__ import annotations

from datetime import datetime
from typing import Final

from sqlalchemy import BigInteger, Boolean, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base, utcnow

DEFAULT_TIMEZONE = "America/Los_Angeles"
DEFAULT_DISPLAY_ZONES = "America/Los_Angeles=PT, Europe/London, Asia/Kolkata=IST"
DEFAULT_REMINDER_OFFSETS = "24h,1h"
DEFAULT_SUGGESTION_TOPICS = (
    "environment generation;verifier soundness;user simulators;benchmark validity;other"
)


class GuildSettings(Base):
    """One row per guild; a guild without a row uses the defaults below."""

    __tablename__ = "guild_settings"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    announcements_channel_id: Mapped[int | None] = mapped_column(BigInteger)
    suggestions_channel_id: Mapped[int | None] = mapped_column(BigInteger)
    organizer_role_id: Mapped[int | None] = mapped_column(BigInteger)
    ping_role_id: Mapped[int | None] = mapped_column(BigInteger)
    timezone: Mapped[str] = mapped_column(String(64), default=DEFAULT_TIMEZONE)
    display_zones: Mapped[str] = mapped_column(String(400), default=DEFAULT_DISPLAY_ZONES)
    reminder_offsets: Mapped[str] = mapped_column(String(100), default=DEFAULT_REMINDER_OFFSETS)
    suggestion_topics: Mapped[str] = mapped_column(Text, default=DEFAULT_SUGGESTION_TOPICS)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class AppState(Base):
    """Key/value state of the application itself (e.g. the hash of the last synced command set)."""

    __tablename__ = "app_state"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class JobRun(Base):
    """A ``once`` job's next slot, and the lease (and slot, ``claimed_due``) of the run in progress."""

    __tablename__ = "job_runs"

    name: Mapped[str] = mapped_column(String(100), primary_key=True)
    next_run_at: Mapped[datetime]
    claimed_due: Mapped[datetime | None]
    lease_owner: Mapped[str | None] = mapped_column(String(40))
    lease_until: Mapped[datetime | None]
    last_started_at: Mapped[datetime | None]
    last_finished_at: Mapped[datetime | None]
    last_error: Mapped[str | None] = mapped_column(String(300))
    runs: Mapped[int] = mapped_column(Integer, default=0)


class Claim(Base):
    """One thing one process does at a time: held by ``owner`` until released or ``expires_at``."""

    __tablename__ = "claims"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    owner: Mapped[str] = mapped_column(String(40))
    expires_at: Mapped[datetime]


FORMER_MEMBER: Final = 0  # a non-NULL member id once that member deleted their data: no snowflake is 0
DEFAULT_GRACE_DAYS: Final = 30  # GUILD_DATA_GRACE_DAYS unless set


class GuildDeparture(Base):
    """A server the bot was removed from, and when (dropped if the bot is added back)."""

    __tablename__ = "guild_departures"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    left_at: Mapped[datetime]


class SiteSettings(Base):
    """One row per guild that ever ran /setup website or /setup about."""

    __tablename__ = "site_settings"
    __table_args__ = (UniqueConstraint("slug", name="uq_site_settings_slug"),)

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    enabled: Mapped[bool] = mapped_column(Boolean, default=False)
    slug: Mapped[str | None] = mapped_column(String(40))
    title: Mapped[str] = mapped_column(String(100), default="Paper club")
    about: Mapped[str | None] = mapped_column(Text)  # "How it runs" (Markdown)
    intro: Mapped[str | None] = mapped_column(Text)  # the home page's opening (Markdown)
    discord_invite: Mapped[str | None] = mapped_column(String(200))  # "Bring it to the Discord"
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class CalendarToken(Base):
    """A member's personal calendar feed: one live token per member and guild (reset replaces it)."""

    __tablename__ = "site_calendar_tokens"
    __table_args__ = (
        UniqueConstraint("guild_id", "user_id", name="uq_site_calendar_tokens_guild_user"),
        UniqueConstraint("token_hash", name="uq_site_calendar_tokens_token_hash"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    user_id: Mapped[int] = mapped_column(BigInteger)
    token_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
