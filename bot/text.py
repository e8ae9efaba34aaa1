"""Discord's length limits, text trimming and masked links, without importing discord."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Generic, TypeVar
from urllib.parse import urlsplit

CONTENT_LIMIT = 2000
BUTTON_LABEL_LIMIT = 80
CHOICE_NAME_LIMIT = 100
THREAD_NAME_LIMIT = 100
T = TypeVar("T")


#: Format characters kept in member text: ZWNJ, ZWJ (Persian words, emoji sequences), LRM, RLM.
_KEPT_FORMAT = frozenset("\u200c\u200d\u200e\u200f")


def visible(text: str) -> str:
    """``text`` without control characters (but newlines and tabs) and invisible format characters."""
    return "".join(
        ch
        for ch in text
        if ch in "\n\t" or ch in _KEPT_FORMAT or unicodedata.category(ch) not in ("Cc", "Cf")
    )


def clean_line(text: str) -> str:
    """:func:`visible` text on one line, runs of whitespace as one space ('' when nothing shows)."""
    return " ".join(visible(text).split())


def cut(text: str | None, limit: int) -> str:
    """Cut text to `limit` characters with an ellipsis (for display only; stored text stays whole)."""
    if text is None:
        return ""
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def one_line(text: str, limit: int = 100) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    return cut(" ".join(text.split()), limit)


#: Look-alikes for markdown characters in a masked link's text, where escapes show (discord-api-docs#6185).
LINK_TEXT_LOOKALIKES: dict[str, str] = {
    "\\": "\u29f5",  # ⧵ reverse solidus operator
    "*": "\u2217",  # ∗ asterisk operator
    "_": "\u02cd",  # ˍ modifier letter low macron (only at a word's edge: snake_case stays)
    "~": "\u223c",  # ∼ tilde operator
    "|": "\u2223",  # ∣ divides
    "`": "\u02cb",  # ˋ modifier letter grave accent
    "[": "\uff3b",  # ［ fullwidth brackets: the link's own brackets stay the only ones
    "]": "\uff3d",
    "<": "\u2039",  # ‹ › no <@id>, <#id>, <t:…> or <https://…> inside the link
    ">": "\u203a",
}
_LOOKALIKE = re.compile(r"[\\*~|`\[\]<>]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
# A masked link whose text holds a URL prints raw, so link text drops schemes (discord-api-docs#7721).
_SCHEME_IN_TEXT = re.compile(r"\b[a-z][a-z0-9+.-]*:/+", re.IGNORECASE)
_URL_ESCAPES = str.maketrans({"(": "%28", ")": "%29", "<": "%3C", ">": "%3E", "\\": "%5C", '"': "%22"})


def link_text(text: str | None, limit: int = 200) -> str:
    """Text for inside a masked link's brackets: one visible line, no scheme, look-alikes; never empty."""
    line = _SCHEME_IN_TEXT.sub("", one_line(visible(text or ""), limit))
    return _LOOKALIKE.sub(lambda m: LINK_TEXT_LOOKALIKES[m.group(0)], line) or "link"


def is_http_url(text: str) -> bool:
    """True for an absolute http(s) URL with a host and no whitespace, control or invisible characters."""
    if not text or any(c.isspace() or unicodedata.category(c) in ("Cc", "Cf", "Co", "Cs") for c in text):
        return False
    try:
        parts = urlsplit(text)
        _ = parts.port  # raises ValueError on a bad port
        return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)
    except ValueError:
        return False


def link_url(url: str | None) -> str | None:
    """``url`` percent-encoded for a masked link's target, or None when not http(s) (discord-api-docs#6088)."""
    raw = (url or "").strip()
    try:
        if " " in urlsplit(raw).netloc:
            return None
    except ValueError:  # e.g. an unclosed [IPv6 host
        return None
    spaced = raw.replace(" ", "%20")  # a space pasted into the path stays part of the target
    if not spaced or not is_http_url(spaced):
        return None
    return spaced.translate(_URL_ESCAPES)


def markdown_link(text: str | None, url: str | None, *, limit: int = 200, preview: bool = True) -> str:
    """``[text](url)``, the one way to make masked links (``preview=False``: none); a bad URL: the text."""
    label = link_text(text, limit)
    target = link_url(url)
    if target is None:
        return label
    return f"[{label}](<{target}>)" if not preview else f"[{label}]({target})"


def plural(count: int, noun: str) -> str:
    """'1 paper', '3 papers'."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def page_count(total_items: int, per_page: int) -> int:
    """How many pages ``total_items`` fill (at least one)."""
    return max(1, -(-total_items // per_page))


def clamp_page(page: int, pages: int) -> int:
    """``page`` kept within ``0..pages - 1``."""
    return min(max(page, 0), pages - 1)


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a paged list: its items, how many in all, the page (0-based) and how many pages."""

    items: list[T]
    total: int
    page: int
    pages: int
