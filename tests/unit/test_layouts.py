"""bot/layouts.py: text escaped once, fixed link labels, and a card fitted to Discord's budget."""

from __future__ import annotations

import discord

from bot.layouts import COMPONENT_LIMIT, TEXT_LIMIT, Card, count_components, escape, escape_line, link_button


def fitted(card: Card, **kw) -> tuple[list[dict], int, int]:
    payload = card.view(**kw).to_components()
    texts = [c for top in payload for c in _walk(top) if c.get("type") == 10]
    return payload, sum(count_components(c) for c in payload), sum(len(t["content"]) for t in texts)


def _walk(component: dict) -> list[dict]:
    out = [component]
    for child in component.get("components") or []:
        out.extend(_walk(child))
    if isinstance(component.get("accessory"), dict):
        out.extend(_walk(component["accessory"]))
    return out


def test_escaping_is_once_and_keeps_urls_and_mentions_as_typed() -> None:
    assert escape("*a* _b_ https://x.example/a_b") == "\\*a\\* \\_b\\_ https://x.example/a_b"
    assert escape_line("<@1> and\n<t:1>", 200) == "\\<@1> and \\<t:1>"
    assert escape("x" * 50, 10) == "x" * 9 + "…"
    assert escape_line("a\u200bb") == "ab"


def test_link_buttons_have_fixed_labels() -> None:
    labels = {
        "https://arxiv.org/abs/2401.12345": "arXiv",
        "https://arxiv.org/pdf/2401.12345": "arXiv",
        "https://openreview.net/forum?id=x": "OpenReview",
        "https://doi.org/10.1/x": "DOI",
        "https://example.org/paper.pdf": "PDF",
        "https://example.org/": "Link",
    }
    for url, label in labels.items():
        button = link_button(url)
        assert button is not None
        assert (button.label, button.url) == (label, url)
    assert link_button("javascript:alert(1)") is None
    assert link_button("https://x.example/" + "a" * 600) is None


def test_a_card_drops_separators_then_group_entries_then_cuts_text() -> None:
    card = Card(accent=discord.Colour.blurple()).heading("Title").separator().more("papers", "papers")
    for i in range(20):
        card.section(f"**Paper {i}**", link_button(f"https://x.example/{i}"), group="papers")
    card.row(discord.ui.Button(label=str(i), custom_id=f"b{i}") for i in range(5))
    payload, components, _ = fitted(card)
    assert components <= COMPONENT_LIMIT
    (container,) = payload
    kinds = [c["type"] for c in container["components"]]
    assert 14 not in kinds  # the separator went first
    assert kinds[-1] == 1  # the row stays
    assert container["components"][-2]["content"].startswith("-# … and ")
    assert container["components"][-2]["content"].endswith(" more papers")

    long = Card().heading("T").text(escape("y" * 3000)).text(escape("z" * 3000))
    _, _, characters = fitted(long, note="n" * 3000)
    assert characters <= TEXT_LIMIT
