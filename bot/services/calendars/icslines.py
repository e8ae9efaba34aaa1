"""RFC 5545 content lines, written directly: TEXT escaping, 75-octet folding, date-times.

The one-off sessions' VEVENTs of a feed are written here as lines, in the order and form icalendar gives
them (tests check the bytes against icalendar's output), as building each as an icalendar component is slow.
Two deliberate differences keep the user's text: a backslash is always written ``\\\\`` (icalendar turns a
typed ``\\N`` into a line break), and a leading U+FEFF is kept (icalendar drops it when decoding).
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

from bot.timeutil import ensure_aware_utc

#: RFC 5545, 3.1: "Lines of text SHOULD NOT be longer than 75 octets, excluding the line break." As
#: icalendar does, a first line holds at most 74 octets and each continuation a space and 74 more.
FOLD_OCTETS: Final = 74
FOLD: Final = "\r\n "
#: Not left as the last character of a folded piece (kept with the escape it starts; icalendar #1501).
_ESCAPES: Final = "\\^"


def escape_text(value: str) -> str:
    """A TEXT value (RFC 5545, 3.3.11): ``\\`` ``;`` ``,`` escaped, CRLF, LF and a lone CR as ``\\n``."""
    return (
        value.replace("\\", "\\\\")
        .replace(";", "\\;")
        .replace(",", "\\,")
        .replace("\r\n", "\\n")
        .replace("\n", "\\n")
        .replace("\r", "\\n")
    )


def _octets(char: str) -> int:
    code = ord(char)
    return 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4


def fold(line: str) -> str:
    """The line folded (RFC 5545, 3.1) between characters, never inside a UTF-8 sequence."""
    if len(line) <= FOLD_OCTETS and (line.isascii() or len(line.encode()) <= FOLD_OCTETS):
        return line
    if line.isascii():
        pieces: list[str] = []
        start, size = 0, len(line)
        while size - start > FOLD_OCTETS:
            end = start + FOLD_OCTETS
            if line[end - 1] in _ESCAPES and end - start > 1:
                end -= 1
            pieces.append(line[start:end])
            start = end
        pieces.append(line[start:])
        return FOLD.join(pieces)
    pieces = []
    current: list[str] = []
    count = 0
    for char in line:
        octets = _octets(char)
        if current and count + octets > FOLD_OCTETS:
            if len(current) > 1 and current[-1] in _ESCAPES:
                carried = current.pop()
                pieces.append("".join(current))
                current, count = [carried], 1
            else:
                pieces.append("".join(current))
                current, count = [], 0
        current.append(char)
        count += octets
    pieces.append("".join(current))
    return FOLD.join(pieces)


def text_line(name: str, value: str) -> str:
    """``NAME:value`` for a TEXT property, escaped and folded."""
    return fold(f"{name}:{escape_text(value)}")


def uri_line(name: str, value: str) -> str:
    """``NAME:value`` for a URI property (not escaped; a line break in it is refused, as icalendar does)."""
    if "\r" in value or "\n" in value:
        raise ValueError(f"A URI value may not contain CR or LF characters: {value!r}")
    return fold(f"{name}:{value}")


def raw_line(name: str, value: str) -> str:
    """``NAME:value`` for a property icalendar types as unknown (``X-WR-CALNAME``): written as given, not
    escaped, as icalendar writes it (so the feed's bytes, and its ETag, stay what they were); a line break,
    which icalendar refuses, becomes a space."""
    return fold(f"{name}:{one_line(value)}")


def one_line(value: str) -> str:
    """``value`` with each line break (CRLF, LF, a lone CR) a space."""
    return value.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")


def utc_stamp(when: datetime) -> str:
    """A UTC DATE-TIME (``YYYYMMDDTHHMMSSZ``, seconds kept, microseconds dropped); a naive ``when`` raises."""
    dt = ensure_aware_utc(when)
    return f"{dt.year:04}{dt.month:02}{dt.day:02}T{dt.hour:02}{dt.minute:02}{dt.second:02}Z"


def local_stamp(dt: datetime) -> str:
    """A DATE-TIME as the wall clock reads it in ``dt``'s own zone (for ``;TZID=…`` properties)."""
    return f"{dt.year:04}{dt.month:02}{dt.day:02}T{dt.hour:02}{dt.minute:02}{dt.second:02}"
