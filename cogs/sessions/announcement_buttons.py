"""The buttons other features add to a session's card (a coming week's I'll present, the site's Session
page), registered per bot in cog_load, so sessions import none of them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from weakref import WeakKeyDictionary

import discord

from bot.client import PaperclubBot
from bot.services.sessions.info import SessionInfo

Item = discord.ui.Item[Any]


@dataclass(eq=False)
class AnnouncementButtons:
    """What the features registered on one bot, in order: a button for coming sessions, or a link kept on every
    session (each None: not for this one)."""

    coming: list[Callable[[SessionInfo], Item | None]] = field(default_factory=list)
    links: list[Callable[[SessionInfo], Awaitable[Item | None]]] = field(default_factory=list)


_REGISTRIES: WeakKeyDictionary[PaperclubBot, AnnouncementButtons] = WeakKeyDictionary()


def of(bot: PaperclubBot) -> AnnouncementButtons:
    """The bot's registry."""
    return _REGISTRIES.setdefault(bot, AnnouncementButtons())
