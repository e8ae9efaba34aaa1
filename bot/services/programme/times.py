"""A programme session's start: a wall time in its zone, an ISO time with an offset, or a past session's date
alone. No store."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot import timeutil
from bot.errors import BadInput

WALL_TIME_FORMATS = ("%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
#: Where a session dated only is placed: midday in its zone, so its date is the same in every zone the
#: pages date it in (the first display zone) within twelve hours of it.
DATED_ONLY_AT = time(12, 0)


@dataclass(frozen=True)
class Start:
    """When a session starts (aware UTC), and whether the file gave its date only."""

    at: datetime
    date_only: bool = False


def read_wall_time(text: str, zone: ZoneInfo) -> datetime:
    """'2026-11-05 08:00' in `zone` (or an ISO time with an offset) as aware UTC. Gaps are refused."""
    cleaned = text.strip()
    try:
        parsed = datetime.fromisoformat(cleaned)
    except ValueError:
        parsed = None
    if parsed is not None and parsed.tzinfo is not None:
        first, last = timeutil.date_window(timeutil.utcnow())
        if not first <= parsed.date() <= last:
            raise timeutil.out_of_range(timeutil.utcnow())
        return parsed.astimezone(UTC)
    for fmt in WALL_TIME_FORMATS:
        try:
            naive = datetime.strptime(cleaned, fmt)  # noqa: DTZ007 (a wall time, zoned just below)
        except ValueError:
            continue
        local = naive.replace(tzinfo=zone)
        first, last = timeutil.date_window(timeutil.utcnow())  # as for times typed in Discord
        if not first <= naive.date() <= last:
            raise timeutil.out_of_range(timeutil.utcnow())
        if local.astimezone(UTC).astimezone(zone).replace(tzinfo=None) != naive:
            raise BadInput(f"{cleaned} does not exist in {zone.key} (the clocks skip it).")
        return local.astimezone(UTC)
    raise BadInput(
        f"could not read “{cleaned[:40]}”; write it like 2026-11-05 08:00 (local) or with an offset"
    )


def read_start(text: str, zone: ZoneInfo) -> Start:
    """A session's start: a date alone is a past session dated only (one to come needs its time: it gets a
    Discord event and reminders), placed at :data:`DATED_ONLY_AT`; anything else :func:`read_wall_time`."""
    cleaned = text.strip()
    if not _DATE.fullmatch(cleaned):
        return Start(read_wall_time(cleaned, zone))
    try:
        day = date.fromisoformat(cleaned)
    except ValueError:
        raise BadInput(f"“{cleaned}” is not a date; write it like 2026-10-16") from None
    now = timeutil.utcnow()
    first, last = timeutil.date_window(now)
    if not first <= day <= last:
        raise timeutil.out_of_range(now)
    if day >= now.astimezone(zone).date():
        raise BadInput(
            f"{cleaned} is today or to come: give its time too, like {cleaned} 09:30 (a session to come "
            "gets a Discord event and reminders; only past sessions may be dated without a time)"
        )
    return Start(timeutil.wall_to_utc(day, DATED_ONLY_AT, zone), date_only=True)


def same_day(start: datetime) -> tuple[datetime, datetime]:
    """The instants a session dated only at ``start`` may have been stored at before (any time that day)."""
    return start - timedelta(hours=12), start + timedelta(hours=12)


def format_wall_time(dt: datetime, zone: str) -> str:
    """The inverse of :func:`read_wall_time`: local wall time, or ISO with an offset when that is ambiguous."""
    local = timeutil.ensure_aware_utc(dt).astimezone(ZoneInfo(zone))
    text = local.strftime("%Y-%m-%d %H:%M")
    if local.second == 0 and local.microsecond == 0 and local.fold == 0:
        return text  # read back as the first of two ambiguous wall times, which fold 0 is
    return local.isoformat()


def format_start(dt: datetime, zone: str, *, date_only: bool) -> str:
    """The inverse of :func:`read_start`: the date alone for a session dated only."""
    if date_only:
        return timeutil.ensure_aware_utc(dt).astimezone(ZoneInfo(zone)).date().isoformat()
    return format_wall_time(dt, zone)
