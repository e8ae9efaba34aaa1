"""What the bot lacks where the club's settings send it, each with its fix."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import discord

from bot.hidden_channels import FIX as SEE_FIX
from bot.hidden_channels import hidden_from_bot, named
from bot.permissions import (
    PERMISSION_NAMES,
    STAGE_EVENT_PERMISSIONS,
    VOICE_STATUS_PERMISSIONS,
    missing_permissions,
)
from bot.services.config.guild import GuildConfig

CHANNEL_FIX: Final = "Edit Channel → Permissions"
SERVER_FIX: Final = "Server Settings → Roles"


VIEW = "view_channel"
SEND = "send_messages"
# "Denying SEND_MESSAGES implicitly denies MENTION_EVERYONE, SEND_TTS_MESSAGES, ATTACH_FILES, and
# EMBED_LINKS" (Permissions, "Implicit Permissions"): not worth listing until Send Messages is granted.
IMPLIED_BY_SEND: Final = frozenset({"embed_links", "attach_files", "mention_everyone"})
ANNOUNCE, SUGGEST = "/setup announcements", "/setup suggestions"

#: What the bot needs in each channel the settings name (a permission flag, and why).
ANNOUNCEMENTS: Final = (
    (VIEW, "to see it"),
    (SEND, "for announcements and reminders"),
    ("embed_links", "an announcement is an embed"),
    ("read_message_history", "a cancellation notice replies to its announcement"),
    ("create_public_threads", "each announcement opens a discussion thread"),
    ("send_messages_in_threads", "recaps are posted in that thread"),
)
SUGGESTIONS_TEXT: Final = (
    (VIEW, "to see it"),
    (SEND, "each suggestion is posted there"),
    ("embed_links", "a suggestion is an embed"),
    ("send_polls", "for `/organize suggestions poll` run there"),
    ("read_message_history", "a poll's result replies to the poll"),
)
SUGGESTIONS_FORUM: Final = (
    (VIEW, "to see it"),
    (SEND, "each suggestion opens a forum post"),
    ("embed_links", "a suggestion is an embed"),
    ("send_messages_in_threads", "updates are posted in each suggestion's post"),
)
SERVER: Final = (("create_events", "each session gets a Discord event"),)


@dataclass(frozen=True)
class Gap:
    """One thing the bot lacks, as the line that says how to fix it."""

    fix: str
    blocking: bool = False  # the bot cannot post in that channel at all


def channel_gaps(channel: discord.abc.GuildChannel, me: discord.Member, command: str) -> list[Gap]:
    """What the bot lacks in ``channel`` for the setting ``command`` sets."""
    if hidden_from_bot(channel):
        return [
            Gap(
                f"the bot cannot see {named(channel.id)}: Discord hides it from the bot; {SEE_FIX}, "
                f"or run `{command}` with another channel",
                blocking=True,
            )
        ]
    forum = isinstance(channel, discord.ForumChannel)
    needs = ANNOUNCEMENTS if command == ANNOUNCE else SUGGESTIONS_FORUM if forum else SUGGESTIONS_TEXT
    have = channel.permissions_for(me)
    lacking = [(flag, why) for flag, why in needs if not getattr(have, flag)]
    flags = {flag for flag, _ in lacking}
    if VIEW in flags:
        lacking = [need for need in lacking if need[0] == VIEW]
    elif SEND in flags:
        lacking = [need for need in lacking if need[0] not in IMPLIED_BY_SEND]
    return [
        Gap(
            f"grant the bot **{PERMISSION_NAMES[flag]}** in {channel.mention} ({why}; {CHANNEL_FIX})",
            blocking=flag in (VIEW, SEND),
        )
        for flag, why in lacking
    ]


def refusal_for(guild: discord.Guild, channel: discord.abc.GuildChannel, command: str) -> str | None:
    """The reply refusing to save a channel the bot cannot post in, or None."""
    if guild.me is None:
        return None  # cannot judge: saved, and /setup show checks again
    if hidden_from_bot(channel):
        return (
            f"Not saved: I can't see {named(channel.id)}. Discord hides it from the bot, so "
            "nothing could be posted there.\n"
            f"• {_capitalized(SEE_FIX)}, then run `{command}` again; or pick another channel."
        )
    blocking = [gap for gap in channel_gaps(channel, guild.me, command) if gap.blocking]
    if not blocking:
        return None
    lines = [f"Not saved: I can't post in {channel.mention}."]
    lines += [f"• {_capitalized(gap.fix)}" for gap in blocking]
    lines.append(f"Then run `{command}` again.")
    return "\n".join(lines)


def _capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def guild_gaps(guild: discord.Guild, config: GuildConfig) -> list[Gap]:
    """Everything the bot lacks for the club's settings in ``guild``: the server, then each channel."""
    me = guild.me
    if me is None:
        return [Gap("I could not check my permissions (my member is not known yet); try again shortly")]
    server = me.guild_permissions
    gaps = [
        Gap(f"grant the bot **{PERMISSION_NAMES[flag]}** in the server ({why}; {SERVER_FIX})")
        for flag, why in SERVER
        if not getattr(server, flag)
    ]
    for channel_id, command in (
        (config.announcements_channel_id, ANNOUNCE),
        (config.suggestions_channel_id, SUGGEST),
    ):
        channel = guild.get_channel(channel_id) if channel_id is not None else None
        if channel_id is not None and channel is None:
            gaps.append(Gap(f"<#{channel_id}> is gone: run `{command}` with another channel", blocking=True))
        elif channel is not None:
            gaps += channel_gaps(channel, me, command)
            role = guild.get_role(config.ping_role_id) if config.ping_role_id else None
            if command != ANNOUNCE or hidden_from_bot(channel) or role is None or role.mentionable:
                continue
            if not channel.permissions_for(me).mention_everyone:  # reminders ping it in that channel
                gaps.append(
                    Gap(
                        f"make {role.mention} mentionable (Server Settings → Roles → "
                        f"{discord.utils.escape_markdown(role.name)} → Allow anyone to @mention this role), "
                        "or reminders cannot ping it"
                    )
                )
    return gaps


def held_in_gaps(guild: discord.Guild, channel_ids: Sequence[int]) -> list[Gap]:
    """What the bot lacks in the voice and stage channels sessions are held in."""
    me, gaps = guild.me, []
    if me is None:
        return []  # guild_gaps says so
    for channel_id in channel_ids:
        channel = guild.get_channel(channel_id)
        if not isinstance(channel, discord.VoiceChannel | discord.StageChannel) or hidden_from_bot(channel):
            where = f"{named(channel_id)}, which the bot cannot see"
            gaps.append(Gap(f"a session is held in {where}: `/organize session edit channel:`"))
            continue
        if isinstance(channel, discord.StageChannel):
            needs, why = STAGE_EVENT_PERMISSIONS, "its sessions' stage events"
        else:
            needs, why = (
                VOICE_STATUS_PERMISSIONS,
                "to show the session as the channel's status during the hour",
            )
        if missing := missing_permissions(channel.permissions_for(me), needs):
            fix = f"grant the bot **{', '.join(missing)}** in {channel.mention} ({why}; {CHANNEL_FIX})"
            gaps.append(Gap(fix))
    return gaps


def report(gaps: Sequence[Gap]) -> str:
    """The lines shown under the settings: what to fix, or that nothing is missing."""
    if not gaps:
        return "✅ The bot has every permission the club's settings need."
    return "\n".join(
        ["⚠️ **The bot is missing permissions:**", *(f"• {_capitalized(gap.fix)}" for gap in gaps)]
    )
