"""Work several processes share (bot/claims.py): a ``once`` job's slot and lease, and keyed claims."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base


class JobRun(Base):
    """A ``once`` job's next slot, and the lease (and slot, ``claimed_due``) of the run in progress."""

    __tablename__ = "job_runs"

    name: Mapped[str] = mapped_column(String(100), primary_key=True)
    next_run_at: Mapped[datetime]
    claimed_due: Mapped[datetime | None]
    lease_owner: Mapped[str | None] = mapped_column(String(40))
    lease_until: Mapped[datetime | None]
    last_started_at: Mapped[datetime | None]
    last_finished_at: Mapped[datetime | None]
    last_error: Mapped[str | None] = mapped_column(String(300))
    runs: Mapped[int] = mapped_column(Integer, default=0)


class Claim(Base):
    """One thing one process does at a time: held by ``owner`` until released or ``expires_at``."""

    __tablename__ = "claims"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    owner: Mapped[str] = mapped_column(String(40))
    expires_at: Mapped[datetime]
