"""How suggestions render: a typed title in the list reads as typed (escaped once, never look-alike
characters in a masked link), its link a button; the post's dates in the club's style."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from bot.services.papers.store import PaperInfo
from bot.services.suggestions.queries import SuggestionCard, SuggestionSummary
from bot.text import Page
from cogs.suggestions._render import list_card, post_card

HOSTILE = "[click](https://evil.example/x) **b**"
NOW = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)


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


def sections(page: Page[SuggestionSummary]) -> list[dict]:
    container = list_card(page, "Paper suggestions").container().to_component_dict()
    return [c for c in container["components"] if c["type"] == 9]  # Section: text with its button


def test_a_typed_title_reads_as_typed_and_its_link_is_a_button() -> None:
    url = "https://en.wikipedia.org/wiki/Foo_(bar)"
    (section,) = sections(Page([summary(HOSTILE, url)], 1, 0, 1))
    text = section["components"][0]["content"]
    assert text.splitlines()[0] == r"**\[click](https://evil.example/x) \*\*b\*\***"  # escaped once
    assert not set("［］∗") & set(text)  # no look-alikes
    assert "👍 3 · <@42>" in text
    assert section["accessory"]["url"] == url


def test_no_url_is_a_title_without_a_button() -> None:
    page = Page([summary("a_b", None)], 1, 0, 1)
    container = list_card(page, "Paper suggestions").container().to_component_dict()
    assert r"**a\_b**" in container["components"][1]["content"]
    assert sections(page) == []


def test_the_post_dates_in_the_clubs_style_and_says_no_ids() -> None:
    paper = PaperInfo(5, "arxiv:2406.12045", "arxiv", HOSTILE, None, "2406.12045", None, authors="A. Author")
    card = SuggestionCard(
        id=9,
        guild_id=1,
        status="open",
        paper=paper,
        abstract=None,
        published="2024-06-17",
        submitter_id=42,
        reason=None,
        topic=None,
        review_note=None,
        reviewed_by=None,
        created_at=datetime(2026, 11, 30, 17, 0, tzinfo=UTC),
        channel_id=None,
        message_id=None,
        session_id=None,
        voter_ids=(),
        volunteer_ids=(),
        zone="America/Los_Angeles",
    )
    texts = [c.get("content", "") for c in post_card(card, NOW).container().to_component_dict()["components"]]
    shown = "\n".join(texts)
    assert texts[0] == r"## \[click](https://evil.example/x) \*\*b\*\*"
    assert "**Published:** 17 June 2024" in shown
    assert "**Suggested by:** <@42> on Monday 30 November" in shown  # this year's: no year
    assert "2024-06-17" not in shown
    assert "#9" not in shown
    assert "#5" not in shown
    assert "<t:" not in shown
    later = post_card(replace(card, published="2026-06-17"), NOW).container().to_component_dict()
    assert "**Published:** 17 June\n" in "\n".join(c.get("content", "") for c in later["components"]) + "\n"
