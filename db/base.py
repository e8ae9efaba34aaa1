"""Declarative base, the UTC-aware datetime column type, INSERT … ON CONFLICT on either store, rows as values."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from datetime import UTC, datetime
from typing import Any, ClassVar, Protocol, TypeVar

from sqlalchemy import DateTime, MetaData
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.sql import ColumnElement
from sqlalchemy.sql.dml import Insert
from sqlalchemy.types import TypeDecorator

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(TypeDecorator[datetime]):
    """Aware datetimes stored as UTC (a naive one raises) and read back as aware UTC."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Refuse a naive datetime; store an aware one as UTC."""
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"naive datetime {value!r} given to a UTC column")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        """Read a stored timestamp back as an aware UTC datetime."""
        if value is None:
            return None
        if isinstance(value, str):
            value = datetime.fromisoformat(value)
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    """The declarative base of every model, with the project's constraint naming convention."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime: UTCDateTime()}


class _Dataclass(Protocol):
    __dataclass_fields__: ClassVar[dict[str, Any]]


D = TypeVar("D", bound=_Dataclass)


def from_row(cls: type[D], row: object, **given: Any) -> D:
    """A ``cls`` (a dataclass) of ``given`` and, for every other field, ``row``'s attribute of that name."""
    return cls(**given, **{f.name: getattr(row, f.name) for f in fields(cls) if f.name not in given})


def utcnow() -> datetime:
    """Column default: evaluated on every insert (never `default=datetime.now(UTC)`)."""
    return datetime.now(UTC)


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
