"""Autocomplete choices for /paper show: one line, within Discord's 100 characters, the arXiv id kept."""

from __future__ import annotations

from bot.services.papers.queries import CHOICE_NAME, choice_name


def test_a_long_title_is_cut_and_keeps_its_arxiv_id() -> None:
    name = choice_name("Terminal agents\n" + "x" * 10_000, "2401.12345")
    assert len(name) <= CHOICE_NAME
    assert name.endswith(" · arXiv:2401.12345")
    assert "\n" not in name


def test_a_title_only_paper_and_an_empty_title() -> None:
    assert choice_name("TMax", None) == "TMax"
    assert choice_name("   ", None) == "…"
    assert len(choice_name("y" * 500, "a" * 80)) <= CHOICE_NAME  # an absurd id is left off
