"""Paper suggestions: the suggestion itself, votes, presenter volunteers and club polls."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from db.base import Base, utcnow
from db.models.sessions import Paper

#: Statuses in which a suggestion still stands (a new suggestion of the same paper is a duplicate).
ACTIVE_STATUSES = ("open", "shortlisted", "accepted")
_ACTIVE_SQL = "status IN ('open', 'shortlisted', 'accepted')"


class Suggestion(Base):
    """A member's suggestion of a paper. At most one active suggestion per paper (partial unique index)."""

    __tablename__ = "suggestions"
    __table_args__ = (
        Index("ix_suggestions_guild_status", "guild_id", "status"),
        Index("ix_suggestions_guild_submitter_created", "guild_id", "submitter_id", "created_at"),
        Index(
            "uq_suggestions_active_paper",
            "guild_id",
            "paper_id",
            unique=True,
            sqlite_where=text(_ACTIVE_SQL),
            postgresql_where=text(_ACTIVE_SQL),
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    paper_id: Mapped[int] = mapped_column(ForeignKey("papers.id", ondelete="CASCADE"), index=True)
    submitter_id: Mapped[int] = mapped_column(BigInteger)
    reason: Mapped[str | None] = mapped_column(Text)
    topic: Mapped[str | None] = mapped_column(String(50))
    status: Mapped[str] = mapped_column(String(20), default="open")
    review_note: Mapped[str | None] = mapped_column(Text)
    reviewed_by: Mapped[int | None] = mapped_column(BigInteger)
    reviewed_at: Mapped[datetime | None]
    channel_id: Mapped[int | None] = mapped_column(BigInteger)  # where the post lives (a thread for forums)
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    session_id: Mapped[int | None] = mapped_column(ForeignKey("sessions.id", ondelete="SET NULL"))
    # The message "Suggest this paper" was used on (its guild is the suggestion's).
    source_channel_id: Mapped[int | None] = mapped_column(BigInteger)
    source_message_id: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    paper: Mapped[Paper] = relationship(lazy="joined")


class SuggestionVote(Base):
    """One upvote per member and suggestion (the primary key makes concurrent presses safe)."""

    __tablename__ = "suggestion_votes"

    suggestion_id: Mapped[int] = mapped_column(
        ForeignKey("suggestions.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class SuggestionVolunteer(Base):
    """A member who offered to present the suggested paper ("I'd present this")."""

    __tablename__ = "suggestion_volunteers"

    suggestion_id: Mapped[int] = mapped_column(
        ForeignKey("suggestions.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class SuggestionPoll(Base):
    """A native Discord poll over suggestions; the result is recorded when it ends."""

    __tablename__ = "suggestion_polls"
    __table_args__ = (Index("ix_suggestion_polls_status_ends", "status", "ends_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger, index=True)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    created_by: Mapped[int] = mapped_column(BigInteger)
    ends_at: Mapped[datetime]
    status: Mapped[str] = mapped_column(String(20), default="running")  # running, ended
    total_votes: Mapped[int | None] = mapped_column(Integer)
    winner_suggestion_id: Mapped[int | None] = mapped_column(
        ForeignKey("suggestions.id", ondelete="SET NULL")
    )
    ended_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    options: Mapped[list[SuggestionPollOption]] = relationship(
        order_by="SuggestionPollOption.position", cascade="all, delete-orphan", lazy="selectin"
    )


class SuggestionPollOption(Base):
    """One answer of a poll: which suggestion it stands for, and its votes once the poll ended."""

    __tablename__ = "suggestion_poll_options"

    poll_id: Mapped[int] = mapped_column(
        ForeignKey("suggestion_polls.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)  # 1-based answer id
    suggestion_id: Mapped[int] = mapped_column(ForeignKey("suggestions.id", ondelete="CASCADE"))
    votes: Mapped[int | None] = mapped_column(Integer)
