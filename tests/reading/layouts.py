"""Reading the /reading cards in tests: their sections (text and the link beside it), the pager's
"Page n of m" line, and Discord's Components V2 limits."""

from __future__ import annotations

from typing import Any

from bot.layouts import COMPONENT_LIMIT, TEXT_LIMIT, count_components


def sections(message: Any) -> list[tuple[str, str | None]]:
    """Each entry of a card, in order: its text and the URL of the link button beside it (None for
    text with no button)."""
    (container,) = message.components
    out: list[tuple[str, str | None]] = []
    for item in container["components"][1:]:
        if item["type"] == 9:
            text = "\n".join(c["content"] for c in item["components"])
            out.append((text, item["accessory"].get("url")))
        elif item["type"] == 10 and not item["content"].startswith("-# "):
            out.append((item["content"], None))
    return out


def page_line(message: Any) -> str | None:
    """The pager's "Page n of m" line, without its "-# "."""
    lines = [t for t in message.text_displays if t.startswith("-# Page ")]
    return lines[-1].removeprefix("-# ") if lines else None


def within_limits(message: Any) -> None:
    """A Components V2 message with nothing beside its layout, within 40 components and 4,000 characters."""
    assert message.is_components_v2
    assert message.content == ""
    assert message.embeds == []
    assert sum(count_components(c) for c in message.components) <= COMPONENT_LIMIT
    assert len("".join(message.text_displays)) <= TEXT_LIMIT
