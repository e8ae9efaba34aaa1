"""The programme's ``series:`` (and each session's ``series:`` + ``week:``): checked, and read back."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import timeutil, when
from bot.services.programme.checks import Checker, iso_date, read_where
from bot.services.series import rules
from bot.services.series import store as series_store
from bot.services.series.rules import Rule
from db.models.series import DEFAULT_HORIZON_WEEKS, DEFAULT_NUDGE_DAYS, WEEK_SKIPPED, Series, SeriesWeek

#: A series' keys; ``where`` is a voice or stage channel's id, or a link (as ``signup_url``).
SERIES_FIELDS = {"name", "day", "time", "timezone", "every", "first", "since", "until", "duration_minutes"}
SERIES_FIELDS |= {"signup_url", "where", "description", "skipped"}
SKIP_FIELDS = {"date", "reason"}
#: Settings of the series, in the file's `settings:` (written there only when not the default).
SETTINGS = {"series_horizon_weeks": rules.check_horizon, "series_nudge_days": rules.check_nudge_days}


@dataclass(frozen=True)
class ProgrammeSeries:
    """A series as a programme file gives it."""

    name: str
    rule: Rule  # anchored at `since` (else `first`)
    first: date
    duration_minutes: int = 60
    signup_url: str | None = None
    description: str | None = None
    channel_id: int | None = None  # its weeks' voice or stage channel
    skipped: tuple[tuple[date, str | None], ...] = ()
    line: int | None = None

    @property
    def key(self) -> str:
        """The key series names are compared by."""
        return rules.name_key(self.name)


def check_series(checker: Checker, nodes: Any, line: int | None, zone: str) -> list[ProgrammeSeries]:
    """The file's `series:` list, each entry checked (problems go to ``checker``, the document's)."""
    out: dict[str, ProgrammeSeries] = {}
    seen: dict[str, int] = {}
    for index, where, node, at in checker.items(nodes, "series", line):
        parsed = _one(checker, node, where, at, zone)
        if parsed is not None and parsed.key in seen:
            checker.add(at, where, f"the same name as series[{seen[parsed.key]}]")
        elif parsed is not None:
            seen[parsed.key], out[parsed.key] = index, parsed
    return list(out.values())


def _one(checker: Checker, node: Any, where: str, line: int | None, zone: str) -> ProgrammeSeries | None:
    node = checker.mapping(node, where, SERIES_FIELDS, line)
    if node is None:
        return None

    def at(key: str) -> int | None:
        return checker.line_of(node, key) or line

    def text(key: str, *, required: bool = False) -> str | None:
        return checker.text(node.get(key), f"{where}.{key}", at(key), required=required)

    def check(key: str, func: Any, *args: Any) -> Any:
        return checker.check(at(key), f"{where}.{key}", func, *args)

    before = len(checker.problems)
    name = check("name", rules.clean_name, text("name", required=True) or "")
    if name:
        where = f"{where} (“{name[:60]}”)"
    weekday = check("day", rules.parse_weekday, text("day", required=True) or "")
    start = check("time", when.parse_clock, text("time", required=True) or "")
    tz_name = check("timezone", rules.session_rules.check_timezone, text("timezone") or zone)
    every = checker.integer(node.get("every", 1), f"{where}.every", at("every"))
    every = check("every", rules.check_every, every) if every is not None else None
    dates: dict[str, date | None] = {}
    for key in ("first", "since", "until"):
        value = text(key, required=key == "first")
        dates[key] = check(key, iso_date, value) if value else None
    minutes = 60
    if "duration_minutes" in node:
        given = checker.integer(node["duration_minutes"], f"{where}.duration_minutes", at("duration_minutes"))
        minutes = check("duration_minutes", rules.session_rules.check_duration, given or 0) or 60
    signup = check("signup_url", rules.session_rules.clean_url, text("signup_url"), "The sign-up link")
    description = check("description", rules.session_rules.clean_description, text("description"))
    channel_id = None
    if "where" in node and (place := check("where", read_where, node["where"])):
        channel_id, link = place
        if link is not None and signup is not None:
            checker.add(at("where"), f"{where}.where", "give the link once: in `where` or in `signup_url`")
        signup = signup or link
    if len(checker.problems) > before or None in (name, weekday, start, tz_name, every, dates["first"]):
        return None
    first = dates["first"]
    assert first is not None
    assert isinstance(every, int)
    anchor = dates["since"] or first
    rule = Rule(weekday, start, tz_name, every, anchor, dates["until"])
    for key in ("first", "since"):
        if (day := dates[key]) is not None and day.weekday() != weekday:
            named = f"a {timeutil.weekday_name(day.weekday())}, not a {timeutil.weekday_name(weekday)}"
            checker.add(at(key), f"{where}.{key}", f"{day.isoformat()} is {named}")
    for key in ("since", "until"):
        if (day := dates[key]) is not None and day < first:
            checker.add(at(key), f"{where}.{key}", "is before first")
    check("time", rules.check_times, rule, anchor)
    skipped = _skipped(checker, node.get("skipped"), f"{where}.skipped", at("skipped"), rule)
    if len(checker.problems) > before:
        return None
    return ProgrammeSeries(name, rule, first, minutes, signup, description, channel_id, skipped, line)


def _skipped(
    checker: Checker, nodes: Any, where: str, line: int | None, rule: Rule
) -> tuple[tuple[date, str | None], ...]:
    out: dict[date, str | None] = {}
    for _, here, node, at in checker.items(nodes, where, line):
        reason = None
        if isinstance(node, dict):
            checker.mapping(node, here, SKIP_FIELDS, at)  # a mapping: its unknown keys recorded
            raw = checker.text(node.get("date"), f"{here}.date", at, required=True)
            reason = checker.check(
                at, f"{here}.reason", rules.clean_reason, checker.text(node.get("reason"), here, at)
            )
        else:
            raw = checker.text(node, here, at, required=True)
        day = _week_of(checker, at, here, rule, raw)
        if day is not None and day in out:
            checker.add(at, here, f"{day.isoformat()} is listed twice")
        elif day is not None:
            out[day] = reason
    return tuple(sorted(out.items()))


def _week_of(checker: Checker, line: int | None, where: str, rule: Rule, text: str | None) -> date | None:
    """``text`` as one of the rule's dates (from its anchor on), else None and a problem."""
    day = checker.check(line, where, iso_date, text) if text else None
    if day is not None and day >= rule.anchor and (problem := rule.mismatch(day)) is not None:
        checker.add(line, where, problem)
        return None
    return day


