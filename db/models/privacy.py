"""What the privacy feature keeps of its own: the servers the bot left, until their grace period ends.

``FORMER_MEMBER`` stands in a member id column that may not be NULL (a suggestion's submitter, a poll's
organizer) once that member deleted their data: no snowflake is 0, so it names nobody.
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

from sqlalchemy import BigInteger
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base

FORMER_MEMBER: Final = 0
DEFAULT_GRACE_DAYS: Final = 30  # GUILD_DATA_GRACE_DAYS unless set


class GuildDeparture(Base):
    """A server the bot was removed from, and when: its data is deleted once the grace period has passed,
    unless the bot is added back first (the row is then dropped)."""

    __tablename__ = "guild_departures"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    left_at: Mapped[datetime]
