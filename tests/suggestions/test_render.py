"""How suggestions render: links in the list cannot be broken by the paper's URL or title."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.services.suggestions.queries import SuggestionSummary
from cogs.suggestions._render import summary_line


def summary(title: str, url: str | None) -> SuggestionSummary:
    return SuggestionSummary(
        id=7,
        title=title,
        url=url,
        status="open",
        topic=None,
        submitter_id=42,
        created_at=datetime(2026, 11, 30, tzinfo=UTC),
        votes=3,
        volunteers=0,
    )


def test_a_url_with_brackets_and_spaces_stays_one_link() -> None:
    line = summary_line(summary("Agents [v2] *bold*", "https://en.wikipedia.org/wiki/Foo_(bar) baz"))
    first = line.splitlines()[0]
    # Link text is never backslash-escaped (Discord shows backslashes there): look-alikes stand in.
    assert first == "`#7` [Agents ［v2］ ∗bold∗](https://en.wikipedia.org/wiki/Foo_%28bar%29%20baz)"


def test_no_url_is_a_bold_escaped_title() -> None:
    assert summary_line(summary("a_b", None)).splitlines()[0] == r"`#7` **a\_b**"
