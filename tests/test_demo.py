"""`paperclub demo` runs offline, prints its tour, and prints the same tour every time."""

from __future__ import annotations

import difflib
import io
from pathlib import Path

from bot.demo.runner import discover_tours, run_demo
from bot.demo.tours.reading import club_programme

ROOT = Path(__file__).resolve().parents[1]
RUNS = 5


async def test_demo_prints_the_tour() -> None:
    out = io.StringIO()
    assert await run_demo(out=out) == 0
    text = out.getvalue()
    assert "@Adam uses /setup ping_role role:@Readers" in text
    assert "Only members with Manage Server can change the club's settings." in text
    assert "Demo finished" in text
    assert "Traceback" not in text
    # the website tour (bot/demo/tours/site.py): the home page's address and text, a Session page link
    assert "Website on: https://club.example.org/paper-club/." in text
    assert "GET https://club.example.org/paper-club/ → 200 text/html; charset=utf-8" in text
    assert "  │ • 16 October — Sandbox infrastructure for environments at scale." in text
    assert "  │ • Where. A video call; sign up on Luma beforehand" in text
    assert "[ Session page ↗ ]" in text
    # the papers tour (bot/demo/tours/papers.py): a card with every source filled, OpenReview found by title
    card = text[text.index("@Rita uses /paper show paper:TMax") :]
    card = card[: card.index("└")]
    for shown in (
        "ICLR 2026 Oral · Accept (Oral)",
        "**TLDR:**",
        "2 models",
        "Models: example/tmax-7b, example/tmax-1b",
        "[ Code ↗ ]",
        "[ OpenReview ↗ ]",
    ):
        assert shown in card
    assert "review's text" not in text


async def test_demo_is_the_same_every_run() -> None:
    """Byte for byte, nothing ignored: the tour waits for each step (quiet ones too) and the stand-in's
    ids follow the demo's FakeClock. (Before, the first settings card often showed "not set".)"""
    outputs = []
    for _ in range(RUNS):
        out = io.StringIO()
        assert await run_demo(out=out) == 0
        outputs.append(out.getvalue())
    first = outputs[0]
    card = first[first.index("Paper club settings") :]
    assert "Announcements channel: #announcements" in card[: card.index("└")]
    assert "not set" not in card[: card.index("└")]
    for other in outputs[1:]:
        assert other == first, "".join(difflib.unified_diff(first.splitlines(True), other.splitlines(True)))


def test_the_packaged_programme_is_examples_club_yaml() -> None:
    """One programme: the demo imports the package's copy (bot/demo/club.yaml, installed with the package);
    examples/club.yaml, where the README points admins, must stay the same file."""
    assert (ROOT / "examples" / "club.yaml").read_text(encoding="utf-8") == club_programme(), (
        "examples/club.yaml and bot/demo/club.yaml differ: edit one and copy it over the other"
    )


def test_tours_are_ordered() -> None:
    orders = [getattr(m, "ORDER", 100) for m in discover_tours()]
    assert orders == sorted(orders)
    assert orders[0] == 10
