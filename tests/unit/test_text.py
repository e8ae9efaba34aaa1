"""bot.text.visible / clean_line: member text without invisible characters."""

from __future__ import annotations

import pytest

from bot.text import clean_line, visible


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("plain", "plain"),
        ("zero\u200bwidth", "zerowidth"),
        ("\u202eevil\u202c", "evil"),  # a direction override and its end
        ("\u2066isolate\u2069", "isolate"),
        ("soft\u00adhyphen\ufeff", "softhyphen"),
        ("bell\x07", "bell"),
        ("two\nlines\tand a tab", "two\nlines\tand a tab"),
        ("👩\u200d💻 and می\u200cخواهم", "👩\u200d💻 and می\u200cخواهم"),  # ZWJ emoji, ZWNJ in Persian
        ("abc \u200fשלום\u200e", "abc \u200fשלום\u200e"),  # RLM / LRM for mixed direction
    ],
)
def test_visible(typed: str, kept: str) -> None:
    assert visible(typed) == kept


def test_clean_line() -> None:
    assert clean_line("  a \u200b\n b  ") == "a b"
    assert clean_line("\u200b\u200b") == ""
    assert clean_line("\u202e") == ""
