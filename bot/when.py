"""The times users type ("Thursday 9:30am", "in 2 hours", "2026-11-05 08:00", "<t:1762358400:F>"); no I/O."""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Final
from zoneinfo import ZoneInfo

from bot import timeutil
from bot.errors import BadInput

# fmt: off
_WEEKDAY_WORDS = {**{w: i for i, w in enumerate(timeutil.WEEKDAYS)},
                  **{w[:3]: i for i, w in enumerate(timeutil.WEEKDAYS)},
                  "tues": 1, "weds": 2, "thur": 3, "thurs": 3}
_MONTH_WORDS = {**{m: i for i, m in enumerate(timeutil.MONTHS, 1)},
                **{m[:3]: i for i, m in enumerate(timeutil.MONTHS, 1)},
                "sept": 9}
_WEEKDAY_RE = "|".join(sorted(_WEEKDAY_WORDS, key=len, reverse=True))
_MONTH_RE = "|".join(sorted(_MONTH_WORDS, key=len, reverse=True))
# fmt: on
_TIME = r"(?P<h>\d{1,2})(?:[:.](?P<m>\d{2}))?\s*(?P<ap>[ap]\.?m\.?)?|(?P<word>noon|midnight)"
#: The longest time :func:`parse_when` reads (the `when` options' and form fields' limit).
MAX_TEXT: Final = 100
#: The longest time of day :func:`parse_clock` reads.
MAX_CLOCK_TEXT: Final = 20
_ACCEPTED = (
    "2026-11-05 08:00, 5 Nov 2026 8:00 AM, next thursday 9:30am, tomorrow 17:00, this friday 5pm, in 2 hours"
)
# discord-api-docs, Reference → Message Formatting → Timestamp Styles.
_TIMESTAMP = re.compile(r"<t:(-?\d+)(?::[tTdDfFsSR])?>")
_LOOKS_LIKE_TIMESTAMP = re.compile(r"<\s*t\s*:", re.IGNORECASE)
_TIMESTAMP_EXAMPLE = "`<t:1796320800:F>`"
# What gives a time of day: without any, a text names a day alone ("next thursday").
_HAS_CLOCK = re.compile(r"\d\s*[ap]\.?m\b|\d[:.]\d\d|\bnoon\b|\bmidnight\b")
# Units of `in …` counted on the calendar (the same wall-clock time N days on); hours and minutes elapse.
_CALENDAR_UNITS = re.compile(r"(\d+)\s*(w|wks?|weeks?|d|days?)(?![a-z])")
_IN = re.compile(rf"in\s+(?P<a>an?\s+)?(?P<span>.+?)(?:\s+(?P<clock>{_TIME}))?")


@dataclass(frozen=True)
class ParsedTime:
    """A parsed user time: ``utc`` (aware UTC), ``local`` (aware, in the zone it was read in)."""

    utc: datetime
    local: datetime
    note: str | None = None


def _match_clock(text: str) -> time | None:
    m = re.fullmatch(_TIME, text.strip())
    if m is None:
        return None
    word = m.group("word")
    if word:
        return time(12 if word == "noon" else 0)
    hour, minute, ap = int(m.group("h")), int(m.group("m") or 0), m.group("ap")
    if ap is None and m.group("m") is None:
        raise BadInput(f"“{m.group(0)}” needs minutes or AM/PM, e.g. {hour}:00 or {hour}pm.")
    if ap:
        if not 1 <= hour <= 12:
            raise BadInput(f"“{m.group(0)}” is not a valid 12-hour time; use 1–12 with AM/PM.")
        hour = hour % 12 + (12 if ap.startswith("p") else 0)
    if hour > 23 or minute > 59:
        raise BadInput(f"“{m.group(0)}” is not a valid time of day.")
    return time(hour, minute)


def _split_day_and_clock(text: str, day_re: str) -> tuple[str, time] | None:
    """Match '<day> <time>' or '<time> <day>'; returns the day word and the time."""
    for pattern in (rf"(?P<day>{day_re})\s+(?P<clock>.+)", rf"(?P<clock>.+?)\s+(?P<day>{day_re})"):
        m = re.fullmatch(pattern, text)
        if m:
            clock = _match_clock(m.group("clock"))
            if clock is not None:
                return m.group("day"), clock
    return None


