"""The site's Markdown: CommonMark with raw HTML and images off, links only to http(s) and mailto."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from markdown_it import MarkdownIt

from bot.errors import BadInput

SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
#: What no link may hold: C0 controls, space and DEL (one regex scan, not a Python loop per character).
_CONTROL_OR_SPACE = re.compile(r"[\x00-\x20\x7f]")


def safe_link(url: str | None) -> str | None:
    """The URL when its scheme is http(s) (with a host) or mailto, else None. Parsed, never string-matched."""
    if not url:
        return None
    text = url.strip()
    if _CONTROL_OR_SPACE.search(text):
        return None
    try:
        parts = urlsplit(text)
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    needed = parts.path if scheme == "mailto" else parts.hostname  # an address, or a host
    return text if scheme in SAFE_SCHEMES and needed else None


def _link_open(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    tokens[idx].attrSet("rel", "nofollow noopener")
    return str(renderer.renderToken(tokens, idx, options, env))


@lru_cache(maxsize=1)
def _renderer() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.disable("image")
    md.validateLink = lambda url: safe_link(url) is not None  # type: ignore[method-assign]
    md.add_render_rule("link_open", _link_open)
    return md


@lru_cache(maxsize=256)
def render_markdown(text: str | None) -> str:
    """Safe HTML for ``text`` (empty for none), cached: the home page's one costly step."""
    if not text:
        return ""
    return _renderer().render(text)


@lru_cache(maxsize=1)
def _checker() -> MarkdownIt:
    """A parser that keeps what the renderer drops (raw HTML, any link), so :func:`check_markdown` sees it."""
    md = MarkdownIt("commonmark", {"html": True, "linkify": False, "typographer": False})
    md.disable("image")
    md.validateLink = lambda url: True  # type: ignore[method-assign]
    return md


def _tokens(tokens: list[Any]) -> Any:
    for token in tokens:
        yield token
        yield from _tokens(token.children or [])


def check_markdown(text: str) -> None:
    """BadInput when ``text`` holds raw HTML or a link other than http(s) or mailto (dropped when shown)."""
    for token in _tokens(_checker().parse(text)):
        if token.type in ("html_block", "html_inline"):
            tag = " ".join(token.content.split())[:40]
            raise BadInput(
                f"The text holds raw HTML (“{tag}”): write Markdown instead (**bold**, [text](https://…))."
            )
        if token.type == "link_open":
            href = str(token.attrGet("href") or "")
            if safe_link(href) is None:
                raise BadInput(f"The text links to “{href[:40]}”: only http(s) and mailto links are allowed.")


def plain_text(text: str | None) -> str:
    """The words of Markdown ``text`` on one line, without its markup (for a link preview's description)."""
    if not text:
        return ""
    parts = []
    for block in _renderer().parse(text):
        for token in block.children or []:
            parts.append(token.content if token.type in ("text", "code_inline") else "")
            parts.append(" " if token.type in ("softbreak", "hardbreak") else "")
        parts.append(" ")
    return " ".join("".join(parts).split())
