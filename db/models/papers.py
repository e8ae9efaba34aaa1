"""The papers feature's own tables: the names a guild's organizers resolved to a paper (or to none)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base, utcnow

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
