"""Claims of background work shared by every process on one store (bot/jobs.py): one row per periodic
job, and rows for one-off leases (``commands.sync:…``, the command sync) and rate slots
(``gateway.identify.<bucket>``, Discord's identify limit across processes).

A run is claimed by one conditional UPDATE on its row: the claimer writes its token in ``lease_owner``
and keeps ``lease_until`` in the future while it runs. ``next_run_at`` is when the next run is due; it
moves on to the following slot when a run is claimed, and a feature may pull it earlier (a poll that
ends sooner). ``claimed_due`` is the due time of the run in progress, so a run whose claimer died (its
lease ran out) is run again by another process, and the lag of every run can be measured.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base


class JobRun(Base):
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
