"""INSERT … ON CONFLICT on either store: :func:`insert_ignore` (keep the row there) and :func:`upsert`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql import ColumnElement
from sqlalchemy.sql.dml import Insert

Rows = Mapping[str, Any] | Sequence[Mapping[str, Any]]


def _insert(session: AsyncSession, model: Any, rows: Rows) -> Any:
    """The store's own INSERT (the one place the dialect is picked)."""
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    return dialect.insert(model).values(rows)


def insert_ignore(
    session: AsyncSession, model: Any, rows: Rows, *, keys: Sequence[str] | None = None
) -> Insert:
    """INSERT ``rows``, skipping each that clashes with a row already there (on ``keys``, else any key)."""
    return _insert(session, model, rows).on_conflict_do_nothing(index_elements=keys)


def upsert(
    session: AsyncSession,
    model: Any,
    row: Mapping[str, Any],
    *,
    keys: Sequence[str],
    update: Sequence[str],
    where: ColumnElement[bool] | None = None,
) -> Insert:
    """INSERT ``row``, or on a clash on ``keys`` set the ``update`` columns (only where ``where`` holds)."""
    statement = _insert(session, model, row)
    return statement.on_conflict_do_update(
        index_elements=keys, set_={name: statement.excluded[name] for name in update}, where=where
    )
