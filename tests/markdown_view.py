"""What Discord shows for the markdown we send, as far as masked links go (for tests).

Masked links are read as Discord's client reads them (its simple-markdown `link` rule), and their text
as Discord shows it: formatting applies inside, but escapes do not unescape there ("Escaping is disabled
in masked links for security reasons. The fact that you can see the `\\` is representative that it is
disabled", Discord staff, discord-api-docs#6185), and a text holding a URL makes Discord print the
whole link as raw markdown (discord-api-docs#7721).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

from bot.text import LINK_TEXT_LOOKALIKES

# simple-markdown's link rule (the label may hold balanced [..]; the target may hold (..) pairs).
LINK = re.compile(
    r"\[((?:\[[^\]]*\]|[^\[\]]|\](?=[^\[]*\]))*)\]"
    r"\(\s*<?((?:\([^)]*\)|[^\s\\]|\\.)*?)>?(?:\s+['\"]([\s\S]*?)['\"])?\s*\)"
)
# Markup that would format (and so hide characters of) a masked link's text.
FORMATTING = [
    re.compile(r"\*\*(?=\S)[\s\S]+?\*\*"),
    re.compile(r"\*(?=\S)[\s\S]*?\S\*|\*\S\*"),
    re.compile(r"__[\s\S]+?__"),
    re.compile(r"\b_[\s\S]+?_\b"),
    re.compile(r"~~[\s\S]+?~~"),
    re.compile(r"\|\|[\s\S]+?\|\|"),
    re.compile(r"`[\s\S]+?`"),
    re.compile(r"<(?:@[!&]?|#|t:|a?:)[^>]*>"),
]
URL_IN_TEXT = re.compile(r"[a-z][a-z0-9+.-]*://[a-z]{2}", re.IGNORECASE)
BACK = {shown: typed for typed, shown in LINK_TEXT_LOOKALIKES.items()}


@dataclass(frozen=True)
class ShownLink:
    text: str  # as the member sees it
    url: str  # where it goes (percent-escapes undone)
    raw_text: str

    @property
    def as_typed(self) -> str:
        """The text with the look-alikes read back as the characters they stand for."""
        return "".join(BACK.get(ch, ch) for ch in self.text)


def links(markdown: str) -> list[ShownLink]:
    """Every masked link Discord would render in ``markdown``; AssertionError when one would show
    backslashes, get formatted or be printed raw."""
    found = []
    for match in LINK.finditer(markdown):
        label, target = match.group(1), match.group(2)
        assert "\\" not in label, f"a backslash would show in the link text {label!r}"
        for pattern in FORMATTING:
            assert not pattern.search(label), f"{label!r} would be formatted ({pattern.pattern})"
        assert not URL_IN_TEXT.search(label), f"Discord prints [{label}](…) raw: its text holds a URL"
        found.append(ShownLink(text=label, url=unquote(target), raw_text=match.group(0)))
    return found


def link_to(markdown: str, url: str) -> ShownLink:
    """The one masked link to ``url`` in ``markdown``."""
    matching = [link for link in links(markdown) if link.url == url]
    assert len(matching) == 1, (url, markdown)
    return matching[0]
