"""Claims of work several processes share: keyed claims, a table's due rows, Discord's IDENTIFY slots."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Row, delete, inspect, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.sql import ColumnElement

from db.base import upsert
from db.models.core import Claim


async def claim(session: AsyncSession, key: str, owner: str, now: datetime, lease: timedelta) -> bool:
    """Hold ``key`` for ``owner`` until ``now + lease`` (one upsert); False while another's claim lasts."""
    statement = upsert(
        session,
        Claim,
        {"key": key, "owner": owner, "expires_at": now + lease},
        keys=["key"],
        update=["owner", "expires_at"],
        where=Claim.expires_at <= now,
    ).returning(Claim.key)
    return (await session.execute(statement)).first() is not None


async def release(session: AsyncSession, key: str, owner: str) -> None:
    """Give ``key`` back, if ``owner`` still holds it."""
    await session.execute(delete(Claim).where(Claim.key == key, Claim.owner == owner))


async def held_until(session: AsyncSession, key: str) -> datetime | None:
    """When the claim on ``key`` expires (None: never claimed, or released)."""
    return (await session.execute(select(Claim.expires_at).where(Claim.key == key))).scalar_one_or_none()


async def claim_due(
    session: AsyncSession,
    model: type[Any],
    *,
    due: Sequence[ColumnElement[bool]],
    values: Mapping[str, Any],
    returning: Sequence[Any],
    order_by: Sequence[Any] = (),
    limit: int | None = None,
    among: ColumnElement[bool] | None = None,
) -> Sequence[Row[Any]]:
    """Claim the first ``limit`` ``due`` rows (``among``) in one UPDATE setting ``values``; those rows."""
    table = model.__table__
    (key,) = (table.c[column.key] for column in inspect(model).primary_key)
    candidates = select(key).where(*due)
    if among is not None:
        candidates = candidates.where(among)
    chosen = (
        candidates.order_by(*order_by)
        .limit(limit)
        .with_for_update(skip_locked=True)
        .cte("due")
        .prefix_with("MATERIALIZED", dialect="postgresql")
    )
    statement = (
        update(table)
        .where(key.in_(select(chosen.c[key.name])), *due)
        .values(dict(values))
        .returning(*returning)
    )
    return (await session.execute(statement)).all()


# https://discord.com/developers/docs/events/gateway#sharding, "Max Concurrency": per bucket, per 5 s.
IDENTIFY_WINDOW = timedelta(seconds=5)
# Wider: a slot taken on time but sent late must not land within 5 s of the next (an Invalid Session).
IDENTIFY_SPACING = IDENTIFY_WINDOW + timedelta(seconds=1)


async def take_slot(session_factory: async_sessionmaker[AsyncSession], name: str) -> timedelta:
    """Wait (real time) for slot ``name``, one taker per IDENTIFY_SPACING in the store; how long it waited."""
    owner = uuid.uuid4().hex
    waited = timedelta(0)
    while True:
        now = datetime.now(UTC)
        async with session_factory() as session, session.begin():
            if await claim(session, name, owner, now, IDENTIFY_SPACING):
                return waited
            free_at = await held_until(session, name) or now
        pause = max((free_at - now).total_seconds(), 0.0) + random.uniform(0, 0.1)
        waited += timedelta(seconds=pause)
        await asyncio.sleep(pause)
