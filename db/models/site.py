"""The club's website: each guild's opt-in and address, and members' calendar feeds (token SHA-256 only)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base, utcnow


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
