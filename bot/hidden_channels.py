"""Channels Discord hides from the bot (change log of 12 August 2026, "Channel Obfuscation for Users and
Bots"; hikari-py/hikari#2784; Rapptz/discord.py#10473), judged by the flag or View Channel, never the name."""

from __future__ import annotations

import logging
from typing import Final

import discord

CHANNEL_OBFUSCATED: Final = 1 << 17
FIX: Final = "grant the bot **View Channels** there (Edit Channel → Permissions)"

log = logging.getLogger("paperclub.channels")

# Channels whose hiding was logged (once per process while hidden).
_logged: set[int] = set()


def hidden_from_bot(channel: discord.abc.GuildChannel | discord.Thread) -> bool:
    """Whether the bot cannot see ``channel`` (a thread: its parent); False while its own member is unknown."""
    flags = getattr(channel, "flags", None)
    if isinstance(flags, discord.ChannelFlags) and flags.value & CHANNEL_OBFUSCATED:
        return True
    me = channel.guild.me
    if me is None:
        return False
    try:
        return not channel.permissions_for(me).view_channel
    except discord.ClientException:  # a thread whose parent is not cached: nothing to judge by
        return False


def named(channel_id: int) -> str:
    """A channel as the bot names it: the mention (each member sees the name they may) and the id."""
    return f"<#{channel_id}> (channel id {channel_id})"


def cannot_see(channel_id: int) -> str:
    """The sentence saying the bot cannot see the channel, with the fix."""
    return f"I can't see {named(channel_id)}: Discord hides it from the bot; {FIX}"


def usable(channel: discord.abc.GuildChannel | discord.Thread, work: str) -> bool:
    """Whether background ``work`` may post in ``channel`` (when hidden: one log warning per channel)."""
    if not hidden_from_bot(channel):
        _logged.discard(channel.id)
        return True
    if channel.id not in _logged:
        _logged.add(channel.id)
        log.warning(
            "guild %s: channel %s is hidden from the bot (no View Channels there); %s is skipped until the "
            "bot can see it",
            channel.guild.id,
            channel.id,
            work,
        )
    return False