def make_date(year: int, month: int, day: int, now: datetime) -> date:
    """The calendar date, within :func:`bot.timeutil.date_window` of ``now``; BadInput naming what is wrong."""
    first, last = timeutil.date_window(now)
    if not first.year <= year <= last.year:
        raise timeutil.out_of_range(now)
    if not 1 <= month <= 12:
        raise BadInput(f"There is no month {month}; use 1–12.")
    try:
        return date(year, month, day)
    except ValueError:
        raise BadInput(f"{timeutil.MONTHS[month - 1].title()} {year} has no day {day}.") from None


def _next_yearless(month: int, day: int, clock: time, now_local: datetime) -> date:
    for year in range(now_local.year, now_local.year + 9):
        if 1 <= day <= calendar.monthrange(year, month)[1]:
            d = date(year, month, day)
            if datetime.combine(d, clock, tzinfo=now_local.tzinfo) > now_local:
                return d
    raise BadInput(f"{timeutil.MONTHS[month - 1].title()} has no day {day}.")


def _calendar_date(text: str, now_local: datetime) -> tuple[date, time] | None:
    """ISO dates, '5 Nov 2026 8am', 'Nov 5 2026 8am', optionally led by a weekday name."""
    m = re.fullmatch(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:t|\s+)(.+?))?", text)
    if m:
        if m.group(4) is None:
            raise BadInput(f"Please add a time of day, e.g. {m.group(0)} 09:30.")
        clock = _match_clock(re.sub(r"^(\d{1,2}:\d{2}):\d{2}(?:\.\d+)?$", r"\1", m.group(4)))
        if clock is None:
            return None
        return make_date(int(m.group(1)), int(m.group(2)), int(m.group(3)), now_local), clock
    lead = rf"(?:(?P<wd>{_WEEKDAY_RE})\s+)?"
    day_first = rf"{lead}(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mo>{_MONTH_RE})\.?"
    month_first = rf"{lead}(?P<mo>{_MONTH_RE})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?"
    for pattern in (day_first, month_first):
        m = re.fullmatch(rf"{pattern}(?:\s+(?P<y>\d{{4}}))?\s+(?P<clock>.+)", text)
        clock = _match_clock(m.group("clock")) if m else None
        if m is None or clock is None:
            continue
        month, day = _MONTH_WORDS[m.group("mo")], int(m.group("d"))
        if m.group("y"):
            d = make_date(int(m.group("y")), month, day, now_local)
        else:
            d = _next_yearless(month, day, clock, now_local)
        if m.group("wd") and _WEEKDAY_WORDS[m.group("wd")] != d.weekday():
            raise BadInput(
                f"{timeutil.format_long_date(d, weekday=False)} is a {timeutil.WEEKDAYS[d.weekday()].title()}, "
                f"not a {timeutil.WEEKDAYS[_WEEKDAY_WORDS[m.group('wd')]].title()}."
            )
        return d, clock
    return None


def _relative_date(text: str, now_local: datetime, tz: ZoneInfo, now: datetime) -> tuple[date, time] | None:
    """'today 5pm', 'tomorrow 17:00', '(next) thursday 9:30am', and a bare time '9:30am'."""
    today = now_local.date()
    found = _split_day_and_clock(text, r"today|tonight|tomorrow|tmrw")
    if found:
        return today + timedelta(days=0 if found[0] in ("today", "tonight") else 1), found[1]
    found = _split_day_and_clock(text, rf"(?:next\s+|this\s+)?(?:{_WEEKDAY_RE})")
    if found:
        weekday, clock = _WEEKDAY_WORDS[found[0].split()[-1]], found[1]
        for ahead in range(1 if found[0].startswith("next") else 0, 8):
            d = today + timedelta(days=ahead)
            if d.weekday() == weekday and timeutil.wall_to_utc(d, clock, tz) > now:
                return d, clock
    bare = _match_clock(text)
    if bare is not None:
        later = timeutil.wall_to_utc(today, bare, tz) > now
        return today + timedelta(days=0 if later else 1), bare
    return None


