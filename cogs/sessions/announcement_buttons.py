"""The buttons other features add to a session's card (a coming week's I'll present, the site's Session
page), registered per bot in cog_load, so sessions import none of them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from weakref import WeakKeyDictionary

import discord

from bot.client import PaperclubBot
from bot.services.sessions.info import SessionInfo

Item = discord.ui.Item[Any]
ComingButton = Callable[[SessionInfo], Item | None]
"""A button for a coming session (None: not for this one); asked only before it starts."""
SessionLink = Callable[[SessionInfo], Awaitable[Item | None]]
"""A link kept on the session for good, also once it is over or cancelled (None: not for this one)."""


class AnnouncementButtons:
    """What the features registered on one bot, in the order they did."""

    def __init__(self) -> None:
        self._coming: list[ComingButton] = []
        self._links: list[SessionLink] = []

    def add(self, button: ComingButton) -> None:
        """Add a button to coming sessions."""
        self._coming.append(button)

    def add_link(self, link: SessionLink) -> None:
        """Add a link to every session."""
        self._links.append(link)

    def remove(self, maker: ComingButton | SessionLink) -> None:
        """Take back what :meth:`add` or :meth:`add_link` added."""
        for makers in (self._coming, self._links):
            if maker in makers:
                makers.remove(maker)  # type: ignore[arg-type]  # the list it is in holds its kind

    def coming(self, info: SessionInfo) -> list[Item]:
        """The extra buttons of a coming session."""
        return [item for make in self._coming if (item := make(info)) is not None]

    async def links(self, info: SessionInfo) -> list[Item]:
        """The session's links."""
        return [item for make in self._links if (item := await make(info)) is not None]


_REGISTRIES: WeakKeyDictionary[PaperclubBot, AnnouncementButtons] = WeakKeyDictionary()


def of(bot: PaperclubBot) -> AnnouncementButtons:
    """The bot's registry."""
    return _REGISTRIES.setdefault(bot, AnnouncementButtons())
