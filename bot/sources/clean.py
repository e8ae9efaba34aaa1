"""A source's answer as a value the bot can keep, or None: one line, capped, ids whole, links http(s)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from bot.papers import MAX_DOI_LENGTH, MAX_TITLE_LENGTH, MAX_URL_LENGTH, is_http_url
from bot.text import clean_line, cut

TITLE_MAX = MAX_TITLE_LENGTH  # the cap on a title a member types
TLDR_MAX = 600  # a TLDR is one generated sentence: twice the longest plausible, within an embed field
VENUE_MAX = 200  # venue names ("Annual Meeting of the Association for Computational Linguistics") are short
DECISION_MAX = 100  # "Accept (oral)"
NAME_MAX = 100  # per author
AUTHORS_KEPT = 50  # enough for any byline a card shows (the total is kept apart where a source gives it)
URL_MAX = MAX_URL_LENGTH  # a link button's URL
ID_MAX = MAX_DOI_LENGTH  # a DOI; other ids are far shorter
QUERY_MAX = 300  # the most of a search query sent to a source (a title, or a name like "TMax")
COUNT_MAX = 10**12  # a count above this is garbage, not a paper's citations


def text(value: Any, limit: int) -> str | None:
    """A string on one line, cut to ``limit`` characters; None for anything else or nothing visible."""
    if not isinstance(value, str):
        return None
    line = clean_line(value[: limit * 4])  # never clean megabytes to keep a few hundred characters
    return cut(line, limit) if line else None


def ident(value: Any, limit: int = ID_MAX) -> str | None:
    """An identifier: a string (or an int) with no whitespace, at most ``limit`` long, never cut."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return None
    cleaned = clean_line(value)
    if not cleaned or len(cleaned) > limit or " " in cleaned:
        return None
    return cleaned


def url(value: Any) -> str | None:
    """An absolute http(s) link with a host, no user name or password in it, at most URL_MAX long."""
    if not isinstance(value, str):
        return None
    link = value.strip()
    if len(link) > URL_MAX or not is_http_url(link):
        return None
    parts = urlsplit(link)
    if parts.username is not None or parts.password is not None:
        return None  # "https://github.com@evil.example/" reads as GitHub
    return link


def count(value: Any) -> int | None:
    """A non-negative whole number (not a bool, not a string)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= COUNT_MAX:
        return None
    return value


def year(value: Any) -> int | None:
    """A publication year between 1600 and 2200, from an int or a string of digits."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 1600 <= value <= 2200:
        return None
    return value


def names(values: Iterable[Any], kept: int = AUTHORS_KEPT) -> tuple[str, ...]:
    """The first ``kept`` names (strings) among ``values``, each cleaned and cut to NAME_MAX."""
    out: list[str] = []
    for value in values:
        name = text(value, NAME_MAX)
        if name:
            out.append(name)
            if len(out) >= kept:
                break
    return tuple(out)


def authors(value: Any) -> tuple[str, ...]:
    """The names of a JSON array of ``{"name": ...}`` objects (see :func:`names`)."""
    return names(mapping(author).get("name") for author in items(value))


def mapping(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one (a wrong type reads as nothing known)."""
    return value if isinstance(value, dict) else {}


def items(value: Any) -> list[Any]:
    """``value`` if it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def query(value: str) -> str:
    """A search query as sent to a source: one line, at most QUERY_MAX characters."""
    return clean_line(value)[:QUERY_MAX]