def _dateparser_fallback(text: str, tz: ZoneInfo, now_local: datetime) -> tuple[date, time] | None:
    if not _HAS_CLOCK.search(text):
        return None  # dateparser silently fills in the current time when none is given
    import dateparser  # lazy: slow import, rarely needed

    settings = {"RELATIVE_BASE": now_local, "TIMEZONE": tz.key, "TO_TIMEZONE": tz.key}
    settings |= {"RETURN_AS_TIMEZONE_AWARE": True, "PREFER_DATES_FROM": "future"}
    try:
        result = dateparser.parse(text, languages=["en"], settings=settings)
    except Exception:  # noqa: BLE001  dateparser raises assorted error types on odd input: all mean no date
        return None
    if not isinstance(result, datetime) or result.tzinfo is None:
        return None
    return result.date(), result.time().replace(second=0, microsecond=0)


def is_timestamp(text: str) -> bool:
    """Whether ``text`` is one Discord timestamp (``<t:1762358400>``, ``<t:1762358400:F>``), read or not."""
    return _TIMESTAMP.fullmatch(text.strip()) is not None


def pasted_instant(text: str, now: datetime) -> datetime | None:
    """The instant a pasted ``<t:…>`` names, None if ``text`` is none; BadInput if broken or out of range."""
    cleaned = text.strip()
    m = _TIMESTAMP.fullmatch(cleaned)
    if m is None:
        if _LOOKS_LIKE_TIMESTAMP.match(cleaned):
            shown = cleaned[:40].replace("`", "")
            raise BadInput(
                f"`{shown}` is not a Discord timestamp I can read; paste one as Discord writes it, like "
                f"{_TIMESTAMP_EXAMPLE}, or type a time, e.g. {_ACCEPTED}."
            )
        return None
    first, last = timeutil.date_window(now)
    start = datetime.combine(first, time(), tzinfo=UTC)
    end = datetime.combine(last, time(), tzinfo=UTC) + timedelta(days=1)
    digits = m.group(1).lstrip("-")
    # Compared as numbers: datetime itself overflows on the largest. More digits than any in the window: out.
    seconds = int(m.group(1)) if len(digits) <= 15 else None
    if seconds is None or not start.timestamp() <= seconds < end.timestamp():
        raise timeutil.out_of_range(now)
    return datetime.fromtimestamp(seconds, tz=UTC)


def parse_when(text: str, tz: ZoneInfo, now: datetime, *, default_clock: time | None = None) -> ParsedTime:
    """A user-typed time, read in ``tz`` (or a trailing zone, 'PT'); a day alone is read at ``default_clock``."""
    now = timeutil.ensure_aware_utc(now)
    cleaned = text.strip()
    if not cleaned:
        raise BadInput(f"Please give a time, e.g. {_ACCEPTED}.")
    if len(cleaned) > MAX_TEXT:
        raise BadInput(f"That time is too long to read; try e.g. {_ACCEPTED}.")
    if (instant := pasted_instant(cleaned, now)) is not None:
        return ParsedTime(utc=instant, local=instant.astimezone(tz))
    lowered = cleaned.split(" / ")[0].casefold().replace(",", " ")
    lowered = re.sub(r"\s+", " ", re.sub(r"\bat\b|\bon\b", " ", lowered)).strip()
    zone_words = lowered.rsplit(" ", 1)
    if len(zone_words) == 2 and (explicit := timeutil.lookup_zone(zone_words[1])) is not None:
        tz, lowered = explicit, zone_words[0]
    elif lowered.endswith("z") and re.match(r"\d{4}-", lowered):
        tz, lowered = ZoneInfo("UTC"), lowered[:-1].strip()
    lowered = re.sub(r"^(.+?)\s+from\s+now$", r"in \1", lowered)
    if lowered.startswith("in "):
        return _parse_in(lowered, cleaned, tz, now)
    if m := re.search(r"\b\d{1,2}/\d{1,2}\b|\b\d{1,2}[.-]\d{1,2}[.-]\d{2,4}\b", lowered):
        raise BadInput(
            f"“{m.group(0)}” could be day/month or month/day; write the month as a word "
            "(5 Nov 2026 8:00 AM) or use 2026-11-05 08:00."
        )
    now_local = now.astimezone(tz)
    note = None
    if not _HAS_CLOCK.search(lowered) and (day := _day_alone(lowered, now_local, tz, now, default_clock)):
        if default_clock is None:
            named = timeutil.club_date(day, tz, now=now)
            raise BadInput(f"“{cleaned[:40]}” is {named}; add a time of day, e.g. {cleaned[:40]} 9:30am.")
        found: tuple[date, time] | None = (day, default_clock)
        note = f"no time of day given, so {timeutil.format_clock(default_clock)}"
    else:
        found = (
            _calendar_date(lowered, now_local)
            or _relative_date(lowered, now_local, tz, now)
            or _dateparser_fallback(lowered, tz, now_local)
        )
    if found is None:
        raise BadInput(f"I couldn't read “{cleaned[:60]}” as a time. Try e.g. {_ACCEPTED}.")
    local, dst_note = timeutil.localize(timeutil.in_window(found[0], now), found[1], tz)
    return ParsedTime(utc=local.astimezone(UTC), local=local, note=dst_note or note)


