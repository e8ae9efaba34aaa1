"""Checking a programme file's values: problems with their lines, and the file's times. No store."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from typing import Any
from zoneinfo import ZoneInfo

from bot import timeutil
from bot.errors import BadInput
from bot.ids import MAX_BIGINT
from bot.services.sessions import rules as session_rules

LINE_KEY = "__line__"
LINES_KEY = "__lines__"
"""Set by the loader on every mapping: its own line, and the line of each key's value."""
WALL_TIME_FORMATS = ("%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S")
#: A session dated only is placed at midday in its zone, so its date is the same in the pages' zones.
DATED_ONLY_AT = time(12, 0)


@dataclass(frozen=True)
class Problem:
    """One problem found in a programme file, with where it is."""

    line: int | None
    where: str
    message: str

    def __str__(self) -> str:
        at = f"line {self.line}: " if self.line else ""
        return f"{at}{self.where}: {self.message}"


class ProgrammeInvalid(Exception):
    """The file has problems; nothing was written. ``problems`` lists every one, in file order."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(f"{len(problems)} problem(s)")
        self.problems = problems


class Checker:
    """Collects problems; helpers return None after recording one."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, line: int | None, where: str, message: str) -> None:
        """Record a problem at ``line``."""
        self.problems.append(Problem(line, where, message))

    @staticmethod
    def line_of(node: Any, key: str | None = None) -> int | None:
        """The line of ``node`` (a loaded mapping), or of its ``key``'s value."""
        if not isinstance(node, dict):
            return None
        lines = node.get(LINES_KEY) or {}
        return lines.get(key) if key is not None and key in lines else node.get(LINE_KEY)

    def mapping(self, node: Any, where: str, allowed: set[str], line: int | None) -> dict[str, Any] | None:
        """``node`` if it is a mapping (unknown keys recorded), else None."""
        if not isinstance(node, dict):
            self.add(line, where, f"expected a mapping (key: value), found {type(node).__name__}")
            return None
        for key in node:
            if key not in allowed and key not in (LINE_KEY, LINES_KEY):
                self.add(
                    self.line_of(node, str(key)),
                    where,
                    f"unknown field “{key}” (expected one of: {', '.join(sorted(allowed))})",
                )
        return node

    def items(self, node: Any, where: str, line: int | None) -> Iterator[tuple[int, str, Any, int | None]]:
        """Each item of the list ``node`` (nothing: none): its number, its place, itself and its line."""
        if node is None:
            return
        if not isinstance(node, list):
            self.add(line, where, f"expected a list, found {type(node).__name__}")
            return
        lines = getattr(node, "lines", None) or [None] * len(node)
        for index, (item, item_line) in enumerate(zip(node, lines, strict=True), start=1):
            yield index, f"{where}[{index}]", item, self.line_of(item) or item_line or line

    def text(self, value: Any, where: str, line: int | None, *, required: bool = False) -> str | None:
        """``value`` as text; None for nothing (a problem when ``required``) or a non-text (a problem)."""
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                self.add(line, where, "is required")
            return None
        if isinstance(value, bool | dict | list):
            self.add(line, where, f"expected text, found {type(value).__name__}")
            return None
        return str(value)

    def integer(
        self, value: Any, where: str, line: int | None, *, low: int = 1, high: int = MAX_BIGINT
    ) -> int | None:
        """A whole number in ``low``…``high`` (default: what a BIGINT id column holds); ASCII digits only."""
        if value is None:
            return None
        text = str(value).strip()
        digits = text.removeprefix("-")
        if isinstance(value, bool) or not (digits.isascii() and digits.isdigit()):
            number = None
        else:
            number = int(text) if len(digits) <= 19 else high + 1  # (int() refuses 4,300+ digits)
        if number is None or number < low:
            self.add(line, where, f"expected a whole number of at least {low}, found “{text[:40]}”")
            return None
        if number > high:
            self.add(line, where, f"“{text[:40]}” is too large (at most {high:,})")
            return None
        return number

    def check(self, line: int | None, where: str, func: Any, *args: Any) -> Any:
        """Run a validator that raises BadInput; record its message as a problem."""
        try:
            return func(*args)
        except BadInput as exc:
            self.add(line, where, exc.user_message)
            return None


def read_where(value: Any) -> tuple[int | None, str | None]:
    """A ``where:``: (a voice or stage channel's id, None) or (None, a link); BadInput otherwise."""
    text = str(value).strip() if isinstance(value, int | str) and not isinstance(value, bool) else ""
    if text.startswith("<#") and text.endswith(">"):
        text = text[2:-1]
    if text.isdigit() and 17 <= len(text) <= 20:  # a Discord id (a snowflake)
        return int(text), None
    if text.startswith(("http://", "https://")):
        return None, session_rules.clean_url(text, "The link in where")
    raise BadInput("give a voice or stage channel's id (e.g. 1188000000000000000) or an https:// link")


def iso_date(text: str) -> date:
    """A date like 2026-12-24."""
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise BadInput(f"“{text.strip()[:20]}” is not a date like 2026-12-24") from None


def read_start(text: str, zone: ZoneInfo) -> tuple[datetime, bool]:
    """A session's start as aware UTC, and whether it is a past session's date alone (placed at midday)."""
    cleaned, now = text.strip(), datetime.now(UTC)
    try:
        parsed = datetime.fromisoformat(cleaned)
    except ValueError:
        parsed = None
    if parsed is not None and parsed.tzinfo is not None:
        timeutil.in_window(parsed.date(), now)
        return parsed.astimezone(UTC), False
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", cleaned):
        try:
            day = date.fromisoformat(cleaned)
        except ValueError:
            raise BadInput(f"“{cleaned}” is not a date; write it like 2026-10-16") from None
        timeutil.in_window(day, now)
        if day >= now.astimezone(zone).date():
            raise BadInput(
                f"{cleaned} is today or to come: give its time too, like {cleaned} 09:30 (a session to come "
                "gets a Discord event and reminders; only past sessions may be dated without a time)"
            )
        return timeutil.wall_to_utc(day, DATED_ONLY_AT, zone), True
    for fmt in WALL_TIME_FORMATS:
        try:
            naive = datetime.strptime(cleaned, fmt)  # noqa: DTZ007 (a wall time, zoned just below)
        except ValueError:
            continue
        timeutil.in_window(naive.date(), now)
        local = naive.replace(tzinfo=zone)
        if local.astimezone(UTC).astimezone(zone).replace(tzinfo=None) != naive:
            raise BadInput(f"{cleaned} does not exist in {zone.key} (the clocks skip it).")
        return local.astimezone(UTC), False
    raise BadInput(
        f"could not read “{cleaned[:40]}”; write it like 2026-11-05 08:00 (local) or with an offset"
    )


def format_start(dt: datetime, zone: str, *, date_only: bool) -> str:
    """The inverse of :func:`read_start`: the date alone, a wall time, or ISO with an offset when ambiguous."""
    local = timeutil.ensure_aware_utc(dt).astimezone(ZoneInfo(zone))
    if date_only:
        return local.date().isoformat()
    if local.second == 0 and local.microsecond == 0 and local.fold == 0:
        return local.strftime("%Y-%m-%d %H:%M")  # read back as fold 0 of two ambiguous wall times
    return local.isoformat()
