"""The servers the bot left, kept until their grace period ends."""

from __future__ import annotations

from datetime import datetime
from typing import Final

from sqlalchemy import BigInteger
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base

FORMER_MEMBER: Final = 0  # a non-NULL member id once that member deleted their data: no snowflake is 0
DEFAULT_GRACE_DAYS: Final = 30  # GUILD_DATA_GRACE_DAYS unless set


class GuildDeparture(Base):
    """A server the bot was removed from, and when (dropped if the bot is added back)."""

    __tablename__ = "guild_departures"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    left_at: Mapped[datetime]