def _day_alone(
    text: str, now_local: datetime, tz: ZoneInfo, now: datetime, default_clock: time | None
) -> date | None:
    """The day a text naming a day alone ('next thursday', '5 Dec') means; None when it is not one."""
    clock = default_clock or time(23, 59)
    phrase = f"{text} {clock:%H:%M}"
    try:
        found = _calendar_date(phrase, now_local) or _relative_date(phrase, now_local, tz, now)
    except BadInput:
        return None
    return found[0] if found is not None else None


def _parse_in(lowered: str, cleaned: str, tz: ZoneInfo, now: datetime) -> ParsedTime:
    """'in 2 hours' (elapsed), 'in 3 days' (same wall time), 'in 2 days at 5pm'."""
    m = _IN.fullmatch(lowered)
    span = f"{'1 ' if m and m.group('a') else ''}{m.group('span') if m else ''}"
    clock_text = m.group("clock") if m else None
    if clock_text and (not _HAS_CLOCK.search(clock_text) or timeutil.offset_seconds(f"{span} {clock_text}")):
        span, clock_text = f"{span} {clock_text}", None  # 'in 1 day 2h': all of it a duration
    seconds = timeutil.offset_seconds(span)
    if seconds is None or seconds <= 0:
        raise BadInput(
            f"I couldn't read “{cleaned[:60]}” as a time. Try e.g. in 2 hours, in 30 minutes, in 3 days or "
            "in 2 days at 5pm."
        )
    _, last = timeutil.date_window(now)
    if seconds > (datetime.combine(last, time(), tzinfo=UTC) - now).total_seconds():
        raise timeutil.out_of_range(now)  # checked on the number: `now + delta` itself could overflow
    days = sum(int(n) * (7 if unit[0] == "w" else 1) for n, unit in _CALENDAR_UNITS.findall(span))
    elapsed = seconds - days * 86400
    local = now.astimezone(tz)
    if clock_text is not None:
        clock = _match_clock(clock_text)
        if clock is None or elapsed:
            raise BadInput(
                f"Give whole days with a time of day, e.g. in 2 days at 5pm (not “{cleaned[:40]}”)."
            )
        wall, note = timeutil.localize(
            timeutil.in_window(local.date() + timedelta(days=days), now), clock, tz
        )
        return ParsedTime(utc=wall.astimezone(UTC), local=wall, note=note)
    day = timeutil.in_window((local + timedelta(days=days)).date(), now)
    utc = timeutil.wall_to_utc(day, local.time().replace(tzinfo=None), tz) + timedelta(seconds=elapsed)
    timeutil.in_window(utc.astimezone(tz).date(), now)
    return ParsedTime(utc=utc, local=utc.astimezone(tz))


def parse_clock(text: str) -> time:
    """A time of day as typed: '9:30am', '9:30 AM', '17:30', '5pm', 'noon'. BadInput when unreadable."""
    cleaned = " ".join(text.strip().casefold().split())
    clock = _match_clock(cleaned) if len(cleaned) <= MAX_CLOCK_TEXT else None
    if clock is None:
        raise BadInput(
            f"I couldn't read “{text.strip()[:40]}” as a time of day; write it like 9:30am or 17:30."
        )
    return clock
