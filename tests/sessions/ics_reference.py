"""The calendar builder as it was before the one-off and override VEVENTs were written as lines
(``bot.services.calendars.ics``, commit c6368fd): every component built and serialised by icalendar.
Kept as the oracle the direct writer is checked against, byte for byte."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, datetime

from icalendar import Calendar, Event, Timezone

from bot.services.calendars.ics import (
    PRODID,
    TIMEZONE_YEARS,
    SeriesCalendar,
    _description,
    _differs,
    _local,
    series_master,
    series_uid,
    session_uid,
)
from bot.services.sessions.info import SessionInfo
from bot.timeutil import ensure_aware_utc


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


def series_events(calendar: SeriesCalendar, *, now: datetime) -> list[Event]:
    info, rule = calendar.info, calendar.info.rule
    zone = rule.tz
    events = [series_master(calendar, now=now)]
    for week in calendar.weeks:
        if not week.is_scheduled or week.session is None or not rule.meets_on(week.week_date):
            continue
        if not _differs(week, info):
            continue
        club = week.session
        override = session_event(club, now=now)
        del override["uid"]
        override.add("uid", series_uid(info))
        del override["dtstart"], override["dtend"], override["sequence"]
        override.add("recurrence-id", _local(week.week_date, rule.start, zone))
        override.add("dtstart", _local(club.starts_at, None, zone))
        override.add("dtend", _local(club.ends_at, None, zone))
        override.add("sequence", info.sequence + club.sequence)
        events.append(override)
    return events


def _timezones(series: Sequence[SeriesCalendar]) -> list[Timezone]:
    spans: dict[str, tuple[date, date]] = {}
    for item in series:
        rule = item.info.rule
        first = date(rule.anchor.year, 1, 1)
        last = date((rule.until or rule.anchor).year + TIMEZONE_YEARS, 1, 1)
        known = spans.get(rule.zone)
        spans[rule.zone] = (min(first, known[0]), max(last, known[1])) if known else (first, last)
    return [Timezone.from_tzid(zone, first_date=a, last_date=b) for zone, (a, b) in sorted(spans.items())]


def calendar_bytes(
    sessions: Iterable[SessionInfo],
    *,
    now: datetime,
    name: str = "Paper club",
    series: Sequence[SeriesCalendar] = (),
) -> bytes:
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", name)
    covered = set().union(*(item.covered for item in series)) if series else set()
    for zone in _timezones(series):
        calendar.add_component(zone)
    for item in series:
        for event in series_events(item, now=now):
            calendar.add_component(event)
    for info in sessions:
        if info.id not in covered:
            calendar.add_component(session_event(info, now=now))
    return calendar.to_ical()
