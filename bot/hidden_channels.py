"""Channels Discord hides from the bot, and how the bot names them to people.

Since 16 November 2026 (Discord's change log of 12 August 2026, "Channel Obfuscation for Users and Bots";
the date per hikari-py/hikari#2784) a channel the bot lacks View Channel on still arrives over the gateway,
but obfuscated: named ``___hidden___``, flagged ``CHANNEL_OBFUSCATED`` (``1 << 17``), with one overwrite
denying View Channel to @everyone and its other fields nulled; ``GET /guilds/{guild.id}/channels`` leaves it
out. Interactions are "built through a separate path that does not apply obfuscation": a channel option's
resolved data names the channel whole. discord.py 2.7.1 does not know the flag (Rapptz/discord.py#10473 is
open) and keeps ``flags`` only on forums and threads; a channel option annotated ``discord.TextChannel``
resolves to the cached, obfuscated copy. So the bot judges a channel by its own view: the flag where
discord.py kept it, else View Channel reckoned from the roles and the one overwrite the gateway gave. The
name is never trusted ("Do not rely on inspecting name", channel docs): a real channel may be called so.
"""

from __future__ import annotations

import logging
from typing import Final

import discord

CHANNEL_OBFUSCATED: Final = 1 << 17
FIX: Final = "grant the bot **View Channels** there (Edit Channel → Permissions)"

log = logging.getLogger("paperclub.channels")

# Channels whose hiding was logged, so background work says it once per process while a channel stays
# hidden (forgotten when the bot can see it again). Ids only: a few per server at most.
_logged: set[int] = set()


def hidden_from_bot(channel: discord.abc.GuildChannel | discord.Thread) -> bool:
    """Whether the bot cannot see ``channel`` (a thread: its parent). Not judged (False) while the bot's
    own member is not known yet."""
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
    """A channel as the bot names it: the mention (a member's client shows the name they may see) and the
    id, which is all the bot knows of a channel hidden from it."""
    return f"<#{channel_id}> (channel id {channel_id})"


def cannot_see(channel_id: int) -> str:
    """The sentence saying the bot cannot see the channel, with the fix."""
    return f"I can't see {named(channel_id)}: Discord hides it from the bot; {FIX}"


def usable(channel: discord.abc.GuildChannel | discord.Thread, work: str) -> bool:
    """Whether background ``work`` may post in ``channel``. When the bot cannot see it, one log warning
    per channel (until the bot can see it again) instead of a refused request each time."""
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
