"""Named reading lists and saved search queries (the search index is the migrations' own: triggers)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from db.base import Base, utcnow
from db.models.sessions import Paper


class ReadingList(Base):
    """A guild's named list of papers (e.g. "WorldSmith"); names are unique per guild ignoring case."""

    __tablename__ = "reading_lists"
    __table_args__ = (UniqueConstraint("guild_id", "normalized_name", name="uq_reading_lists_guild_name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    name: Mapped[str] = mapped_column(String(100))
    normalized_name: Mapped[str] = mapped_column(String(100))
    description: Mapped[str | None] = mapped_column(Text)
    created_by: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    items: Mapped[list[ReadingListItem]] = relationship(
        back_populates="reading_list",
        order_by="ReadingListItem.position",
        cascade="all, delete-orphan",
    )


class ReadingListItem(Base):
    """A paper on a list, with an optional note, in the order added."""

    __tablename__ = "reading_list_items"

    list_id: Mapped[int] = mapped_column(ForeignKey("reading_lists.id", ondelete="CASCADE"), primary_key=True)
    paper_id: Mapped[int] = mapped_column(
        ForeignKey("papers.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    position: Mapped[int] = mapped_column(Integer, default=0)
    note: Mapped[str | None] = mapped_column(String(500))
    added_by: Mapped[int | None] = mapped_column(BigInteger)
    added_at: Mapped[datetime] = mapped_column(default=utcnow)

    reading_list: Mapped[ReadingList] = relationship(back_populates="items")
    paper: Mapped[Paper] = relationship(lazy="joined")


class ReadingSearchQuery(Base):
    """A search's text, kept so that its ◀ ▶ page buttons (which carry only this id) work after a restart."""

    __tablename__ = "reading_search_queries"
    __table_args__ = (UniqueConstraint("guild_id", "query", name="uq_reading_search_queries_guild_query"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    query: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
