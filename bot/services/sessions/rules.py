"""Checks and parsing for session fields, shared by the sessions service, the programme import and the
suggestions feature. Pure: no store, no discord. Each raises BadInput with the user's message."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final

from bot import timeutil
from bot.errors import BadInput
from bot.papers import MAX_PAPERS_PER_LIST, split_paper_list, validate_http_url
from bot.text import clean_line, visible

MAX_TITLE: Final = 200
MAX_DESCRIPTION: Final = 2000
MAX_PRESENTER_NAME: Final = 100
MAX_CANCEL_REASON: Final = 500
MIN_DURATION: Final = 15
MAX_DURATION: Final = 600
MAX_DAYS_AHEAD: Final = 730


@dataclass(frozen=True)
class StartTime:
    """A session start read from user input: UTC, the zone it was read in, and any note
    (e.g. which of two ambiguous fall-back times was taken)."""

    utc: datetime
    zone: str
    note: str | None = None


def resolve_start(when: str, timezone: str | None, default_timezone: str, now: datetime) -> StartTime:
    """Read a typed start ('2026-11-05 08:00', 'Thursday 9:30am', 'tomorrow 17:00 UK') in
    ``timezone`` (default the guild's). Rejects past times, DST-gap times and times over 2 years out."""
    tz = timeutil.resolve_timezone(timezone or default_timezone)
    parsed = timeutil.parse_when(when, tz, now)
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
    cleaned = clean_line(title)
    if not cleaned:
        raise BadInput("Give the session a title.")
    if len(cleaned) > MAX_TITLE:
        raise BadInput(f"The title is {len(cleaned)} characters; keep it within {MAX_TITLE}.")
    return cleaned


def clean_description(text: str | None) -> str | None:
    cleaned = visible(text).strip() if text is not None else ""
    if not cleaned:
        return None
    if len(cleaned) > MAX_DESCRIPTION:
        raise BadInput(f"The description is {len(cleaned)} characters; keep it within {MAX_DESCRIPTION}.")
    return cleaned


def clean_presenter_name(name: str | None) -> str | None:
    cleaned = clean_line(name) if name is not None else ""
    if not cleaned:
        return None
    if len(cleaned) > MAX_PRESENTER_NAME:
        raise BadInput(f"The presenter's name is too long; keep it within {MAX_PRESENTER_NAME} characters.")
    return cleaned


def clean_url(url: str | None, field_name: str) -> str | None:
    if url is None or not url.strip():
        return None
    return validate_http_url(url, field_name)


def check_duration(minutes: int) -> int:
    if not MIN_DURATION <= minutes <= MAX_DURATION:
        raise BadInput(f"A session lasts {MIN_DURATION}–{MAX_DURATION} minutes (you gave {minutes}).")
    return minutes


def check_timezone(name: str) -> str:
    return timeutil.resolve_timezone(name).key


def check_paper_count(texts: list[str]) -> list[str]:
    if len(texts) > MAX_PAPERS_PER_LIST:
        raise BadInput(f"That's {len(texts)} papers; a session reads at most {MAX_PAPERS_PER_LIST}.")
    return texts


def paper_texts(text: str | None) -> list[str]:
    """The `papers` option: one per line or separated by ';'. Empty means none."""
    if text is None or not text.strip():
        return []
    return split_paper_list(text)
