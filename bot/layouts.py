"""Cards as Components V2 layouts (:class:`Card`) fitted to Discord's budget; member text escaped once."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Self
from urllib.parse import urlsplit

import discord
from discord.utils import escape_markdown

from bot.text import BUTTON_LABEL_LIMIT, cut, is_http_url, one_line, visible

# Component Reference: 40 components with IS_COMPONENTS_V2; text displays total 4000 characters.
COMPONENT_LIMIT = 40
TEXT_LIMIT = 4000
BUTTONS_PER_ROW = 5
# Button Structure: a link button's url is "max 512 characters".
BUTTON_URL_LIMIT = 512

Item = discord.ui.Item[Any]


def escape(text: str | None, limit: int | None = None) -> str:
    """Member text for a Text Display: visible, cut to ``limit`` before escaping, markdown and mentions escaped."""
    shown = visible(text or "")
    if limit is not None:
        shown = cut(shown, limit)
    return _escape(shown)


def escape_line(text: str | None, limit: int = 200) -> str:
    """Member text on one line (a title, a name), escaped once."""
    return _escape(one_line(visible(text or ""), limit))


def _escape(text: str) -> str:
    # A backslash before ``<`` keeps a typed ``<@id>``, ``<#id>`` or ``<t:…>`` as the characters typed.
    return escape_markdown(text).replace("<", "\\<")


_LINK_LABELS = (
    ("arxiv.org", "arXiv"),
    ("openreview.net", "OpenReview"),
    ("doi.org", "DOI"),
    ("huggingface.co", "Hugging Face"),
    ("github.com", "GitHub"),
)


def link_label(url: str) -> str:
    """A fixed label for a paper's link: the site's name (arXiv, OpenReview, DOI…), PDF, else "Link"."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "Link"
    host = (parts.hostname or "").lower()
    for domain, label in _LINK_LABELS:
        if host == domain or host.endswith("." + domain):
            return "PDF" if parts.path.lower().endswith(".pdf") and label != "arXiv" else label
    return "PDF" if parts.path.lower().endswith(".pdf") else "Link"


def link_button(url: str | None, label: str | None = None) -> discord.ui.Button[Any] | None:
    """A link button to ``url`` (label default :func:`link_label`), or None when a button cannot hold it."""
    if not url or len(url) > BUTTON_URL_LIMIT or not is_http_url(url):
        return None
    return discord.ui.Button(
        label=cut(label or link_label(url), BUTTON_LABEL_LIMIT), url=url, style=discord.ButtonStyle.link
    )


def count_components(component: dict[str, Any]) -> int:
    """How many components a component's payload holds, itself included (as Discord counts them)."""
    children = list(component.get("components") or [])
    for key in ("accessory", "component"):
        if isinstance(component.get(key), dict):
            children.append(component[key])
    return 1 + sum(count_components(child) for child in children)


def text_length(component: dict[str, Any]) -> int:
    """The Text Display characters a component's payload holds."""
    own = len(str(component.get("content") or "")) if component.get("type") == 10 else 0
    children = list(component.get("components") or [])
    if isinstance(component.get("accessory"), dict):
        children.append(component["accessory"])
    return own + sum(text_length(child) for child in children)


@dataclass
class _Block:
    """A text, a section, a row of buttons or a separator, built late so a cut text can be rebuilt."""

    texts: list[str]
    group: str | None = None
    optional: bool = False
    accessory: Item | None = None
    buttons: list[Item] = field(default_factory=list)

    def item(self) -> Item:
        if self.accessory is not None:
            return discord.ui.Section(*map(discord.ui.TextDisplay, self.texts), accessory=self.accessory)
        if self.texts:
            return discord.ui.TextDisplay(self.texts[0])
        return discord.ui.ActionRow(*self.buttons) if self.buttons else discord.ui.Separator()

    def size(self) -> tuple[int, int]:
        payload = self.item().to_component_dict()
        return count_components(payload), text_length(payload)


