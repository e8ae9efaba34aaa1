"""A stored session as plain values, and a saved one with what its reply says (what changed, overlaps)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final

from bot.services.papers.card import PaperRecord, paper_record
from bot.services.papers.store import PaperInfo, paper_info
from bot.services.sessions.rules import PaperReading
from db.base import from_row
from db.models import ClubSession
from db.models.sessions import AGAINST

SCHEDULED: Final = "scheduled"
CANCELLED: Final = "cancelled"


@dataclass(frozen=True)
class SessionInfo:
    """A stored session as plain values. Times are aware UTC."""

    id: int
    guild_id: int
    title: str
    description: str | None
    starts_at: datetime
    ends_at: datetime
    duration_minutes: int
    timezone: str
    presenter_id: int | None
    presenter_name: str | None
    papers: list[PaperInfo]
    signup_url: str | None
    recording_url: str | None
    notes_url: str | None
    wiki_url: str | None
    status: str
    announcement_channel_id: int | None
    announcement_message_id: int | None
    thread_id: int | None
    event_id: int | None
    sequence: int
    cancel_reason: str | None = None
    created_by: int | None = None
    against: tuple[int, ...] = ()  # ids of the papers read against the others
    series_id: int | None = None  # the series it is a week of (read by ``load_row`` only)
    date_only: bool = False  # a past session the club gave no time for: shown as its date
    channel_id: int | None = None  # the voice or stage channel it is held in (None: at a link)
    channel_name: str | None = None
    hour_stage: str | None = None  # how far the bot took the channel's event: None, "active", "completed"
    records: dict[int, PaperRecord] = field(default_factory=dict, hash=False)  # the short cards, by paper id
    coming: int = 0  # members to be reminded of it (Remind me or Interested), each once

    @property
    def main_papers(self) -> list[PaperInfo]:
        """The papers the session reads (all of them when none is read against the others)."""
        return [p for p in self.papers if p.id not in self.against]

    @property
    def against_papers(self) -> list[PaperInfo]:
        """The papers read against the main ones, in order."""
        return [p for p in self.papers if p.id in self.against]

    @property
    def is_cancelled(self) -> bool:
        """Whether the session is cancelled."""
        return self.status == CANCELLED

    @property
    def is_announced(self) -> bool:
        """Whether the session has been announced."""
        return self.announcement_message_id is not None

    def has_ended(self, now: datetime) -> bool:
        """Whether the session is over at ``now``."""
        return self.ends_at <= now

    def has_started(self, now: datetime) -> bool:
        """Whether the session has started at ``now``."""
        return self.starts_at <= now


@dataclass(frozen=True)
class Overlap:
    """Another scheduled session of the guild whose time overlaps a saved one."""

    id: int
    title: str
    starts_at: datetime


@dataclass(frozen=True)
class Published:
    """A saved session and what its reply says; for an edit, the fields that ``changed``."""

    info: SessionInfo
    overlaps: tuple[Overlap, ...] = ()
    start_note: str | None = None
    reading: PaperReading | None = None
    warnings: tuple[str, ...] = ()
    changed: frozenset[str] = field(default_factory=frozenset)


def session_info(row: ClubSession) -> SessionInfo:
    """Plain values of a row whose papers were loaded (its series week too, when that was loaded)."""
    week = row.__dict__.get("series_week")
    derived: dict[str, Any] = {
        "ends_at": row.starts_at + timedelta(minutes=row.duration_minutes),
        "papers": [paper_info(link.paper) for link in row.papers],
        "against": tuple(link.paper_id for link in row.papers if link.role == AGAINST),
        "records": {link.paper_id: paper_record(link.paper) for link in row.papers},
        "series_id": week.series_id if week is not None else None,
        "coming": row.__dict__.get("coming") or 0,  # a row made in this transaction has not counted yet
    }
    return from_row(SessionInfo, row, **derived)  # every other field is the row's column of that name
