"""bot.text.markdown_link: one masked link whatever the text and URL, the text shown as typed (no
backslash, no formatting, no breaking out), only http(s) targets."""

from __future__ import annotations

import unicodedata
from urllib.parse import unquote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.errors import BadInput
from bot.papers import is_http_url, validate_http_url
from bot.text import LINK_TEXT_LOOKALIKES, link_text, link_url, markdown_link, one_line
from tests.markdown_view import links

FUZZ = settings(derandomize=True, database=None, deadline=None, max_examples=300)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Plain title: a study", "Plain title: a study"),
        ("tau_bench and snake_case_names", "tau_bench and snake_case_names"),
        ("*bold* _it_ ~~s~~ ||sp|| `c`", "∗bold∗ ˍitˍ ∼∼s∼∼ ∣∣sp∣∣ ˋcˋ"),
        ("[x](https://evil.example) ]", "［x］(evil.example) ］"),
        ("back\\slash", "back⧵slash"),
        ("<@123> <#4> <t:1:R>", "‹@123› ‹#4› ‹t:1:R›"),
        ("https://example.org/a_(b)", "example.org/aˍ(b)"),  # _ before a non-letter: a look-alike
        ("zero\u200bwidth \u202eevil", "zerowidth evil"),
        ("", "link"),
        ("  ", "link"),
    ],
)
def test_link_text(text: str, shown: str) -> None:
    assert link_text(text) == shown


def test_link_text_is_cut_before_the_look_alikes() -> None:
    assert link_text("*" * 300, limit=10) == "∗" * 9 + "…"


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "data:text/html,hi",
        "ftp://example.org/x",
        "discord://-/channels/1/2",
        "https://",
        "https://exa mple.org",
        "https://example.org/\u202egpj.exe",
        "https://example.org/\u200b",
        "https://example.org/\x00",
        "//example.org",
        "",
        None,
    ],
)
def test_only_http_urls_become_links(url: str | None) -> None:
    assert link_url(url) is None
    assert markdown_link("Title", url) == "Title"


def test_targets_cannot_end_the_link_early() -> None:
    assert (
        markdown_link("T", "https://en.wikipedia.org/wiki/A_(b)")
        == "[T](https://en.wikipedia.org/wiki/A_%28b%29)"
    )
    assert markdown_link("T", 'https://x.org/<a>"\\') == "[T](https://x.org/%3Ca%3E%22%5C)"
    assert markdown_link("T", "https://x.org/(a)", preview=False) == "[T](<https://x.org/%28a%29>)"


def test_invisible_characters_in_links_are_refused_with_a_reason() -> None:
    assert not is_http_url("https://example.org/\u202egpj.exe")
    with pytest.raises(BadInput, match="invisible characters"):
        validate_http_url("https://example.org/\u200bpaper", "Sign-up link")


URLS = st.builds(
    lambda host, path: f"https://{host}.org/{path}",
    st.from_regex(r"[a-z]{1,10}", fullmatch=True),
    st.text(
        alphabet=st.characters(codec="utf-8", exclude_categories=("Cc", "Cf", "Cs", "Co", "Zs", "Zl", "Zp")),
        max_size=30,
    ),
)


@FUZZ
@given(text=st.text(max_size=150), url=URLS)
def test_fuzz_one_link_showing_the_text_as_typed(text: str, url: str) -> None:
    made = markdown_link(text, url)
    (link,) = links(made)  # exactly one link, none of it shows a backslash or gets formatted
    assert link.raw_text == made
    assert link.url == unquote(url)  # the view undoes percent-escapes, those typed in the URL too ('%00')
    expected = link_text(text)
    assert link.text == expected
    visible = "".join(
        ch for ch in text if ch in "\n\t\u200d" or unicodedata.category(ch) not in ("Cc", "Cf")
    )  # as bot.text.visible: newlines and tabs stay (one_line makes them spaces)
    lookalike_typed = any(ch in visible for ch in LINK_TEXT_LOOKALIKES.values())
    if ":/" not in visible and not lookalike_typed and one_line(visible, 200) and len(visible) < 190:
        assert link.as_typed == one_line(visible, 200)
