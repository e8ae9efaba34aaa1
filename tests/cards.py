"""Reading the bot's cards in tests: a layout's heading, its report line and its labelled lines
("**Time zone:** UTC"), or an embed's title, description and fields, whichever the message is."""

from __future__ import annotations

import re
from typing import Any

from standin.components import text_displays

_FACT = re.compile(r"^\*\*(?P<name>[^*]+?):\*\* ?(?P<value>.*)$")


def card_title(message: Any) -> str:
    """The card's title: a layout's heading, or the first embed's title."""
    if message.embeds:
        return str(message.embeds[0].get("title") or "")
    heading = text_displays(message.components)[0].split("\n", 1)[0]
    return heading.removeprefix("## ")


def card_report(message: Any) -> str:
    """The text under the title: the layout's second text display, or the embed's description."""
    if message.embeds:
        return str(message.embeds[0].get("description") or "")
    return text_displays(message.components)[1]


def card_fields(message: Any) -> dict[str, str]:
    """The labelled values: an embed's fields, or a layout's "**Name:** value" lines."""
    if message.embeds:
        return {f["name"]: f["value"] for f in message.embeds[0].get("fields", [])}
    found: dict[str, str] = {}
    for text in text_displays(message.components):
        for line in text.split("\n"):
            if match := _FACT.match(line):
                found[match["name"]] = match["value"]
    return found
