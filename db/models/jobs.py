"""Claims shared by every process on one store: a row per ``once`` job of bot/background.py (its next
slot, and a lease while a process runs it), the command sync's lease (``commands.sync:…``,
bot/command_sync.py) and the identify slots (``gateway.identify.<bucket>``, bot/identify.py).

``next_run_at`` is when the job's next slot is due (for a slot row: when it is next free); ``claimed_due``
is the slot of the run in progress, so a run whose claimer died (its lease ran out) is run again.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base


class JobRun(Base):
    """One job's, lease's or slot's row (see the module docstring)."""

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
