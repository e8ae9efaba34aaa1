"""A session as checked input: a new one (:class:`SessionDraft`) or an edit (:class:`SessionChanges`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from datetime import datetime
from typing import Any, Final

from bot.errors import BadInput
from bot.papers import PaperRef, parse_paper_ref
from bot.services.sessions import rules
from bot.services.sessions.rules import PaperReading, StartTime

CLEAR: Final = "-"  # typed for an optional field of an edit, removes it
_NOT_COLUMNS: Final = frozenset({"papers", "against", "start_note", "reading"})


class Unset:
    """Marks a field an edit does not change (None means 'clear it')."""

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = Unset()


@dataclass(frozen=True)
class Place:
    """A voice or stage channel a session is held in, checked by the caller (no name: only its id known)."""

    channel_id: int
    name: str | None = None


class _Columns:
    def columns(self) -> dict[str, Any]:
        """The stored session's columns given (all but the papers) and their values."""
        assert is_dataclass(self)
        return {
            f.name: value
            for f in fields(self)
            if f.name not in _NOT_COLUMNS and not isinstance(value := getattr(self, f.name), Unset)
        }


@dataclass(frozen=True)
class SessionDraft(_Columns):
    """A new session, every field checked. Build it with :func:`new_session`."""

    title: str
    starts_at: datetime  # aware UTC
    timezone: str  # IANA name: how the start was read, and how the session is shown
    presenter_id: int | None = None
    presenter_name: str | None = None
    papers: tuple[PaperRef, ...] = ()
    against: tuple[str, ...] = ()  # keys of the papers read against the others
    signup_url: str | None = None
    duration_minutes: int = 60
    description: str | None = None
    channel_id: int | None = None  # held in this voice or stage channel (checked by the caller on Discord)
    channel_name: str | None = None
    start_note: str | None = None  # how an unclear start was read
    reading: PaperReading | None = None  # how a typed `papers` text was split


@dataclass(frozen=True)
class SessionChanges(_Columns):
    """An edit: only the fields given, each checked (None clears an optional one, UNSET leaves it)."""

    title: str | Unset = UNSET
    starts_at: datetime | Unset = UNSET
    timezone: str | Unset = UNSET
    presenter_id: int | None | Unset = UNSET
    presenter_name: str | None | Unset = UNSET
    papers: tuple[PaperRef, ...] | Unset = UNSET
    against: tuple[str, ...] = ()  # with ``papers``: the keys read against the others
    signup_url: str | None | Unset = UNSET
    duration_minutes: int | Unset = UNSET
    description: str | None | Unset = UNSET
    channel_id: int | None | Unset = UNSET
    channel_name: str | None | Unset = UNSET
    start_note: str | None = field(default=None, compare=False)
    reading: PaperReading | None = field(default=None, compare=False)


def _start(when: str | datetime, zone: str | None, default_zone: str, now: datetime) -> StartTime:
    """A typed start (read in ``zone``, else ``default_zone``) or an aware datetime, checked once."""
    if isinstance(when, datetime):
        return StartTime(rules.check_start(when, now), rules.check_timezone(zone or default_zone))
    return rules.resolve_start(when, zone, default_zone, now)


def _papers(
    papers: str | Sequence[str | PaperRef] | None,
) -> tuple[tuple[PaperRef, ...], PaperReading | None]:
    """Typed text (as :func:`rules.read_papers` splits it) or papers one by one, repeats dropped."""
    if papers is None:
        return (), None
    if isinstance(papers, str):
        reading = rules.read_papers(papers)
        return reading.refs, reading
    rules.check_paper_count(list(map(str, papers)))
    refs: dict[str, PaperRef] = {}
    for paper in papers:
        ref = paper if isinstance(paper, PaperRef) else parse_paper_ref(paper)
        refs.setdefault(ref.key, ref)
    return tuple(refs.values()), None


def new_session(
    *,
    title: str,
    when: str | datetime,
    now: datetime,
    default_zone: str,
    zone: str | None = None,
    presenter_id: int | None = None,
    presenter_name: str | None = None,
    papers: str | Sequence[str | PaperRef] | None = None,
    signup_url: str | None = None,
    duration: int = 60,
    description: str | None = None,
    channel: Place | None = None,
) -> SessionDraft:
    """Check a new session's values, each once (BadInput on the first bad one)."""
    clean_title = rules.clean_title(title)
    start = _start(when, zone, default_zone, now)
    refs, reading = _papers(papers)
    return SessionDraft(
        title=clean_title,
        starts_at=start.utc,
        timezone=start.zone,
        presenter_id=presenter_id,
        presenter_name=rules.clean_presenter_name(presenter_name),
        papers=refs,
        against=reading.against if reading else (),
        signup_url=rules.clean_url(signup_url, "The sign-up link"),
        duration_minutes=rules.check_duration(duration),
        description=rules.clean_description(description),
        channel_id=channel.channel_id if channel else None,
        channel_name=channel.name if channel else None,
        start_note=start.note,
        reading=reading,
    )


def _cleared(value: str) -> str | None:
    return None if value.strip() == CLEAR else value


def session_changes(
    *,
    now: datetime,
    session_zone: str | None = None,
    title: str | None = None,
    when: str | datetime | None = None,
    zone: str | None = None,
    presenter_id: int | None = None,
    presenter_name: str | None = None,
    papers: str | Sequence[str | PaperRef] | None = None,
    signup_url: str | None = None,
    duration: int | None = None,
    description: str | None = None,
    channel: Place | None | Unset = UNSET,
) -> SessionChanges:
    """Check an edit's values, each once: None leaves a field, ``-`` clears an optional one."""
    changes: dict[str, Any] = {}
    if title is not None:
        changes["title"] = rules.clean_title(title)
    if zone is not None and when is None:
        raise BadInput("Give `when` together with `timezone` (the time zone is how `when` is read).")
    if when is not None:
        if zone is None and session_zone is None:
            raise ValueError("reading `when` without `timezone` needs the session's zone")
        start = _start(when, zone, session_zone or "", now)
        changes.update(starts_at=start.utc, timezone=start.zone, start_note=start.note)
    if presenter_id is not None:
        if presenter_name is not None and presenter_name.strip() == CLEAR:
            raise BadInput("Pick a presenter or remove it with presenter_name `-`, not both.")
        changes["presenter_id"] = presenter_id
        changes["presenter_name"] = rules.clean_presenter_name(presenter_name)
    elif presenter_name is not None:
        changes["presenter_id"] = None  # a guest's name replaces a member, '-' removes both
        changes["presenter_name"] = rules.clean_presenter_name(_cleared(presenter_name))
    if papers is not None:
        given = _cleared(papers) if isinstance(papers, str) else papers
        changes["papers"], changes["reading"] = _papers(given)
        changes["against"] = changes["reading"].against if changes["reading"] else ()
    if signup_url is not None:
        changes["signup_url"] = rules.clean_url(_cleared(signup_url), "The sign-up link")
    if duration is not None:
        changes["duration_minutes"] = rules.check_duration(duration)
    if description is not None:
        changes["description"] = rules.clean_description(_cleared(description))
    if not isinstance(channel, Unset):
        changes["channel_id"] = channel.channel_id if channel else None
        changes["channel_name"] = channel.name if channel else None
    return SessionChanges(**changes)
