"""Time zones, reminder offsets, wall-clock helpers and the club's time format; every datetime out is aware."""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from typing import Literal
from zoneinfo import ZoneInfo, available_timezones

from bot.errors import BadInput

#: Input zone abbreviations: a region's follows its DST rules whatever season it names; GMT is fixed UTC+0.
# fmt: off
CLUB_ZONE_ABBREVIATIONS: dict[str, str] = {
    "PT": "America/Los_Angeles", "PST": "America/Los_Angeles", "PDT": "America/Los_Angeles",
    "MT": "America/Denver", "CT": "America/Chicago",
    "ET": "America/New_York", "EST": "America/New_York", "EDT": "America/New_York",
    "UK": "Europe/London", "BST": "Europe/London", "GMT": "Etc/GMT",
    "CET": "Europe/Paris", "CEST": "Europe/Paris", "IST": "Asia/Kolkata", "UTC": "UTC",
}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("january", "february", "march", "april", "may", "june", "july",
          "august", "september", "october", "november", "december")
# fmt: on
_OFFSET_UNITS = {"w": 7 * 86400, "d": 86400, "h": 3600, "m": 60}
_OFFSET_TOKEN = re.compile(r"(\d+)\s*(w|wks?|weeks?|d|days?|h|hrs?|hours?|m|mins?|minutes?)(?![a-z])")
#: The longest duration text read ('1 hour and 30 minutes'); longer is refused before any pattern runs on it.
MAX_OFFSET_TEXT = 100
#: The longest zone name an option or form field takes (the store's timezone columns hold 64).
MAX_ZONE_TEXT = 64

#: What the parser reads (years around now's, durations), far from datetime's limits; services narrow it.
YEARS_AROUND_NOW = 100
MAX_OFFSET = timedelta(days=3650)


@dataclass(frozen=True)
class DisplayZone:
    """A zone shown in club times. ``label=None`` uses the zone's own abbreviation on that date."""

    zone: str
    label: str | None = None


#: The club page's zones: PT, London (GMT in winter, BST in summer), IST.
DEFAULT_DISPLAY_ZONES: tuple[DisplayZone, ...] = (
    DisplayZone("America/Los_Angeles", "PT"),
    DisplayZone("Europe/London", None),
    DisplayZone("Asia/Kolkata", "IST"),
)


def ensure_aware_utc(dt: datetime) -> datetime:
    """Return ``dt`` converted to UTC; raise ValueError if it is naive (a programming error)."""
    if dt.tzinfo is None or dt.utcoffset() is None:
        raise ValueError(f"naive datetime not allowed: {dt!r}")
    return dt.astimezone(UTC)


def date_window(now: datetime) -> tuple[date, date]:
    """The first and last dates :func:`bot.when.parse_when` reads, around ``now``."""
    year = ensure_aware_utc(now).year
    first = max(1, year - YEARS_AROUND_NOW)
    last = min(9998, year + YEARS_AROUND_NOW)  # 9998: a zone's offset must not carry UTC past 9999
    return date(first, 1, 1), date(last, 12, 31)


def in_window(day: date, now: datetime) -> date:
    """``day`` when it is in :func:`date_window`, else BadInput (:func:`out_of_range`)."""
    first, last = date_window(now)
    if not first <= day <= last:
        raise out_of_range(now)
    return day


def out_of_range(now: datetime) -> BadInput:
    """The BadInput for a date outside the window sessions may be set in."""
    first, last = date_window(now)
    return BadInput(
        f"Dates must be between {format_long_date(first, weekday=False)} and "
        f"{format_long_date(last, weekday=False)}."
    )


@lru_cache(maxsize=1)
def _iana_names() -> dict[str, str]:
    """Every IANA zone by its case-folded name, in name order (read from disk once)."""
    return {name.casefold(): name for name in sorted(available_timezones())}


def lookup_zone(name: str) -> ZoneInfo | None:
    """The zone an IANA name (any case) or a club abbreviation names, else None."""
    cleaned = name.strip()
    target = CLUB_ZONE_ABBREVIATIONS.get(cleaned.upper())
    if target is None:
        target = _iana_names().get(cleaned.replace(" ", "_").casefold())
    return ZoneInfo(target) if target else None


def resolve_timezone(name: str) -> ZoneInfo:
    """An IANA zone name (any case) or a club abbreviation (see CLUB_ZONE_ABBREVIATIONS)."""
    zone = lookup_zone(name) if name.strip() else None
    if zone is None:
        shown = name.strip()[:60] or "(empty)"
        raise BadInput(
            f"I don't know the time zone “{shown}”. "
            "Use an IANA name like America/Los_Angeles or an abbreviation like PT."
        )
    return zone


