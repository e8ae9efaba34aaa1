"""Paginated replies with ◀ ▶ buttons that keep working after a restart.

A feature registers a page renderer under a short name; the buttons carry
``pg:<name>:<arg>:<page>`` in their custom_id, so no state is held in memory
and a press after a restart re-renders the page from the store. Usage::

    register_pager("sessions", render_sessions_page)   # in the cog's cog_load
    register_pager("reminders", render_page, guard=ensure_organizer)  # checked on every press
    embed, view = await first_page(bot, "sessions", guild_id, arg="")
    await send_reply(interaction, embed=embed, view=view)
    # or, with a Page the cog rendered itself:
    await send_page(interaction, "sessions", arg, page, public=True)
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord

from bot.replies import NO_MENTIONS, fit_embed, send_reply
from bot.views import PaperclubView, PersistentButton, field

if TYPE_CHECKING:
    from bot.client import Interaction


@dataclass(frozen=True)
class Page:
    embed: discord.Embed
    page: int  # 0-based, clamped by the renderer
    pages: int  # total, at least 1


PageRenderer = Callable[[Any, int, str, int], Awaitable[Page]]
"""(bot, guild_id, arg, page) -> Page"""

PageGuard = Callable[["Interaction"], Awaitable[object]]
"""Run before every page turn; raises (e.g. NotAllowed) to refuse the presser."""

_RENDERERS: dict[str, PageRenderer] = {}
_GUARDS: dict[str, PageGuard] = {}


def register_pager(name: str, renderer: PageRenderer, *, guard: PageGuard | None = None) -> None:
    """Register a renderer; ``guard`` (e.g. ``ensure_organizer``) is awaited on every ◀ ▶ press before
    rendering, so a list shown to an organizer cannot be paged by anyone else."""
    if not re.fullmatch(r"[a-z_]{1,20}", name):
        raise ValueError(f"bad pager name {name!r}")
    _RENDERERS[name] = renderer
    if guard is None:
        _GUARDS.pop(name, None)
    else:
        _GUARDS[name] = guard


def page_count(total_items: int, per_page: int) -> int:
    return max(1, -(-total_items // per_page))


def clamp_page(page: int, pages: int) -> int:
    return min(max(page, 0), pages - 1)


class PageButton(PersistentButton, prefix="pg"):
    """◀ or ▶ under a paged list; ``page`` is the page it opens."""

    name: str = field(r"[a-z_]+")
    arg: str = field(r"[^:]{0,60}")
    page: int = field(r"\d+", int)
    direction: str = field(r"[pn]")

    def __init__(self, name: str, arg: str, page: int, direction: str, *, disabled: bool = False) -> None:
        label = "◀ Previous" if direction == "p" else "Next ▶"
        super().__init__(name, arg, page, direction, label=label, disabled=disabled)

    async def pressed(self, interaction: Interaction) -> None:
        renderer = _RENDERERS.get(self.name)
        if renderer is None or interaction.guild_id is None:
            await interaction.response.send_message("This list is no longer available.", ephemeral=True)
            return
        guard = _GUARDS.get(self.name)
        if guard is not None:
            await guard(interaction)
        page = await renderer(interaction.client, interaction.guild_id, self.arg, self.page)
        view = pager_view(self.name, self.arg, page)  # adds the footer: fit the embed after it
        await interaction.response.edit_message(
            embed=fit_embed(page.embed), view=view, allowed_mentions=NO_MENTIONS
        )


def pager_view(name: str, arg: str, page: Page) -> discord.ui.View | None:
    """◀ ▶ buttons for `page`, or None when everything fits on one page."""
    if page.pages <= 1:
        return None
    view = PaperclubView(timeout=None)
    previous, following = max(page.page - 1, 0), min(page.page + 1, page.pages - 1)
    view.add_item(PageButton(name, arg, previous, "p", disabled=page.page <= 0))
    view.add_item(PageButton(name, arg, following, "n", disabled=page.page >= page.pages - 1))
    page.embed.set_footer(text=f"Page {page.page + 1} of {page.pages}")
    return view


async def first_page(
    bot: Any, name: str, guild_id: int, arg: str = "", page: int = 0
) -> tuple[discord.Embed, discord.ui.View | None]:
    result = await _RENDERERS[name](bot, guild_id, arg, page)
    view = pager_view(name, arg, result)  # adds the footer: fit the embed after it
    return fit_embed(result.embed), view


async def send_page(
    interaction: Interaction, name: str, arg: str, page: Page, *, public: bool = False
) -> None:
    """Answer with a page a renderer made, and its ◀ ▶ buttons (ephemeral unless ``public``)."""
    view = pager_view(name, arg, page)  # adds the footer: fit the embed after it
    await send_reply(interaction, embed=fit_embed(page.embed), view=view, public=public)


def setup_paging(bot: discord.Client) -> None:
    """Register the page buttons once (the Bot does this in setup_hook)."""
    bot.add_dynamic_items(PageButton)
