"""Where a session is held, as an organizer picks it: a voice or stage channel of the server, checked once
(seen by the bot; a stage channel with what Discord asks for its event), or the sign-up link as before."""

from __future__ import annotations

from typing import Final

import discord

from bot.errors import BadInput
from bot.hidden_channels import cannot_see, hidden_from_bot
from bot.permissions import STAGE_EVENT_PERMISSIONS, VOICE_EVENT_PERMISSIONS, missing_permissions
from bot.services.sessions.draft import Place

HeldIn = discord.VoiceChannel | discord.StageChannel  # a `channel` option: Discord offers only these

CHANNEL_HELP: Final = "A voice or stage channel it is held in (default: at the sign-up link)"
GRANT_HOW: Final = (
    "Server Settings → Roles → the bot's role, or the channel's Permissions; see the README, "
    "“Sessions in a voice or stage channel”"
)


def checked_place(guild: discord.Guild | None, channel: HeldIn) -> Place:
    """The channel as a session's place, or BadInput saying why not (another server's, hidden from the bot,
    not a voice or stage channel, a stage without Manage Channels, Mute Members and Move Members)."""
    if guild is None or channel.guild.id != guild.id:
        raise BadInput("Pick a voice or stage channel of this server.")
    if not isinstance(channel, HeldIn):
        raise BadInput(f"<#{channel.id}> is not a voice or stage channel; pick one, or leave `channel` out.")
    if hidden_from_bot(channel):
        raise BadInput(f"{cannot_see(channel.id)}, or pick another `channel`.")
    stage = isinstance(channel, discord.StageChannel)
    need = STAGE_EVENT_PERMISSIONS if stage else VOICE_EVENT_PERMISSIONS
    missing = missing_permissions(channel.permissions_for(guild.me), need)
    if missing:
        kind = "a stage channel's" if stage else "a voice channel's"
        raise BadInput(
            f"Discord asks for {', '.join(missing)} in <#{channel.id}> before I can make {kind} event, and "
            f"the bot does not have them there. Grant them ({GRANT_HOW}), or pick another channel."
        )
    return Place(channel.id, channel.name)