def timezone_choices(current: str, limit: int = 25) -> list[tuple[str, str]]:
    """Autocomplete (name, value) pairs: matching abbreviations first, then IANA names."""
    needle = current.strip().replace(" ", "_").casefold()
    cap = max(0, min(limit, 25))
    out: list[tuple[str, str]] = []
    for abbr, zone in CLUB_ZONE_ABBREVIATIONS.items():
        if needle in abbr.casefold() or needle in zone.casefold():
            out.append((f"{abbr} ({zone})"[:100], abbr))
    seen = set(CLUB_ZONE_ABBREVIATIONS)
    for folded, name in _iana_names().items():
        if needle in folded and name not in seen:
            out.append((name[:100], name[:100]))
    return out[:cap]


def format_clock(t: datetime | time) -> str:
    """'9:30 AM'."""
    hour = t.hour % 12 or 12
    return f"{hour}:{t.minute:02d} {'AM' if t.hour < 12 else 'PM'}"


def _fmt_utc_offset(offset: timedelta | None) -> str:
    minutes = int((offset or timedelta(0)).total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    h, m = divmod(abs(minutes), 60)
    return f"UTC{sign}{h}" + (f":{m:02d}" if m else "")


def _zone_label(local: datetime, label: str | None) -> str:
    if label:
        return label
    name = local.tzname() or ""
    return _fmt_utc_offset(local.utcoffset()) if not name or name[0] in "+-" else name


def weekday_name(weekday: int, plural: bool = False) -> str:
    """A weekday's name (``plural``: "Thursdays")."""
    return WEEKDAYS[weekday].title() + ("s" if plural else "")


def short_date(day: date, *, year: bool = False) -> str:
    """'Thu 3 Dec' (with the year: 'Thu 3 Dec 2026')."""
    text = f"{WEEKDAYS[day.weekday()][:3].title()} {day.day} {MONTHS[day.month - 1][:3].title()}"
    return f"{text} {day.year}" if year else text


def day_month(day: date) -> str:
    """'4 December' (the issue's form: "4 December is a Friday")."""
    return f"{day.day} {MONTHS[day.month - 1].title()}"


def format_long_date(d: date | datetime, *, weekday: bool = True) -> str:
    """'Thursday 5 November 2026' (or '5 November 2026')."""
    text = f"{d.day} {MONTHS[d.month - 1].title()} {d.year}"
    return f"{WEEKDAYS[d.weekday()].title()} {text}" if weekday else text


def localize(d: date, t: time, tz: ZoneInfo) -> tuple[datetime, str | None]:
    """The wall time in ``tz``: BadInput when the clocks skip it, the first of two (with a note) when ambiguous."""
    first = datetime.combine(d, t.replace(fold=0), tzinfo=tz)
    second = first.replace(fold=1)
    if first.utcoffset() == second.utcoffset():
        return first, None
    back = first.astimezone(UTC).astimezone(tz)
    if back.date() == d and back.time() == t.replace(fold=0):
        note = (
            f"{format_clock(t)} on {format_long_date(d, weekday=False)} happens twice in {tz.key}; "
            f"I took the first ({first.tzname()}, {_fmt_utc_offset(first.utcoffset())})"
        )
        return first, note
    # In a gap: fold=0 uses the offset before the change. Find the change instant by bisection.
    lo, hi = second.astimezone(UTC), first.astimezone(UTC)
    before, after = first.utcoffset() or timedelta(0), second.utcoffset() or timedelta(0)
    while hi - lo > timedelta(seconds=1):
        mid = lo + (hi - lo) / 2
        lo, hi = (mid, hi) if mid.astimezone(tz).utcoffset() == before else (lo, mid)
    start_s, end_s = format_clock(hi + before), format_clock(hi + after)  # wall clock either side
    if start_s[-2:] == end_s[-2:]:
        start_s = start_s[:-3]
    raise BadInput(
        f"{format_clock(t)} on {format_long_date(d)} does not exist in {tz.key} "
        f"(clocks spring forward); pick a time outside {start_s}–{end_s}."
    )


def wall_to_utc(d: date, t: time, tz: ZoneInfo) -> datetime:
    """Like :func:`localize`, but never refuses: a time the clocks skip moves forward by the gap."""
    return datetime.combine(d, t.replace(fold=0), tzinfo=tz).astimezone(UTC)


def ensure_future(dt_utc: datetime, now: datetime, what: str = "session") -> None:
    """Raise BadInput if ``dt_utc`` is not after ``now``."""
    if ensure_aware_utc(dt_utc) <= ensure_aware_utc(now):
        raise BadInput(
            f"That {what} time ({discord_timestamp(dt_utc, 'F')}) is in the past; pick a time in the future."
        )


def ensure_within(dt_utc: datetime, now: datetime, max_days: int = 730) -> None:
    """Raise BadInput if ``dt_utc`` is more than ``max_days`` after ``now``."""
    if ensure_aware_utc(dt_utc) - ensure_aware_utc(now) > timedelta(days=max_days):
        raise BadInput(f"That is too far ahead; pick a time within the next {max_days} days.")


def offset_seconds(text: str) -> int | None:
    """The seconds in '1h30m', '2 days', '1 hour and 30 minutes' (any size), or None if unreadable."""
    cleaned = re.sub(r"\band\b|,", " ", text.strip().casefold()).strip()
    if len(cleaned) > MAX_OFFSET_TEXT:
        return None
    tokens = list(_OFFSET_TOKEN.finditer(cleaned))
    if not tokens or _OFFSET_TOKEN.sub("", cleaned).strip():
        return None
    return sum(int(t.group(1)) * _OFFSET_UNITS[t.group(2)[0]] for t in tokens)


def parse_offset(text: str) -> timedelta:
    """'1h', '30m', '2d', '1w', '1h30m', '90 minutes', '1 hour and 30 minutes'; at most :data:`MAX_OFFSET`."""
    seconds = offset_seconds(text)
    if seconds is None:
        raise BadInput(
            f"I couldn't read “{text.strip()[:40]}” as a duration. Use e.g. 30m, 1h, 1h30m, 2d or 90 minutes."
        )
    if seconds <= 0:
        raise BadInput("A duration must be more than zero, e.g. 30m or 1h.")
    if seconds > MAX_OFFSET.total_seconds():
        raise BadInput(
            f"That is too long; a duration can be at most {format_offset(MAX_OFFSET)} "
            f"(about {MAX_OFFSET.days // 365} years)."
        )
    return timedelta(seconds=seconds)


def parse_offsets(
    text: str, max_count: int = 5, max_delta: timedelta = timedelta(days=30)
) -> list[timedelta]:
    """Comma/semicolon-separated offsets, e.g. '24h, 1h' -> [24h, 1h]: deduped, largest first."""
    parts = [p for p in re.split(r"[,;]", text) if p.strip()]
    if not parts:
        raise BadInput("Give at least one reminder time, e.g. 24h, 1h.")
    offsets = sorted({parse_offset(p) for p in parts}, reverse=True)
    if len(offsets) > max_count:
        raise BadInput(f"At most {max_count} reminder times, please (you gave {len(offsets)}).")
    if offsets[0] > max_delta:
        raise BadInput(
            f"Reminders can be at most {format_offset(max_delta)} ahead "
            f"({format_offset(offsets[0])} is too far)."
        )
    return offsets


def format_offset(td: timedelta) -> str:
    """'2d' for whole days of 2+, else hours and minutes: '24h', '1h30m', '45m'. Seconds round."""
    minutes = round(td.total_seconds() / 60)
    if minutes < 0:
        raise ValueError("negative offset")
    if minutes and minutes % 1440 == 0 and minutes >= 2880:
        return f"{minutes // 1440}d"
    hours, mins = divmod(minutes, 60)
    return (f"{hours}h" if hours else "") + (f"{mins}m" if mins or not hours else "")


def parse_display_zones(text: str, max_zones: int = 5) -> list[DisplayZone]:
    """'America/Los_Angeles=PT, Europe/London, Asia/Kolkata=IST'. Zones are stored as IANA names."""
    zones: list[DisplayZone] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, _, label = (s.strip() for s in part.partition("="))
        zone = resolve_timezone(name).key
        if label and not re.fullmatch(r"[A-Za-z0-9+\-]{1,10}", label):
            raise BadInput(f"The label “{label[:20]}” should be 1–10 letters, digits, + or -, e.g. PT.")
        if any(z.zone == zone for z in zones):
            raise BadInput(f"{zone} is listed twice.")
        zones.append(DisplayZone(zone, label or None))
    if not zones:
        raise BadInput("Give at least one zone, e.g. America/Los_Angeles=PT, Europe/London.")
    if len(zones) > max_zones:
        raise BadInput(f"At most {max_zones} display zones, please (you gave {len(zones)}).")
    return zones


def format_display_zones(zones: Sequence[DisplayZone]) -> str:
    """Inverse of :func:`parse_display_zones`."""
    return ", ".join(z.zone if z.label is None else f"{z.zone}={z.label}" for z in zones)


def format_club_time(
    dt_utc: datetime, zones: Sequence[DisplayZone] = DEFAULT_DISPLAY_ZONES, *, with_year: bool = False
) -> str:
    """'Thursday 5 November, 8:00 AM PT / 4:00 PM GMT / 12:30 AM IST (Fri)': the date from the first zone."""
    if not zones:
        raise ValueError("at least one display zone is needed")
    dt_utc = ensure_aware_utc(dt_utc)
    first = dt_utc.astimezone(ZoneInfo(zones[0].zone))
    head = f"{WEEKDAYS[first.weekday()].title()} {first.day} {MONTHS[first.month - 1].title()}"
    head += f" {first.year}" if with_year else ""
    parts = [f"{head}, {format_clock(first)} {_zone_label(first, zones[0].label)}"]
    for z in zones[1:]:
        local = dt_utc.astimezone(ZoneInfo(z.zone))
        day = f" ({WEEKDAYS[local.weekday()][:3].title()})" if local.date() != first.date() else ""
        parts.append(f"{format_clock(local)} {_zone_label(local, z.label)}{day}")
    return " / ".join(parts)


def format_club_date(dt_utc: datetime, zone: str | ZoneInfo, *, now: datetime | None = None) -> str:
    """'5 November' in ``zone``; '5 November 2027' when ``now`` is given and the year differs."""
    return club_date(dt_utc, zone, now=now or dt_utc, weekday=False)


def format_duration(minutes: int) -> str:
    """'1 hour', '2 hours', '45 minutes', '1 h 30 min'."""
    hours, mins = divmod(minutes, 60)
    if not mins:
        return f"{hours} hour" + ("s" if hours != 1 else "")
    if not hours:
        return f"{mins} minutes"
    return f"{hours} h {mins} min"


def discord_timestamp(dt: datetime, style: Literal["t", "T", "d", "D", "f", "F", "R"] = "F") -> str:
    """Discord's '<t:UNIX:STYLE>' markup, rendered in each reader's own zone."""
    return f"<t:{int(ensure_aware_utc(dt).timestamp())}:{style}>"


def next_occurrence(
    prev_utc: datetime,
    rule: Literal["daily", "weekly", "monthly"],
    tz: ZoneInfo,
    *,
    anchor_day: int | None = None,
) -> datetime:
    """The next repeat after ``prev_utc`` at the same wall time in ``tz``; BadInput past the year 9999."""
    if rule not in ("daily", "weekly", "monthly"):
        raise ValueError(f"unknown repeat rule {rule!r}")
    prev = ensure_aware_utc(prev_utc)
    try:  # only near datetime's last year (9999) can the local date, the next one or its UTC not exist
        local = prev.astimezone(tz)
        d = local.date()
        if rule == "daily":
            d += timedelta(days=1)
        elif rule == "weekly":
            d += timedelta(days=7)
        else:
            year, month = (d.year + 1, 1) if d.month == 12 else (d.year, d.month + 1)
            d = date(year, month, min(anchor_day or d.day, calendar.monthrange(year, month)[1]))
        return wall_to_utc(d, local.time(), tz)
    except (OverflowError, ValueError):
        raise BadInput("That repeat has reached the end of the calendar (the year 9999).") from None


def club_date(when: date | datetime, zone: str | ZoneInfo, *, now: datetime, weekday: bool = True) -> str:
    """'Thursday 3 December' in ``zone`` (with the year when not ``now``'s; ``weekday=False``: '3 December')."""
    tz = zone if isinstance(zone, ZoneInfo) else resolve_timezone(zone)
    day = ensure_aware_utc(when).astimezone(tz).date() if isinstance(when, datetime) else when
    text = f"{day.day} {MONTHS[day.month - 1].title()}"
    if weekday:
        text = f"{WEEKDAYS[day.weekday()].title()} {text}"
    if ensure_aware_utc(now).astimezone(tz).year != day.year:
        text += f" {day.year}"
    return text


def zone_names(zone: DisplayZone, year: int) -> str:
    """How times in ``zone`` are labelled over ``year``: 'PT', 'GMT/BST', 'IST'."""
    if zone.label:
        return zone.label
    tz = ZoneInfo(zone.zone)
    seen = [_zone_label(datetime(year, month, 15, 12, tzinfo=tz), None) for month in (1, 7)]
    return "/".join(dict.fromkeys(seen))
