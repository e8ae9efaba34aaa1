"""Calendar files (RFC 5545) for sessions, built with icalendar.

Each session is one VEVENT whose UID never changes, so calendar apps update their copy instead of
adding a second one; SEQUENCE (``sessions.sequence``, raised on every edit and on cancelling) tells
them which copy is newer, and STATUS:CANCELLED removes it. Times are written in UTC (``...Z``), which
every calendar app reads without needing a VTIMEZONE block.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from icalendar import Calendar, Event

from bot.services.sessions.info import SessionInfo
from bot.timeutil import ensure_aware_utc

PRODID = "-//paperclub//Paper club sessions//EN"
UID_DOMAIN = "paperclub.invalid"


def session_uid(info: SessionInfo) -> str:
    """Stable per session (and per guild, so two servers' sessions never collide)."""
    return f"session-{info.guild_id}-{info.id}@{UID_DOMAIN}"


def _description(info: SessionInfo) -> str:
    lines: list[str] = []
    if info.presenter_name:
        lines.append(f"Presenter: {info.presenter_name}")
    if info.papers:
        lines.append("Papers:")
        lines.extend(f"- {p.title}" + (f" <{p.url}>" if p.url else "") for p in info.papers)
    if info.description:
        lines.extend(["", info.description])
    if info.signup_url:
        lines.extend(["", f"Sign up: {info.signup_url}"])
    for label, url in (("Recording", info.recording_url), ("Notes", info.notes_url), ("Wiki", info.wiki_url)):
        if url:
            lines.append(f"{label}: {url}")
    if info.is_cancelled:
        lines.insert(0, "Cancelled" + (f": {info.cancel_reason}" if info.cancel_reason else "."))
    return "\n".join(lines)


def session_event(info: SessionInfo, *, now: datetime) -> Event:
    event = Event()
    event.add("uid", session_uid(info))
    event.add("dtstamp", ensure_aware_utc(now))
    event.add("dtstart", ensure_aware_utc(info.starts_at))
    event.add("dtend", ensure_aware_utc(info.ends_at))
    event.add("sequence", info.sequence)
    event.add("status", "CANCELLED" if info.is_cancelled else "CONFIRMED")
    event.add("summary", info.title)
    event.add("location", info.signup_url or "Video call")
    if info.signup_url:
        event.add("url", info.signup_url)
    description = _description(info)
    if description:
        event.add("description", description)
    return event


def calendar_bytes(sessions: Iterable[SessionInfo], *, now: datetime, name: str = "Paper club") -> bytes:
    """A whole VCALENDAR (METHOD:PUBLISH) with one VEVENT per session."""
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", name)
    for info in sessions:
        calendar.add_component(session_event(info, now=now))
    return calendar.to_ical()


def session_filename(info: SessionInfo) -> str:
    return f"paperclub-session-{info.id}.ics"
