"""Checks and parsing for session fields, one definition of each rule (BadInput); a new session or an edit, checked."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from datetime import datetime
from typing import Any, Final

from bot import timeutil
from bot.errors import BadInput
from bot.papers import MAX_PAPERS_PER_LIST, PaperRef, parse_paper_ref, split_paper_list, validate_http_url
from bot.text import clean_line, visible
from bot.when import parse_when

MAX_TITLE: Final = 200
MAX_DESCRIPTION: Final = 2000
MAX_PRESENTER_NAME: Final = 100
MAX_CANCEL_REASON: Final = 500
MIN_DURATION: Final = 15
MAX_DURATION: Final = 600
MAX_DAYS_AHEAD: Final = 730
MAX_SHORT_NAME_WORDS: Final = 4
MAX_SHORT_NAME: Final = 40


@dataclass(frozen=True)
class StartTime:
    """A session start read from user input: UTC, the zone it was read in, and any note on how."""

    utc: datetime
    zone: str
    note: str | None = None


def resolve_start(when: str, timezone: str | None, default_timezone: str, now: datetime) -> StartTime:
    """Read a typed start in ``timezone`` (default the guild's); BadInput when past, in a gap or too far."""
    tz = timeutil.resolve_timezone(timezone or default_timezone)
    parsed = parse_when(when, tz, now)
    check_start(parsed.utc, now)
    zone = parsed.local.tzinfo
    key = getattr(zone, "key", None) or tz.key
    return StartTime(utc=parsed.utc, zone=key, note=parsed.note)


def check_start(starts_at: datetime, now: datetime) -> datetime:
    """A session start as aware UTC; BadInput when it is past or over :data:`MAX_DAYS_AHEAD` days out."""
    utc = timeutil.ensure_aware_utc(starts_at)
    timeutil.ensure_future(utc, now)
    timeutil.ensure_within(utc, now, MAX_DAYS_AHEAD)
    return utc


def clean_title(title: str) -> str:
    """A session title on one line, or BadInput when it is empty or too long."""
    cleaned = clean_line(title)
    if not cleaned:
        raise BadInput("Give the session a title.")
    if len(cleaned) > MAX_TITLE:
        raise BadInput(f"The title is {len(cleaned)} characters; keep it within {MAX_TITLE}.")
    return cleaned


def clean_description(text: str | None) -> str | None:
    """A description with control and invisible characters removed (None when empty), or BadInput when too long."""
    cleaned = visible(text).strip() if text is not None else ""
    if not cleaned:
        return None
    if len(cleaned) > MAX_DESCRIPTION:
        raise BadInput(f"The description is {len(cleaned)} characters; keep it within {MAX_DESCRIPTION}.")
    return cleaned


def clean_presenter_name(name: str | None) -> str | None:
    """A presenter's name on one line (None when empty), or BadInput when too long."""
    cleaned = clean_line(name) if name is not None else ""
    if not cleaned:
        return None
    if len(cleaned) > MAX_PRESENTER_NAME:
        raise BadInput(f"The presenter's name is too long; keep it within {MAX_PRESENTER_NAME} characters.")
    return cleaned


def clean_url(url: str | None, field_name: str) -> str | None:
    """A checked http(s) link, or None when empty."""
    if url is None or not url.strip():
        return None
    return validate_http_url(url, field_name)


def check_duration(minutes: int) -> int:
    """``minutes``, or BadInput when outside the allowed session length."""
    if not MIN_DURATION <= minutes <= MAX_DURATION:
        raise BadInput(f"A session lasts {MIN_DURATION}–{MAX_DURATION} minutes (you gave {minutes}).")
    return minutes


def check_timezone(name: str) -> str:
    """The canonical name of a time zone, or BadInput for an unknown one."""
    return timeutil.resolve_timezone(name).key


def check_paper_count(texts: list[str]) -> list[str]:
    """``texts``, or BadInput when a session would get too many papers."""
    if len(texts) > MAX_PAPERS_PER_LIST:
        raise BadInput(f"That's {len(texts)} papers; a session reads at most {MAX_PAPERS_PER_LIST}.")
    return texts


@dataclass(frozen=True)
class PaperReading:
    """How a `papers` text was read: its pieces, their references (no repeats), whether commas split it."""

    items: tuple[str, ...] = ()
    refs: tuple[PaperRef, ...] = ()
    by_commas: bool = False
    against: tuple[str, ...] = ()  # keys of the refs read against the others ("TMax vs T1")

    @property
    def worth_telling(self) -> bool:
        """Whether the reply should say how the text was read (a comma split it or was kept)."""
        return self.by_commas or bool(self.against) or any("," in item for item in self.items)


_LAST_AND = re.compile(r"\s+(?:and|&)\s+", re.IGNORECASE)
_LIST_AND = re.compile(r"^(?:and|&)\s+", re.IGNORECASE)


def _short_name(part: str) -> bool:
    """A part of a comma list that reads as a short name ('TMax') or a reference, not part of a title."""
    words = part.split()
    if not words:
        return False
    if len(words) == 1 and any(mark in part for mark in "./:"):
        return True  # an id or a link
    starts_like_a_name = part[0].isupper() or part[0].isdigit()
    subtitled = ":" in part  # 'SAGE: hierarchical exploration' is a title
    return (
        starts_like_a_name
        and not subtitled
        and len(words) <= MAX_SHORT_NAME_WORDS
        and len(part) <= MAX_SHORT_NAME
    )


def _comma_list(text: str) -> list[str] | None:
    """The names of a list like 'TMax, Terminal-World and T1', or None when the commas may be a title's."""
    parts = [part.strip() for part in text.strip().split(",")]
    if len(parts) < 2:
        return None
    last = _LIST_AND.sub("", parts[-1])
    pair = _LAST_AND.split(last)
    parts[-1:] = pair if len(pair) == 2 and all(_short_name(p) for p in pair) else [last]
    return parts if all(_short_name(part) for part in parts) else None


_VERSUS = re.compile(r"\s+(?:vs\.?|versus|against)\s+", re.IGNORECASE)
_AGAINST_LINE = re.compile(r"^(?:vs\.?|versus|against)\s*:?\s+", re.IGNORECASE)


def _short_list(text: str) -> list[str] | None:
    """'A, B and C', 'A and B' or 'A' when each reads as a short name or reference, else None."""
    text = text.strip()
    if (names := _comma_list(text)) is not None:
        return names
    pair = _LAST_AND.split(text)
    if len(pair) == 2 and all(_short_name(p) for p in pair):
        return pair
    return [text] if _short_name(text) else None


def _versus(text: str) -> tuple[list[str], list[str]] | None:
    """'TMax vs Terminal-World, T1' as (main, against) when both sides are short lists; else None."""
    sides = _VERSUS.split(text.strip())
    if len(sides) != 2:
        return None
    main, against = _short_list(sides[0]), _short_list(sides[1])
    return (main, against) if main and against else None


def read_papers(text: str | None) -> PaperReading:
    """The `papers` text read once: by lines or ';', else by commas when every part is a short name."""
    if text is None or not text.strip():
        return PaperReading()
    by_commas = False
    roles: list[bool] = []  # per item: read against the others
    if re.search(r"[\n;]", text):
        items = split_paper_list(text)
        roles = [bool(_AGAINST_LINE.match(item)) for item in items]
        items = [_AGAINST_LINE.sub("", item) for item in items]
    elif (versus := _versus(text)) is not None:
        items = check_paper_count([*versus[0], *versus[1]])
        roles = [False] * len(versus[0]) + [True] * len(versus[1])
        by_commas = len(items) > 2 or "," in text
    elif (names := _comma_list(text)) is not None:
        items, by_commas = check_paper_count(names), True
    else:
        items = [text.strip()]
    refs: dict[str, PaperRef] = {}
    against: dict[str, None] = {}
    for item, is_against in zip(items, roles or [False] * len(items), strict=True):
        ref = parse_paper_ref(item)
        if ref.key not in refs and is_against:
            against[ref.key] = None
        refs.setdefault(ref.key, ref)
    if len(against) == len(refs):
        against = {}  # nothing to read them against: every paper is a main one
    return PaperReading(
        items=tuple(items), refs=tuple(refs.values()), by_commas=by_commas, against=tuple(against)
    )


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
        return StartTime(check_start(when, now), check_timezone(zone or default_zone))
    return resolve_start(when, zone, default_zone, now)


def _papers(
    papers: str | Sequence[str | PaperRef] | None,
) -> tuple[tuple[PaperRef, ...], PaperReading | None]:
    """Typed text (as :func:`read_papers` splits it) or papers one by one, repeats dropped."""
    if papers is None:
        return (), None
    if isinstance(papers, str):
        reading = read_papers(papers)
        return reading.refs, reading
    check_paper_count(list(map(str, papers)))
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
    checked_title = clean_title(title)
    start = _start(when, zone, default_zone, now)
    refs, reading = _papers(papers)
    return SessionDraft(
        title=checked_title,
        starts_at=start.utc,
        timezone=start.zone,
        presenter_id=presenter_id,
        presenter_name=clean_presenter_name(presenter_name),
        papers=refs,
        against=reading.against if reading else (),
        signup_url=clean_url(signup_url, "The sign-up link"),
        duration_minutes=check_duration(duration),
        description=clean_description(description),
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
        changes["title"] = clean_title(title)
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
        changes["presenter_name"] = clean_presenter_name(presenter_name)
    elif presenter_name is not None:
        changes["presenter_id"] = None  # a guest's name replaces a member, '-' removes both
        changes["presenter_name"] = clean_presenter_name(_cleared(presenter_name))
    if papers is not None:
        given = _cleared(papers) if isinstance(papers, str) else papers
        changes["papers"], changes["reading"] = _papers(given)
        changes["against"] = changes["reading"].against if changes["reading"] else ()
    if signup_url is not None:
        changes["signup_url"] = clean_url(_cleared(signup_url), "The sign-up link")
    if duration is not None:
        changes["duration_minutes"] = check_duration(duration)
    if description is not None:
        changes["description"] = clean_description(_cleared(description))
    if not isinstance(channel, Unset):
        changes["channel_id"] = channel.channel_id if channel else None
        changes["channel_name"] = channel.name if channel else None
    return SessionChanges(**changes)
