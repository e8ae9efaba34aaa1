"""A stored session as plain values (:class:`SessionInfo`), what an edit changed (:class:`SessionEdit`)
and the sessions a saved one overlaps (:class:`Overlap`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Final

from bot.services.papers.card import PaperRecord, paper_record
from bot.services.papers.store import PaperInfo, paper_info
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
    against: tuple[int, ...] = ()
    """The ids of the papers read against the others ("TMax vs Terminal-World, T1"); the rest are main."""
    series_id: int | None = None
    """The series this session is a week of (bot/services/series), when known: read by ``load_row``
    (so ``get_session``), None from the list queries."""
    date_only: bool = False
    """Dated only (a past session the club gave no time for): shown as its date, never a time."""
    channel_id: int | None = None
    """The voice or stage channel it is held in (None: at a link); ``channel_name`` as last seen."""
    channel_name: str | None = None
    hour_stage: str | None = None
    """How far the bot took the channel's event through the hour: None, "active", "completed"."""
    records: dict[int, PaperRecord] = field(default_factory=dict, hash=False)
    """What the outside sources said about each paper, by paper id (the short card's fields)."""
    coming: int = 0
    """Members to be reminded of it (Remind me or Interested on its event), each counted once."""

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
class SessionEdit:
    """What an edit changed, so the caller knows whether the event/announcement need refreshing, and
    the guild's other sessions at the new time when the time or length changed."""

    info: SessionInfo
    changed: frozenset[str] = field(default_factory=frozenset)
    overlaps: tuple[Overlap, ...] = ()


def session_info(row: ClubSession) -> SessionInfo:
    """Plain values of a row whose papers were loaded (see :func:`load_row`; its series week too, when
    that was loaded: it is never loaded here behind the caller's back)."""
    week = row.__dict__.get("series_week")
    return SessionInfo(
        id=row.id,
        guild_id=row.guild_id,
        title=row.title,
        description=row.description,
        starts_at=row.starts_at,
        ends_at=row.starts_at + timedelta(minutes=row.duration_minutes),
        duration_minutes=row.duration_minutes,
        timezone=row.timezone,
        presenter_id=row.presenter_id,
        presenter_name=row.presenter_name,
        papers=[paper_info(link.paper) for link in row.papers],
        against=tuple(link.paper_id for link in row.papers if link.role == AGAINST),
        records={link.paper_id: paper_record(link.paper) for link in row.papers},
        signup_url=row.signup_url,
        recording_url=row.recording_url,
        notes_url=row.notes_url,
        wiki_url=row.wiki_url,
        status=row.status,
        announcement_channel_id=row.announcement_channel_id,
        announcement_message_id=row.announcement_message_id,
        thread_id=row.thread_id,
        event_id=row.event_id,
        sequence=row.sequence,
        cancel_reason=row.cancel_reason,
        created_by=row.created_by,
        series_id=week.series_id if week is not None else None,
        date_only=row.date_only,
        coming=row.__dict__.get("coming") or 0,  # a row made in this transaction has not counted yet
        channel_id=row.channel_id,
        channel_name=row.channel_name,
        hour_stage=row.hour_stage,
    )
