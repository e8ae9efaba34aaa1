"""Row numbers as members give them ('12', '#12'): ASCII digits within the id columns, else "no such row"."""

from __future__ import annotations

import re
from typing import Final

from bot.errors import BadInput, NotFound

#: The store's id columns are INTEGER: 32-bit signed on PostgreSQL (SQLite would take 64 bits).
MAX_ID: Final = 2**31 - 1
#: Discord ids (guilds, channels, members) are snowflakes, kept in BIGINT columns.
MAX_BIGINT: Final = 2**63 - 1

_TYPED = re.compile(r"#?\s*([0-9]{1,10})")  # ASCII digits only; 10 digits already pass MAX_ID
_LEADING = re.compile(r"#?\s*([0-9]{1,10})(?![0-9])(?:\W.*)?", re.DOTALL)


def _in_range(number: int) -> int | None:
    return number if 1 <= number <= MAX_ID else None


def parse_id(value: object) -> int | None:
    """The row id in ``value`` (an int, or text '12' / '#12'), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return _in_range(value)
    if not isinstance(value, str):
        return None
    match = _TYPED.fullmatch(value.strip())
    return _in_range(int(match.group(1))) if match else None


def leading_id(text: str) -> int | None:
    """Like :func:`parse_id`, but a pasted choice name may follow ('#12 · Attention Is All You Need')."""
    match = _LEADING.fullmatch(text.strip())
    return _in_range(int(match.group(1))) if match else None


def shown_number(value: object, limit: int = 20) -> str:
    """A typed number for an error message, cut so a 4,000-digit one cannot fill the reply."""
    text = str(value).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def require_id(value: object, noun: str, *, pasted_name: bool = False) -> int:
    """The row id in ``value`` (``pasted_name``: :func:`leading_id`'s form); NotFound or BadInput if none."""
    found = leading_id(value) if pasted_name and isinstance(value, str) else parse_id(value)
    if found is not None:
        return found
    digits = str(value).strip().lstrip("#").strip()
    number = digits.removeprefix("-")
    if not isinstance(value, bool) and number.isascii() and number.isdigit():
        raise NotFound(f"There is no {noun} #{shown_number(digits)} in this server.")
    raise BadInput(f"Pick a {noun} from the list, or type its number (e.g. 12).")
