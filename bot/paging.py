"""Paged replies whose ◀ ▶ buttons work after a restart (``bot.pagers.register``, :func:`send_page`)."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Self

import discord

from bot.layouts import Card
from bot.replies import NO_MENTIONS, send_reply
from bot.views import PersistentButton, field

NAME = re.compile(r"[a-z_]{1,20}")

# Old /session list buttons ("session:list:<page>:<p|n>") turn the "sessions" pager's pages.
LEGACY_SESSION_LIST = "sessions"


@dataclass(frozen=True)
class LayoutPage:
    """One rendered page of a paged list: its card; the pager adds its "Page n of m" line and ◀ ▶ row."""

    card: Card
    page: int  # 0-based, clamped by the renderer
    pages: int  # total, at least 1
    note: str = ""  # after "Page n of m", e.g. "12 upcoming"


PageRenderer = Callable[[int, str, int], Awaitable[LayoutPage]]
"""(guild_id, arg, page) -> the page; ``arg``: what the buttons carry besides the page (≤ 60, no ``:``)."""

PageGuard = Callable[[discord.Interaction[Any]], Awaitable[object]]
"""Run before every page turn; raises (e.g. NotAllowed) to refuse the presser."""


@dataclass(frozen=True)
class Pager:
    """A registered paged list: how to render a page, and who may turn it."""

    render: PageRenderer
    guard: PageGuard | None = None


class Pagers(dict[str, Pager]):
    """The bot's paged lists by name (``bot.pagers``); the ◀ ▶ buttons look their pager up on each press."""

    def register(self, name: str, render: PageRenderer, *, guard: PageGuard | None = None) -> None:
        """Register a renderer; ``guard`` (e.g. ``ensure_organizer``) is awaited on every ◀ ▶ press first."""
        if not NAME.fullmatch(name):
            raise ValueError(f"bad pager name {name!r}")
        if name in self:
            raise ValueError(f"a pager named {name!r} is already registered")
        self[name] = Pager(render, guard)

    def unregister(self, *names: str) -> None:
        """Forget the pagers called ``names``."""
        for name in names:
            self.pop(name, None)


class PageButton(
    PersistentButton, prefix="pg", legacy=r"session:list:(?P<legacy_page>\d{1,6}):(?P<legacy_direction>[pn])"
):
    """◀ or ▶ under a paged list; ``page`` is the page it opens."""

    name: str = field(r"[a-z_]+")
    arg: str = field(r"[^:]{0,60}")
    page: int = field(r"\d+", int)
    direction: str = field(r"[pn]")

    def __init__(self, name: str, arg: str, page: int, direction: str, *, disabled: bool = False) -> None:
        label = "◀ Previous" if direction == "p" else "Next ▶"
        super().__init__(name, arg, page, direction, label=label, disabled=disabled)

    @classmethod
    def from_match(cls, match: re.Match[str]) -> Self:
        """The button from a custom id, the legacy session list's included."""
        if match["legacy_page"] is not None:
            return cls(LEGACY_SESSION_LIST, "", int(match["legacy_page"]), match["legacy_direction"])
        return super().from_match(match)

    async def pressed(self, interaction: discord.Interaction[Any]) -> None:
        """Turn the list to the button's page, when its pager still exists and the guard lets the presser."""
        pagers: Pagers = interaction.client.pagers  # the PaperclubBot's (bot/client.py)
        pager = pagers.get(self.name)
        if pager is None or interaction.guild_id is None:
            await interaction.response.send_message("This list is no longer available.", ephemeral=True)
            return
        if pager.guard is not None:
            await pager.guard(interaction)
        page = await pager.render(interaction.guild_id, self.arg, self.page)
        # content and embeds cleared in the same edit: an old embed page becomes the layout
        await interaction.response.edit_message(
            content=None, embeds=[], view=layout_view(self.name, self.arg, page), allowed_mentions=NO_MENTIONS
        )


def layout_view(name: str, arg: str, page: LayoutPage) -> discord.ui.LayoutView:
    """The page's card as a layout, with its "Page n of m" line and ◀ ▶ row when there are more pages."""
    card = page.card
    if page.pages > 1:
        footer = f"Page {page.page + 1} of {page.pages}"
        card.text(f"-# {footer} · {page.note}" if page.note else f"-# {footer}")
        previous, following = max(page.page - 1, 0), min(page.page + 1, page.pages - 1)
        card.row(
            [
                PageButton(name, arg, previous, "p", disabled=page.page <= 0),
                PageButton(name, arg, following, "n", disabled=page.page >= page.pages - 1),
            ]
        )
    return card.view()


async def send_page(
    interaction: discord.Interaction[Any], name: str, arg: str, page: LayoutPage, *, public: bool = False
) -> None:
    """Answer with a page a renderer made, and its ◀ ▶ buttons (ephemeral unless ``public``)."""
    await send_reply(interaction, view=layout_view(name, arg, page), public=public)
