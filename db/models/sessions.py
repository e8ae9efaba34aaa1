"""Papers (and aliases), sessions, and what members leave their presenter: the core of every feature."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
    func,
    select,
    true,
)
from sqlalchemy.orm import Mapped, column_property, mapped_column, relationship

from db.base import Base, utcnow


class Paper(Base):
    """A paper, stored once per guild under its canonical key (see bot.papers.parse_paper_ref)."""

    __tablename__ = "papers"
    __table_args__ = (UniqueConstraint("guild_id", "key", name="uq_papers_guild_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger, index=True)
    key: Mapped[str] = mapped_column(String(400))
    kind: Mapped[str] = mapped_column(String(20))
    title: Mapped[str] = mapped_column(String(400))
    normalized_title: Mapped[str] = mapped_column(String(400), index=True)
    url: Mapped[str | None] = mapped_column(String(600))
    arxiv_id: Mapped[str | None] = mapped_column(String(40))
    doi: Mapped[str | None] = mapped_column(String(200))
    authors: Mapped[str | None] = mapped_column(Text)
    abstract: Mapped[str | None] = mapped_column(Text)
    published: Mapped[str | None] = mapped_column(String(40))
    wiki_url: Mapped[str | None] = mapped_column(String(600))
    metadata_fetched_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # What the outside sources said (bot/services/papers/metadata.py; migration 0021)
    year: Mapped[int | None] = mapped_column(Integer)
    venue: Mapped[str | None] = mapped_column(String(200))
    decision: Mapped[str | None] = mapped_column(String(100))
    openreview_url: Mapped[str | None] = mapped_column(String(512))
    tldr: Mapped[str | None] = mapped_column(Text)
    citation_count: Mapped[int | None] = mapped_column(Integer)
    influential_citation_count: Mapped[int | None] = mapped_column(Integer)
    pdf_url: Mapped[str | None] = mapped_column(String(512))
    code_url: Mapped[str | None] = mapped_column(String(512))
    project_url: Mapped[str | None] = mapped_column(String(512))
    s2_id: Mapped[str | None] = mapped_column(String(64))
    s2_url: Mapped[str | None] = mapped_column(String(512))
    hf_url: Mapped[str | None] = mapped_column(String(512))
    hf_upvotes: Mapped[int | None] = mapped_column(Integer)
    hf_models: Mapped[int | None] = mapped_column(Integer)
    hf_datasets: Mapped[int | None] = mapped_column(Integer)
    hf_spaces: Mapped[int | None] = mapped_column(Integer)
    hf_top: Mapped[list[str] | None] = mapped_column(JSON)
    field_sources: Mapped[dict[str, Any] | None] = mapped_column(JSON)  # field -> [source, fetched_at]
    enriched_at: Mapped[datetime | None]
    enrich_failures: Mapped[int] = mapped_column(Integer, default=0, server_default="0")  # runs in a row
    enrich_retry_at: Mapped[datetime | None]  # a source failed for it: not asked again before then


ALIAS_NAME_MAX = 300  # bot.papers.MAX_TITLE_LENGTH: a name is what a member may give as a title


class PaperAlias(Base):
    """A name ("TMax") an organizer resolved for the guild: to a paper, or to none (``paper_id`` NULL)."""

    __tablename__ = "paper_aliases"
    __table_args__ = (UniqueConstraint("guild_id", "normalized_name", name="uq_paper_aliases_guild_name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    name: Mapped[str] = mapped_column(String(ALIAS_NAME_MAX))
    normalized_name: Mapped[str] = mapped_column(String(ALIAS_NAME_MAX))
    paper_id: Mapped[int | None] = mapped_column(ForeignKey("papers.id", ondelete="CASCADE"), index=True)
    chosen_by: Mapped[int | None] = mapped_column(BigInteger)  # the organizer; None from the CLI or an import
    chosen_at: Mapped[datetime] = mapped_column(default=utcnow)


class ClubSession(Base):
    """One reading session (an hour, usually Thursday 9:30 AM PT)."""

    __tablename__ = "sessions"
    __table_args__ = (
        UniqueConstraint("guild_id", "title", "starts_at", name="uq_sessions_guild_title_start"),
        Index("ix_sessions_guild_start", "guild_id", "starts_at"),
        # /session list and autocomplete: upcoming scheduled sessions, counted from the index alone
        Index("ix_sessions_guild_status_start", "guild_id", "status", "starts_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    title: Mapped[str] = mapped_column(String(200))
    description: Mapped[str | None] = mapped_column(Text)
    starts_at: Mapped[datetime]
    # Dated only (a past session the club gave no time for): shown as its date; starts_at is noon there.
    date_only: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    duration_minutes: Mapped[int] = mapped_column(Integer, default=60)
    timezone: Mapped[str] = mapped_column(String(64))
    presenter_id: Mapped[int | None] = mapped_column(BigInteger)
    presenter_name: Mapped[str | None] = mapped_column(String(100))
    signup_url: Mapped[str | None] = mapped_column(String(600))
    recording_url: Mapped[str | None] = mapped_column(String(600))
    notes_url: Mapped[str | None] = mapped_column(String(600))
    wiki_url: Mapped[str | None] = mapped_column(String(600))
    status: Mapped[str] = mapped_column(String(20), default="scheduled")
    cancel_reason: Mapped[str | None] = mapped_column(String(500))
    announcement_channel_id: Mapped[int | None] = mapped_column(BigInteger)
    announcement_message_id: Mapped[int | None] = mapped_column(BigInteger)
    thread_id: Mapped[int | None] = mapped_column(BigInteger)
    event_id: Mapped[int | None] = mapped_column(BigInteger)
    # The voice or stage channel it is held in (None: at a link), and its name as last seen.
    channel_id: Mapped[int | None] = mapped_column(BigInteger)
    channel_name: Mapped[str | None] = mapped_column(String(100))
    # A channel's event as the bot took it through the hour: None, "active", "completed" (sessions/hour.py).
    hour_stage: Mapped[str | None] = mapped_column(String(20))
    sequence: Mapped[int] = mapped_column(Integer, default=0)
    created_by: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    papers: Mapped[list[SessionPaper]] = relationship(
        back_populates="session", order_by="SessionPaper.position", cascade="all, delete-orphan"
    )
    # Its series week, or None (named through the registry; loaded only by sessions.store.load_row).
    series_week: Mapped[Any] = relationship("SeriesWeek", lazy="raise", viewonly=True, uselist=False)
    if TYPE_CHECKING:
        coming: int  # the members to be reminded (Remind me or Interested), each once: set below


MAIN, AGAINST = "main", "against"  # session_papers.role


class SessionPaper(Base):
    """The papers read in a session, in the order given."""

    __tablename__ = "session_papers"

    session_id: Mapped[int] = mapped_column(ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True)
    paper_id: Mapped[int] = mapped_column(ForeignKey("papers.id", ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, default=0)
    # MAIN, or AGAINST: read against the main papers ("TMax vs Terminal-World, T1").
    role: Mapped[str] = mapped_column(String(10), default=MAIN, server_default=MAIN)

    session: Mapped[ClubSession] = relationship(back_populates="papers")
    paper: Mapped[Paper] = relationship(lazy="joined")


class SessionSubscription(Base):
    """A member to be reminded of a session: who pressed Remind me (or used /remind me), marked Interested on
    its Discord event, or both (one row, so one DM). The row goes when neither holds."""

    __tablename__ = "session_subscriptions"

    session_id: Mapped[int] = mapped_column(ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False, index=True)
    before_minutes: Mapped[int] = mapped_column(Integer, default=60)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    via: Mapped[str | None] = mapped_column(String(10))  # "command": /remind me; None: the button
    # Remind me or /remind me (``asked``); Interested on the session's Discord event (``interested``)
    asked: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    interested: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


# How many are coming: counted from the subscriptions whenever a session is loaded, so never stale.
ClubSession.coming = column_property(  # type: ignore[assignment]  # declared as int for readers
    select(func.count())
    .where(SessionSubscription.session_id == ClubSession.id)
    .correlate_except(SessionSubscription)
    .scalar_subquery()
)


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
