"""Claiming work several processes share, each claim one statement with an owner and an expiry: a keyed
claim (:func:`claim`, :func:`release`) or the due rows of a table (:func:`claim_due`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Row, delete, inspect, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql import ColumnElement

from db.models.jobs import Claim
from db.upsert import upsert


async def claim(session: AsyncSession, key: str, owner: str, now: datetime, lease: timedelta) -> bool:
    """Hold ``key`` for ``owner`` until ``now + lease``; False while another holder's claim has not expired.

    One ``INSERT … ON CONFLICT (key) DO UPDATE … WHERE expires_at <= now RETURNING``: on PostgreSQL a
    second claimer waits for the first one's row to commit, then finds it held."""
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
    """Claim due rows in one statement (``values`` set the owner and expiry columns of ``model``): ``WITH
    due AS MATERIALIZED (the first ``limit`` rows that are ``due`` and ``among``, FOR UPDATE SKIP LOCKED)
    UPDATE … SET values WHERE key IN due AND due RETURNING …``. Returns the rows this transaction claimed.

    PostgreSQL skips rows another transaction is claiming rather than waiting; SQLite's transaction holds
    the write lock (BEGIN IMMEDIATE), so claims never overlap. MATERIALIZED: a locking subquery planned as
    the inner side of a nested loop runs again per row, skipping the rows just changed, so ``limit`` would
    not hold."""
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