def check_week(
    checker: Checker,
    where: str,
    line: int | None,
    series: dict[str, ProgrammeSeries],
    name: str,
    week_text: str | None,
) -> tuple[str, date] | None:
    """A session's `series` and `week`: the series must be in the file, the week one of its dates."""
    if not name.strip() or name == "None":
        checker.add(line, f"{where}.series", "is required with week (the name of one of the file's series)")
        return None
    found = series.get(rules.name_key(name))
    if found is None:
        checker.add(line, f"{where}.series", f"“{name[:60]}” is not one of the file's series")
        return None
    if week_text is None:
        checker.add(line, f"{where}.week", "is required with series (the week's date, e.g. 2026-12-03)")
        return None
    day = _week_of(checker, line, f"{where}.week", found.rule, week_text)
    return None if day is None else (found.key, day)


async def dump_series(
    session: AsyncSession, guild_id: int
) -> tuple[list[dict[str, Any]], dict[int, tuple[str, str]], dict[str, int]]:
    """The series as written, each week's session (id → series name, week), settings not the default."""
    docs: list[dict[str, Any]] = []
    weeks_of: dict[int, tuple[str, str]] = {}
    rows = await session.scalars(select(Series).where(Series.guild_id == guild_id).order_by(Series.name_key))
    for row in rows:
        doc: dict[str, Any] = {
            "name": row.name,
            "day": timeutil.WEEKDAYS[row.weekday],
            "time": row.start_time,
            "timezone": row.timezone,
            "every": row.interval,
            "first": row.first_date.isoformat(),
            "since": row.anchor_date.isoformat() if row.anchor_date != row.first_date else None,
            "until": row.until_date.isoformat() if row.until_date else None,
            "duration_minutes": row.duration_minutes if row.duration_minutes != 60 else None,
            "signup_url": row.signup_url or None,
            "where": str(row.channel_id) if row.channel_id is not None else None,
            "description": row.description or None,
        }
        weeks = await session.scalars(
            select(SeriesWeek).where(SeriesWeek.series_id == row.id).order_by(SeriesWeek.week_date)
        )
        skipped = []
        for week in weeks:
            if week.status == WEEK_SKIPPED:
                reason = {"reason": week.skip_reason} if week.skip_reason else {}
                skipped.append({"date": week.week_date.isoformat(), **reason})
            if week.session_id is not None:
                weeks_of[week.session_id] = (row.name, week.week_date.isoformat())
        docs.append(
            {key: value for key, value in doc.items() if value is not None}
            | ({"skipped": skipped} if skipped else {})
        )
    found = await series_store.get_settings(session, guild_id)
    settings = {"series_horizon_weeks": found.horizon_weeks, "series_nudge_days": found.nudge_days}
    defaults = {"series_horizon_weeks": DEFAULT_HORIZON_WEEKS, "series_nudge_days": DEFAULT_NUDGE_DAYS}
    return docs, weeks_of, {key: value for key, value in settings.items() if value != defaults[key]}
