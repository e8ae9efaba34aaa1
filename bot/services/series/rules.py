"""A series' rule (weekday, wall-clock time and zone, every one or two weeks, until); a new series and a rule edit, checked."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Final
from zoneinfo import ZoneInfo

from bot import timeutil, when
from bot.errors import BadInput
from bot.services.sessions import rules as session_rules
from bot.services.sessions.rules import Place
from bot.text import clean_line
from bot.timeutil import WEEKDAYS, DisplayZone, day_month, weekday_name
from bot.timeutil import format_long_date as long_date

MAX_NAME: Final = 100
MAX_SKIP_REASON: Final = 200
MAX_DATE_TEXT: Final = 40
MIN_HORIZON_WEEKS: Final = 1
MAX_HORIZON_WEEKS: Final = 12
MAX_NUDGE_DAYS: Final = 28
#: Discord allows 100 uncompleted scheduled events per server (JSON error 30038); the series keep to half.
EVENT_BUDGET: Final = 50

_MONTHS = {name: i for i, m in enumerate(timeutil.MONTHS, 1) for name in (m, m[:3])} | {"sept": 9}
_DAYS = {name: i for i, w in enumerate(WEEKDAYS) for name in (w, w[:3], w + "s")}
_DAYS |= {"tues": 1, "weds": 2, "thur": 3, "thurs": 3}
_CLOCK_ONLY = re.compile(r"(?:\d{1,2}(?:[:.]\d{2})?\s*(?:[ap]\.?m\.?)?|noon|midnight)", re.IGNORECASE)


@dataclass(frozen=True)
class Rule:
    """When a series meets: ``weekday`` at ``start`` in ``zone``, every ``interval`` weeks from ``anchor``, to ``until``."""

    weekday: int
    start: time
    zone: str
    interval: int
    anchor: date
    until: date | None = None

    @property
    def tz(self) -> ZoneInfo:
        """The rule's time zone."""
        return ZoneInfo(self.zone)

    def today(self, now: datetime) -> date:
        """Today's date in the rule's zone."""
        return now.astimezone(self.tz).date()

    def meets_on(self, day: date) -> bool:
        """Whether the series meets on ``day``."""
        return (
            day >= self.anchor
            and (day - self.anchor).days % (7 * self.interval) == 0
            and (self.until is None or day <= self.until)
        )

    def start_on(self, day: date) -> datetime:
        """The rule's start on ``day`` in aware UTC (a time the clocks skip moves forward by the gap)."""
        return timeutil.wall_to_utc(day, self.start, self.tz)

    def dates(self, first: date, last: date) -> Iterator[date]:
        """The dates it meets on from ``first`` to ``last`` (inclusive)."""
        step = timedelta(weeks=self.interval)
        day = self.anchor + step * max(0, -(-(first - self.anchor).days // step.days))
        end = min(last, self.until) if self.until is not None else last
        while day <= end:
            yield day
            day += step

    def next_date(self, now: datetime) -> date | None:
        """The first date it meets on whose start is after ``now`` (None: it has ended)."""
        today = self.today(now)
        dates = self.dates(today - timedelta(days=1), today + timedelta(days=3660))
        return next((day for day in dates if self.start_on(day) > now), None)

    def horizon(self, now: datetime, weeks: int) -> list[date]:
        """The dates it meets on, not yet started, within ``weeks`` weeks of today (in its zone)."""
        today = self.today(now)
        dates = self.dates(today - timedelta(days=1), today + timedelta(weeks=weeks))
        return [day for day in dates if self.start_on(day) > now]

    def mismatch(self, day: date) -> str | None:
        """Why ``day`` is not one of its weeks, in the organizer's words (None: it is one)."""
        plural = weekday_name(self.weekday, plural=True)
        if day.weekday() != self.weekday:
            return f"This series meets on {plural}; {day_month(day)} is a {weekday_name(day.weekday())}."
        if day < self.anchor:
            return f"This series meets from {timeutil.format_long_date(self.anchor)}; {day_month(day)} is before that."
        if self.until is not None and day > self.until:
            return f"This series ends on {timeutil.format_long_date(self.until)}; {day_month(day)} is after that."
        if not self.meets_on(day):
            before, after = day - timedelta(weeks=1), day + timedelta(weeks=1)
            return (
                f"This series meets every other {weekday_name(self.weekday)}; {day_month(day)} is not one "
                f"of its weeks ({day_month(before)} and {day_month(after)} are)."
            )
        return None

    def require_week(self, day: date) -> None:
        """BadInput when the series does not meet on ``day``."""
        if (problem := self.mismatch(day)) is not None:
            raise BadInput(problem)


def clean_name(text: str) -> str:
    """A series name on one line, or BadInput when it is empty or too long."""
    name = clean_line(text)
    if not name:
        raise BadInput("Give the series a name, e.g. Thursday paper club.")
    if len(name) > MAX_NAME:
        raise BadInput(f"The name is {len(name)} characters; keep it within {MAX_NAME}.")
    return name


def name_key(name: str) -> str:
    """The name as compared for "a second series of the same name": case and spacing ignored."""
    return " ".join(clean_line(name).casefold().split())[:MAX_NAME]


def parse_weekday(text: str) -> int:
    """'Thursday', 'thu', 'Thursdays' → 3; BadInput for anything that is not a day of the week."""
    word = clean_line(text).casefold().rstrip(".")
    found = _DAYS.get(word)
    if found is None:
        shown = clean_line(text)[:30] or "(empty)"
        raise BadInput(
            f"“{shown}” is not a day of the week; pick one of Monday, Tuesday, Wednesday, Thursday, Friday, "
            "Saturday or Sunday."
        )
    return found


def check_every(every: int) -> int:
    """``every``, or BadInput unless it is every week or every other week."""
    if every not in (1, 2):
        raise BadInput(
            f"A series meets every week (every: 1) or every other week (every: 2), not every {every} weeks."
        )
    return every


def parse_date(text: str, zone: ZoneInfo, now: datetime, *, what: str = "date") -> date:
    """A date as typed (2026-12-24, 24 Dec, Thursday 24 December, today, a pasted <t:…>); no year: the next one."""
    if (instant := when.pasted_instant(clean_line(text), now)) is not None:
        return instant.astimezone(zone).date()
    cleaned = " ".join(clean_line(text).casefold().replace(",", " ").split())
    if not cleaned or len(cleaned) > MAX_DATE_TEXT:
        raise BadInput(f"Give the {what} like 2026-12-24 or 24 Dec 2026.")
    today = now.astimezone(zone).date()
    if cleaned in ("today", "tomorrow"):
        return today + timedelta(days=cleaned == "tomorrow")
    weekday: int | None = None
    words = cleaned.split()
    if words[0] in _DAYS and len(words) > 1:
        weekday = _DAYS[words[0]]
        words = words[1:]
    day = _read_date(" ".join(words), today, now, what)
    if weekday is not None and day.weekday() != weekday:
        raise BadInput(
            f"{timeutil.format_long_date(day, weekday=False)} is a {weekday_name(day.weekday())}, "
            f"not a {weekday_name(weekday)}."
        )
    return day


def _read_date(text: str, today: date, now: datetime, what: str) -> date:
    if iso := re.fullmatch(r"(\d{4})-(\d{1,2})-(\d{1,2})", text):
        year, month, day = (int(part) for part in iso.groups())
        return when.make_date(year, month, day, now)
    for pattern in (
        r"(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m>[a-z]+)\.?(?:\s+(?P<y>\d{4}))?",
        r"(?P<m>[a-z]+)\.?\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?(?:\s+(?P<y>\d{4}))?",
    ):
        found = re.fullmatch(pattern, text)
        if found is None or found["m"] not in _MONTHS:
            continue
        month, day = _MONTHS[found["m"]], int(found["d"])
        if found["y"]:
            return when.make_date(int(found["y"]), month, day, now)
        for year in (today.year, today.year + 1, today.year + 4):  # the next such date (29 Feb: a leap year)
            try:
                candidate = date(year, month, day)
            except ValueError:
                continue
            if candidate >= today:
                return candidate
        raise BadInput(f"{timeutil.MONTHS[month - 1].title()} has no day {day}.")
    if re.search(r"\b\d{1,2}/\d{1,2}\b", text):
        raise BadInput(
            f"“{text[:20]}” could be day/month or month/day; write the month as a word (24 Dec 2026) or "
            "use 2026-12-24."
        )
    raise BadInput(f"I couldn't read “{text[:40]}” as a {what}; write it like 2026-12-24 or 24 Dec 2026.")


def clean_reason(text: str | None) -> str | None:
    """A skip reason on one line (None when empty), or BadInput when too long."""
    reason = clean_line(text or "")
    if len(reason) > MAX_SKIP_REASON:
        raise BadInput(f"Keep the reason within {MAX_SKIP_REASON} characters.")
    return reason or None


def check_times(rule: Rule, first: date) -> None:
    """BadInput naming the first date from ``first`` on when the rule's time does not exist (clocks skip it)."""
    for day in rule.dates(first, first + timedelta(days=session_rules.MAX_DAYS_AHEAD)):
        timeutil.localize(day, rule.start, rule.tz)


def first_date(rule_weekday: int, start: time, tz: ZoneInfo, now: datetime) -> date:
    """The next such weekday whose start (at ``start`` in ``tz``) is still ahead: today if not yet begun."""
    today = now.astimezone(tz).date()
    for ahead in range(8):
        day = today + timedelta(days=ahead)
        if day.weekday() == rule_weekday and timeutil.wall_to_utc(day, start, tz) > now:
            return day
    raise AssertionError("a weekday comes round within eight days")


def read_move(text: str, week: date, rule: Rule, now: datetime) -> datetime:
    """`when` of /organize series move (a time alone: on the week's date) as a future start in aware UTC."""
    cleaned = " ".join(text.split())
    if _CLOCK_ONLY.fullmatch(cleaned):
        local, _ = timeutil.localize(week, when.parse_clock(cleaned), rule.tz)
        start = local.astimezone(timeutil.UTC)
    else:
        start = when.parse_when(cleaned, rule.tz, now, default_clock=rule.start).utc
    return session_rules.check_start(start, now)


def check_horizon(weeks: int) -> int:
    """``weeks``, or BadInput when outside the horizon's range."""
    if not MIN_HORIZON_WEEKS <= weeks <= MAX_HORIZON_WEEKS:
        raise BadInput(
            f"A series keeps {MIN_HORIZON_WEEKS}–{MAX_HORIZON_WEEKS} weeks ahead (you gave {weeks})."
        )
    return weeks


def check_nudge_days(days: int) -> int:
    """``days``, or BadInput when outside the nudge's range."""
    if not 0 <= days <= MAX_NUDGE_DAYS:
        raise BadInput(f"Nudge 0–{MAX_NUDGE_DAYS} days before an open week (0: no nudges; you gave {days}).")
    return days


def weeks_held(horizon_weeks: int, interval: int) -> int:
    """At most how many weeks (each with its Discord event) a series holds ahead with this horizon."""
    return horizon_weeks // interval + 1


def rule_text(rule: Rule, zones: Sequence[DisplayZone], now: datetime) -> str:
    """'Every Thursday at 9:30 AM PT' / 'Every other Thursday at 9:30 AM PT'."""
    at = rule.start_on(rule.next_date(now) or rule.anchor)
    every = "Every" if rule.interval == 1 else "Every other"
    label = next((z.label for z in zones if z.zone == rule.zone and z.label), None)
    label = label or at.astimezone(rule.tz).tzname() or rule.zone
    return f"{every} {weekday_name(rule.weekday)} at {timeutil.format_clock(rule.start)} {label}"


MOVES = frozenset({"day", "time", "timezone", "every"})  # the changes that move the weeks ahead


@dataclass(frozen=True)
class SeriesDraft:
    """A new series, every value checked (build it with :func:`new_series`)."""

    name: str
    rule: Rule
    duration_minutes: int = 60
    signup_url: str | None = None
    description: str | None = None
    place: Place | None = None  # its weeks held in this voice or stage channel


def new_series(
    *,
    name: str,
    day: str,
    time: str,
    now: datetime,
    default_zone: str,
    zone: str | None = None,
    every: int = 1,
    first: str | None = None,
    until: str | None = None,
    duration: int = 60,
    signup_url: str | None = None,
    description: str | None = None,
    place: Place | None = None,
) -> SeriesDraft:
    """Check a new series' values, each once (BadInput on the first bad one)."""
    clean = clean_name(name)
    weekday = parse_weekday(day)
    start = when.parse_clock(time)
    tz = timeutil.resolve_timezone(zone or default_zone)
    check_every(every)
    if first is None:
        begins = first_date(weekday, start, tz, now)
    else:
        begins = parse_date(first, tz, now, what="first date")
        if begins.weekday() != weekday:
            raise BadInput(
                f"This series meets on {weekday_name(weekday, plural=True)}; {day_month(begins)} (first) is a "
                f"{weekday_name(begins.weekday())}."
            )
    ends = parse_date(until, tz, now, what="until date") if until else None
    if ends is not None and ends < begins:
        raise BadInput(
            f"until ({long_date(ends)}) is before the first week ({long_date(begins)}); "
            "give a later until, or leave it out."
        )
    rule = Rule(weekday, start, tz.key, every, begins, ends)
    check_times(rule, begins)
    session_rules.check_start(rule.start_on(begins), now)  # not past, not over two years out
    return SeriesDraft(
        name=clean,
        rule=rule,
        duration_minutes=session_rules.check_duration(duration),
        signup_url=session_rules.clean_url(signup_url, "The sign-up link"),
        description=session_rules.clean_description(description),
        place=place,
    )


@dataclass(frozen=True)
class RuleEdit:
    """/organize series edit: the rule as it becomes, the duration, and which parts changed."""

    rule: Rule
    duration_minutes: int
    changed: frozenset[str] = field(default_factory=frozenset)


def edit_rule(
    old: Rule,
    old_duration: int,
    *,
    now: datetime,
    day: str | None = None,
    time: str | None = None,
    zone: str | None = None,
    every: int | None = None,
    until: str | None = None,
    duration: int | None = None,
) -> RuleEdit:
    """Check an edit of the rule, each value once; a new day, time, zone or cadence starts from the next week."""
    weekday = parse_weekday(day) if day is not None else old.weekday
    start = when.parse_clock(time) if time is not None else old.start
    tz = timeutil.resolve_timezone(zone) if zone is not None else old.tz
    interval = check_every(every) if every is not None else old.interval
    minutes = session_rules.check_duration(duration) if duration is not None else old_duration
    changed = {
        name
        for name, was, now_is in (
            ("day", old.weekday, weekday),
            ("time", old.start, start),
            ("timezone", old.zone, tz.key),
            ("every", old.interval, interval),
            ("duration", old_duration, minutes),
        )
        if was != now_is
    }
    anchor = old.anchor
    if changed & MOVES:  # the new rule's first week not yet begun, in the week of the next date of the old
        reference = old.next_date(now) or now.astimezone(tz).date()
        anchor = reference - timedelta(days=reference.weekday()) + timedelta(days=weekday)
        while timeutil.wall_to_utc(anchor, start, tz) <= now:
            anchor += timedelta(weeks=interval)
    ends = old.until
    if until is not None:
        ends = parse_date(until, tz, now, what="until date")
        if ends != old.until:
            changed.add("until")
    if ends is not None and "until" in changed and ends < now.astimezone(tz).date():
        raise BadInput(
            f"until ({long_date(ends)}) has passed; to stop the series now, use `/organize series end`."
        )
    if ends is not None and ends < anchor:
        raise BadInput(
            f"until ({long_date(ends)}) is before the series' next week ({long_date(anchor)}); "
            "to stop the series, use `/organize series end`."
        )
    rule = Rule(weekday, start, tz.key, interval, anchor, ends)
    if changed & MOVES:
        check_times(rule, anchor)
    return RuleEdit(rule, minutes, frozenset(changed))