class Card:
    """A card being laid out: blocks in reading order inside one Container, fitted on :meth:`view`."""

    def __init__(self, *, accent: discord.Colour | int | None = None) -> None:
        self.accent = accent
        self._blocks: list[_Block] = []
        self._more: dict[str, str] = {}

    def heading(self, title: str, *, level: int = 2, below: str | None = None) -> Self:
        """The member-typed ``title`` as a heading (one line, escaped), ``below`` (markdown) under it."""
        text = f"{'#' * level} {escape_line(title, 200) or '…'}"
        return self.text(text + (f"\n{below}" if below else ""))

    def text(self, markdown: str, *, group: str | None = None) -> Self:
        """A Text Display of markdown already made safe (member parts passed through :func:`escape`)."""
        if markdown.strip():
            self._blocks.append(_Block([markdown], group=group))
        return self

    def section(self, markdown: str, accessory: Item | None, *, group: str | None = None) -> Self:
        """Text with a button beside it (plain text when there is no button)."""
        if accessory is None:
            return self.text(markdown, group=group)
        self._blocks.append(_Block([markdown], group=group, accessory=accessory))
        return self

    def separator(self) -> Self:
        """A divider (the first thing dropped when the card is over budget)."""
        self._blocks.append(_Block([], optional=True))
        return self

    def row(self, buttons: Iterable[Item]) -> Self:
        """Buttons in rows of five."""
        items = list(buttons)
        for start in range(0, len(items), BUTTONS_PER_ROW):
            self._blocks.append(_Block([], buttons=items[start : start + BUTTONS_PER_ROW]))
        return self

    def more(self, group: str, noun: str) -> Self:
        """Name what a group holds, for its "… and N more <noun>" line when entries are dropped."""
        self._more[group] = noun
        return self

    def items(self, *, reserve: tuple[int, int] = (0, 0)) -> list[Item]:
        """The fitted blocks (a Container's children), leaving ``reserve`` (components, characters)."""
        blocks = list(self._blocks)
        dropped: dict[str, int] = {}
        budget = (COMPONENT_LIMIT - 1 - reserve[0], TEXT_LIMIT - reserve[1])  # 1: the Container

        def totals() -> tuple[int, int]:
            sizes = [b.size() for b in blocks]
            notes = [self._more_line(g, n) for g, n in dropped.items()]
            return (
                sum(s[0] for s in sizes) + len(notes),
                sum(s[1] for s in sizes) + sum(len(n) for n in notes),
            )

        while (over := totals())[0] > budget[0] or over[1] > budget[1]:
            optional = [b for b in blocks if b.optional]
            grouped = [b for b in blocks if b.group is not None]
            if optional:
                blocks.remove(optional[-1])
            elif grouped and len(grouped) > 1:
                victim = grouped[-1]
                blocks.remove(victim)
                assert victim.group is not None
                dropped[victim.group] = dropped.get(victim.group, 0) + 1
            elif over[0] > budget[0]:
                raise ValueError("a card's fixed parts are over Discord's component limit")
            else:
                longest = max((b for b in blocks if b.texts), key=lambda b: max(map(len, b.texts)))
                i = max(range(len(longest.texts)), key=lambda k: len(longest.texts[k]))
                text = longest.texts[i]
                longest.texts[i] = cut(text, max(1, len(text) - (over[1] - budget[1])))
        out: list[Item] = []
        for i, block in enumerate(blocks):
            out.append(block.item())
            group = block.group
            last_of_group = group is not None and all(b.group != group for b in blocks[i + 1 :])
            if group is not None and last_of_group and dropped.get(group):
                out.append(discord.ui.TextDisplay(self._more_line(group, dropped[group])))
        return out

    def _more_line(self, group: str, count: int) -> str:
        return f"-# … and {count} more {self._more.get(group, '')}".rstrip()

    def container(self, *, reserve: tuple[int, int] = (0, 0)) -> discord.ui.Container[Any]:
        """The card as one Container (accent colour) within the budget less ``reserve``."""
        return discord.ui.Container(*self.items(reserve=reserve), accent_colour=self.accent)

    def view(self, *, note: str | None = None) -> discord.ui.LayoutView:
        """The card as a message's whole layout, ``note`` (markdown) above it."""
        view = discord.ui.LayoutView(timeout=None)
        if note:
            note = cut(note, 1500)
            view.add_item(discord.ui.TextDisplay(note))
        view.add_item(self.container(reserve=(1, len(note)) if note else (0, 0)))
        return view


def layout(*items: Item) -> discord.ui.LayoutView:
    """A LayoutView of ready items (a card's Container, a note)."""
    view = discord.ui.LayoutView(timeout=None)
    for item in items:
        view.add_item(item)
    return view


def lines(parts: Sequence[str | None]) -> str:
    """The parts that are there, one a line."""
    return "\n".join(part for part in parts if part)
