"""Members' personal calendar feeds: a random token shown once, only its SHA-256 kept."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models.site import CalendarToken

TOKEN_BYTES: Final = 32
_TOKEN: Final = re.compile(r"[A-Za-z0-9_-]{32,64}")


def token_hash(token: str) -> str:
    """The SHA-256 hex digest a calendar token is stored as."""
    return hashlib.sha256(token.encode("ascii")).hexdigest()


@dataclass(frozen=True)
class Issued:
    """A feed token just made (``token`` is shown to its owner once), or the date of the existing one."""

    token: str | None
    created_at: datetime
    replaced: bool = False


async def issue(session: AsyncSession, guild_id: int, user_id: int, *, now: datetime, reset: bool) -> Issued:
    """The member's feed: a new token when there is none (or ``reset``); else the existing one's date."""
    row = await session.scalar(
        select(CalendarToken).where(CalendarToken.guild_id == guild_id, CalendarToken.user_id == user_id)
    )
    if row is not None and not reset:
        return Issued(None, row.created_at)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    if row is None:
        session.add(
            CalendarToken(guild_id=guild_id, user_id=user_id, token_hash=token_hash(token), created_at=now)
        )
    else:
        row.token_hash = token_hash(token)
        row.created_at = now
    await session.flush()
    return Issued(token, now, replaced=row is not None)


async def owner_of(session: AsyncSession, guild_id: int, token: str) -> int | None:
    """The member whose feed ``token`` opens in this guild, or None (also for malformed tokens)."""
    if not _TOKEN.fullmatch(token):
        return None
    wanted = token_hash(token)
    row = await session.scalar(select(CalendarToken).where(CalendarToken.token_hash == wanted))
    if row is None or row.guild_id != guild_id or not hmac.compare_digest(row.token_hash, wanted):
        return None
    return row.user_id
