"""Checking a programme file's values: the problems found (each with its line) and the checker that
collects them, shared by the document and its sections (series, aliases). Pure, no store."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.errors import BadInput
from bot.ids import MAX_BIGINT
from bot.services.sessions import rules as session_rules

LINE_KEY = "__line__"
LINES_KEY = "__lines__"
"""Set by the loader on every mapping: its own line, and the line of each key's value."""


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

    def sequence(self, node: Any, where: str, line: int | None) -> list[Any]:
        """``node`` if it is a list (nothing: empty), else an empty list and a problem."""
        if node is None:
            return []
        if not isinstance(node, list):
            self.add(line, where, f"expected a list, found {type(node).__name__}")
            return []
        return node

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
        """A whole number in ``low``…``high`` (default: what a BIGINT column holds, as ids do). ASCII
        digits only: '²'.isdigit() is true but int('²') raises."""
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
    """A session's or series' ``where:``: a voice or stage channel's id (a number, or ``<#id>``) or a link;
    (channel id, None) or (None, the link). BadInput otherwise. Whether the channel is one of the server's
    voice or stage channels the bot can see is checked when its event is made."""
    text = str(value).strip() if isinstance(value, int | str) and not isinstance(value, bool) else ""
    if text.startswith("<#") and text.endswith(">"):
        text = text[2:-1]
    if text.isdigit() and 17 <= len(text) <= 20:  # a Discord id (a snowflake)
        return int(text), None
    if text.startswith(("http://", "https://")):
        return None, session_rules.clean_url(text, "The link in where")
    raise BadInput("give a voice or stage channel's id (e.g. 1188000000000000000) or an https:// link")


def item_lines(node: Any) -> list[int | None]:
    """The line numbers of a YAML list's items (None for each when unknown)."""
    lines = getattr(node, "lines", None)
    return list(lines) if lines else [None] * len(node or [])
