"""Calendar files (RFC 5545), built with icalendar: one-off sessions, and series as repeating events."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

from icalendar import Calendar, Event, Timezone
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.services.series import store as series_store
from bot.services.series import weeks as series_weeks
from bot.services.series.info import SeriesInfo, WeekInfo
from bot.services.sessions import queries
from bot.services.sessions.info import SessionInfo
from bot.services.sessions.store import get_session
from bot.text import one_line
from bot.timeutil import ensure_aware_utc

BYDAY = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
TIMEZONE_YEARS = 10  # the VTIMEZONE spells out each zone's changes this far past the series' start

PRODID = "-//paperclub//Paper club sessions//EN"
UID_DOMAIN = "paperclub.invalid"


def session_uid(info: SessionInfo) -> str:
    """Stable per session (and per guild, so two servers' sessions never collide)."""
    return f"session-{info.guild_id}-{info.id}@{UID_DOMAIN}"


PaperPage = Callable[[int], str | None]
"""A paper's page on the club's site by paper id (None: no page), given when the site is on."""


def _description(info: SessionInfo, page: str | None = None) -> str:
    lines: list[str] = []
    if info.presenter_name:
        lines.append(f"Presenter: {info.presenter_name}")
    if info.papers:
        lines.append("Papers:")
        lines.extend(f"- {p.title}" + (f" <{p.url}>" if p.url else "") for p in info.main_papers)
        if info.against:
            lines.append("Read against:")
            lines.extend(f"- {p.title}" + (f" <{p.url}>" if p.url else "") for p in info.against_papers)
    if page:
        lines.append(f"Paper page: {page}")
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


def _vevent(
    info: SessionInfo,
    now: datetime,
    *,
    uid: str,
    start: datetime | date,
    end: datetime | date,
    sequence: int,
    recurrence_id: datetime | None = None,
    paper_page: PaperPage | None = None,
) -> Event:
    """The session's VEVENT; its one URL (RFC 5545 3.8.4.6) the sign-up page, else its one main paper's page.
    icalendar writes typed text as typed but for ``\\N`` (a line break) and a leading U+FEFF (dropped)."""
    main = info.main_papers
    page = paper_page(main[0].id) if paper_page is not None and len(main) == 1 else None
    event = Event()
    event.add("summary", info.title)
    event.add("dtstart", start)
    event.add("dtend", end)
    event.add("dtstamp", ensure_aware_utc(now))
    event.add("uid", uid)
    if recurrence_id is not None:
        event.add("recurrence-id", recurrence_id)
    event.add("sequence", sequence)
    description = _description(info, page)
    if description:
        event.add("description", description)
    event.add("location", info.signup_url or "Video call")
    event.add("status", "CANCELLED" if info.is_cancelled else "CONFIRMED")
    if info.signup_url or page:
        event.add("url", info.signup_url or page)
    return event


def session_event(info: SessionInfo, *, now: datetime, paper_page: PaperPage | None = None) -> Event:
    """A one-off session's VEVENT: its times in UTC; a session dated only, its day, all day."""
    start: datetime | date = ensure_aware_utc(info.starts_at)
    end: datetime | date = ensure_aware_utc(info.ends_at)
    if info.date_only:  # RFC 5545 3.6.1: a date-valued DTSTART; DTEND the day after (exclusive)
        start = info.starts_at.astimezone(ZoneInfo(info.timezone)).date()
        end = start + timedelta(days=1)
    uid = session_uid(info)
    return _vevent(info, now, uid=uid, start=start, end=end, sequence=info.sequence, paper_page=paper_page)


@dataclass(frozen=True)
class SeriesCalendar:
    """A series and its stored weeks from the first week of its current rule on (what the VEVENT covers)."""

    info: SeriesInfo
    weeks: tuple[WeekInfo, ...] = ()


def series_uid(info: SeriesInfo) -> str:
    """The calendar UID of a series' recurring event."""
    return f"series-{info.guild_id}-{info.id}@{UID_DOMAIN}"


def _local(when: datetime | date, at: time | None, zone: ZoneInfo) -> datetime:
    if isinstance(when, datetime):
        return ensure_aware_utc(when).astimezone(zone)
    assert at is not None
    return datetime.combine(when, at, tzinfo=zone)


def _differs(week: WeekInfo, club: SessionInfo, info: SeriesInfo) -> bool:
    """Whether the week needs its own VEVENT: moved, or its own title, presenter, papers, length or text."""
    return (
        week.is_moved
        or club.title != info.name
        or bool(club.presenter_id or club.presenter_name)
        or bool(club.papers)
        or club.duration_minutes != info.duration_minutes
        or (club.description or None) != (info.description or None)
    )


def series_events(calendar: SeriesCalendar, *, now: datetime) -> list[Event]:
    """The series' VEVENT (RRULE, EXDATE) and one overriding VEVENT per week that differs from it."""
    info, rule = calendar.info, calendar.info.rule
    zone = rule.tz
    start = _local(rule.anchor, rule.start, zone)
    master = Event()
    master.add("uid", series_uid(info))
    master.add("dtstamp", ensure_aware_utc(now))
    master.add("dtstart", start)
    master.add("dtend", start + timedelta(minutes=info.duration_minutes))
    repeat: dict[str, object] = {"FREQ": "WEEKLY", "INTERVAL": rule.interval, "BYDAY": BYDAY[rule.weekday]}
    if rule.until is not None:
        # With DTSTART in a zone, UNTIL is in UTC (RFC 5545, 3.3.10): the end of the last day, there.
        last = datetime.combine(rule.until, time(23, 59, 59), tzinfo=zone).astimezone(UTC)
        repeat["UNTIL"] = last
    master.add("rrule", repeat)
    skipped = [
        _local(week.week_date, rule.start, zone)
        for week in calendar.weeks
        if week.is_skipped and rule.meets_on(week.week_date)
    ]
    if skipped:
        master.add("exdate", skipped)
    master.add("sequence", info.sequence)
    master.add("status", "CONFIRMED")
    master.add("summary", info.name)
    master.add("location", info.signup_url or "Video call")
    if info.signup_url:
        master.add("url", info.signup_url)
    signup = f"Sign up: {info.signup_url}" if info.signup_url else None
    if lines := [line for line in (info.description, signup) if line]:
        master.add("description", "\n\n".join(lines))
    events = [master]
    for week in calendar.weeks:
        club = week.session
        if (
            club is None
            or not week.is_scheduled
            or not rule.meets_on(week.week_date)
            or not _differs(week, club, info)
        ):
            continue
        events.append(
            _vevent(
                club,
                now,
                uid=series_uid(info),
                start=_local(club.starts_at, None, zone),
                end=_local(club.ends_at, None, zone),
                sequence=info.sequence + club.sequence,
                recurrence_id=_local(week.week_date, rule.start, zone),
            )
        )
    return events


@lru_cache(maxsize=64)
def _timezone(zone: str, first: date, last: date) -> Timezone:
    """The zone's VTIMEZONE (its changes from ``first`` to ``last``), built once per process."""
    return Timezone.from_tzid(zone, first_date=first, last_date=last)


def _timezones(series: Sequence[SeriesCalendar]) -> list[Timezone]:
    spans: dict[str, tuple[date, date]] = {}
    for item in series:
        rule = item.info.rule
        first = date(rule.anchor.year, 1, 1)
        last = date((rule.until or rule.anchor).year + TIMEZONE_YEARS, 1, 1)
        known = spans.get(rule.zone)
        spans[rule.zone] = (min(first, known[0]), max(last, known[1])) if known else (first, last)
    return [_timezone(zone, a, b) for zone, (a, b) in sorted(spans.items())]


def calendar_bytes(
    sessions: Iterable[SessionInfo],
    *,
    now: datetime,
    name: str = "Paper club",
    series: Sequence[SeriesCalendar] = (),
    paper_page: PaperPage | None = None,
) -> bytes:
    """A whole VCALENDAR (METHOD:PUBLISH): the series, and each session that is not a week of one."""
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    # Written as given (icalendar types it unknown, unescaped), and it refuses a line break: one line.
    calendar.add("x-wr-calname", name.replace("\r\n", " ").replace("\r", " ").replace("\n", " "))
    covered = {week.session.id for item in series for week in item.weeks if week.session is not None}
    for zone in _timezones(series):
        calendar.add_component(zone)
    for item in series:
        for event in series_events(item, now=now):
            calendar.add_component(event)
    for info in sessions:
        if info.id not in covered:
            calendar.add_component(session_event(info, now=now, paper_page=paper_page))
    return calendar.to_ical()


def session_filename(info: SessionInfo) -> str:
    """The file name of a session's .ics."""
    return f"paperclub-session-{info.id}.ics"


async def series_calendars(
    session: AsyncSession, guild_id: int, now: datetime, *, series_id: int | None = None
) -> list[SeriesCalendar]:
    """Every series of the guild (or one), with its weeks from its current rule's first week on."""
    listed = await series_store.list_series(session, guild_id)
    if not listed:
        return []  # most guilds: one read, not two (the feeds call this on every build)
    settings = await series_store.get_settings(session, guild_id)
    found = []
    for info in listed:
        if series_id is not None and info.id != series_id:
            continue
        weeks = await series_weeks.weeks_view(
            session, info, now, settings.horizon_weeks, since=info.rule.anchor
        )
        found.append(SeriesCalendar(info, tuple(weeks)))
    return found


async def guild_calendar(
    factory: async_sessionmaker[AsyncSession], guild_id: int, now: datetime, *, name: str
) -> tuple[bytes, int]:
    """/calendar file: every upcoming session and series; and how many sessions (weeks included)."""
    async with factory() as session:
        infos = await queries.list_upcoming(session, guild_id, now, limit=500, include_cancelled=True)
        series = await series_calendars(session, guild_id, now)
    count = sum(1 for info in infos if not info.is_cancelled)
    return calendar_bytes(infos, now=now, name=name, series=series), count


async def session_calendar(
    factory: async_sessionmaker[AsyncSession], guild_id: int, session_id: int, now: datetime
) -> tuple[SessionInfo, bytes]:
    """Add to calendar: the session, or for a week of a series the whole series."""
    async with factory() as session:
        info = await get_session(session, guild_id, session_id)
        name = one_line(info.title, 100)
        if info.series_id is None:
            return info, calendar_bytes([info], now=now, name=name)
        series = await series_calendars(session, guild_id, now, series_id=info.series_id)
    return info, calendar_bytes([], now=now, name=series[0].info.name if series else name, series=series)
