"""A new series and an edit of its rule, each value checked once (BadInput on the first bad one)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from bot import timeutil, when
from bot.errors import BadInput
from bot.services.series.rules import (
    Rule,
    check_every,
    check_times,
    clean_name,
    day_month,
    first_date,
    parse_date,
    parse_weekday,
    weekday_name,
)
from bot.services.sessions import rules as session_rules
from bot.services.sessions.draft import Place
from bot.timeutil import format_long_date as long_date

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
