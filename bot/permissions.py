"""Permissions: what the bot needs (``REQUIRED_PERMISSIONS``), and who may do what, checked in code on every
call: the organizer gate (:func:`ensure_organizer`) and the Manage Server gate (:func:`ensure_manager`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Final, TypeVar

import discord
from discord import app_commands

from bot.errors import NotAllowed
from bot.services.config.guild import GuildConfig, get_config

if TYPE_CHECKING:
    from bot.client import Interaction

T = TypeVar("T")

# -- what the bot needs -----------------------------------------------------------------------------------
# The bot's permission set, defined once. The README's invite URL and integer come from it (a test checks
# they agree), `paperclub invite-url` prints it, the test harness installs the bot in the stand-in with
# exactly these, and /setup checks each configured channel against the part that channel's use needs.
# Flags: https://discord.com/developers/docs/topics/permissions#permissions-bitwise-permission-flags
REQUIRED_PERMISSIONS: Final = discord.Permissions(
    # See the channels it posts in: announcements, suggestions, reminder channels.
    view_channel=True,
    # Post announcements, reminders, suggestion cards and cancellation notices; open a forum post per
    # suggestion ("Start Thread in Forum or Media Channel": the current user must have SEND_MESSAGES).
    send_messages=True,
    # The recap in a session's thread, notes in a suggestion's forum post, adding the presenter to the
    # thread ("Add Thread Member: requires the ability to send messages in the thread").
    send_messages_in_threads=True,
    # The discussion thread under each announcement ("Start Thread from Message").
    create_public_threads=True,
    # Public answers that are embeds (/reading show public, the paged lists), which follow the bot's own
    # permissions once deferred (the cards themselves are layouts).
    embed_links=True,
    # .ics calendar files and reading-list exports go out as interaction follow-ups, which follow the bot
    # user's permissions (change log, 1 November 2023: "Fix Message Edit Interaction Response Permissions").
    attach_files=True,
    # Replies: a cancellation notice replies to its announcement, a poll's result to the poll ("Create
    # Message: when creating a message as a reply ..., the current user must have READ_MESSAGE_HISTORY").
    read_message_history=True,
    # Each session's Discord scheduled event. Since 23 February 2026 a bot needs CREATE_EVENTS (1 << 44) to
    # create one, MANAGE_EVENTS alone no longer does (change log, 24 November 2025: "Permission Changes Going
    # into Effect February 2026"); CREATE_EVENTS also lets it edit and cancel the events it created ("Guild
    # Scheduled Event Permissions Requirements", entity_type EXTERNAL). The bot only ever touches events it
    # created, so it does not ask for MANAGE_EVENTS (editing everyone's events).
    create_events=True,
    # `/organize suggestions poll` posts a native poll.
    send_polls=True,
)
# Not asked for, on purpose: Manage Events (see above); Pin Messages (1 << 51, needed to pin since
# 23 February 2026: the bot pins nothing); Bypass Slowmode (1 << 52: bots are not slowed); Mention Everyone
# (reminders ping only the ping role, which the server makes mentionable); Manage Messages / Threads / Roles.

# Discord's names for the flags, as the server settings show them.
PERMISSION_NAMES: Final[dict[str, str]] = {
    "view_channel": "View Channels",
    "read_messages": "View Channels",  # discord.py's other name for view_channel (what iteration yields)
    "send_messages": "Send Messages",
    "send_messages_in_threads": "Send Messages in Threads",
    "create_public_threads": "Create Public Threads",
    "embed_links": "Embed Links",
    "attach_files": "Attach Files",
    "read_message_history": "Read Message History",
    "create_events": "Create Events",
    "manage_events": "Manage Events",
    "send_polls": "Send Polls",
    "mention_everyone": "Mention @everyone, @here, and All Roles",
    "pin_messages": "Pin Messages",
    "manage_channels": "Manage Channels",
    "mute_members": "Mute Members",
    "move_members": "Move Members",
    "connect": "Connect",
    "set_voice_channel_status": "Set Voice Channel Status",
}

# -- asked of a server only where it holds sessions in a channel (the invite stays as above) ---------------
# A session in a stage channel: its event is a STAGE_INSTANCE event, which asks for "MANAGE_CHANNELS,
# MUTE_MEMBERS, MOVE_MEMBERS" in that channel (Guild Scheduled Event, "Permissions for events with
# entity_type STAGE_INSTANCE"); a VOICE event asks "VIEW_CHANNEL, CONNECT" (@everyone's by default).
STAGE_EVENT_PERMISSIONS: Final = discord.Permissions(
    manage_channels=True, mute_members=True, move_members=True
)
VOICE_EVENT_PERMISSIONS: Final = discord.Permissions(view_channel=True, connect=True)
# The voice channel's status during the session (PUT /channels/{channel.id}/voice-status): Set Voice Channel
# Status (1 << 48; discord/discord-api-docs#6400, #8176), and Manage Channels since the bot is not connected.
VOICE_STATUS_PERMISSIONS: Final = discord.Permissions(set_voice_channel_status=True, manage_channels=True)

INVITE_SCOPES: Final = ("bot", "applications.commands")


def permission_names(permissions: discord.Permissions) -> list[str]:
    """Discord's names of the flags set in ``permissions``, in bit order."""
    return [PERMISSION_NAMES.get(flag, flag.replace("_", " ").title()) for flag, on in permissions if on]


def missing_permissions(have: discord.Permissions, need: discord.Permissions) -> list[str]:
    """Discord's names of the flags in ``need`` that ``have`` lacks."""
    return permission_names(discord.Permissions(need.value & ~have.value))


def invite_url(client_id: int | str) -> str:
    """The OAuth2 URL that adds the bot to a server with exactly :data:`REQUIRED_PERMISSIONS`."""
    return discord.utils.oauth_url(client_id, permissions=REQUIRED_PERMISSIONS, scopes=INVITE_SCOPES)


# -- who may run what ---------------------------------------------------------------------------------------


class RefusedCheck(app_commands.CheckFailure):
    """A check that failed with a domain error; discord.py only routes AppCommandErrors to the tree's
    error handler, so checks wrap the NotAllowed (kept as __cause__, which the handler unwraps)."""

    def __init__(self, error: NotAllowed) -> None:
        super().__init__(error.user_message)
        self.error = error


def member_is_organizer(member: discord.Member, config: GuildConfig) -> bool:
    """Manage Events, Manage Server, Administrator, or the configured organizer role."""
    perms = member.guild_permissions
    if perms.administrator or perms.manage_guild or perms.manage_events:
        return True
    return config.organizer_role_id is not None and any(
        r.id == config.organizer_role_id for r in member.roles
    )


def member_is_manager(member: discord.Member) -> bool:
    """Whether the member administers or manages the server."""
    perms = member.guild_permissions
    return perms.administrator or perms.manage_guild


IN_SERVER_ONLY = "This command works in a server, not in DMs."


def require_guild_id(interaction: Interaction, refusal: str = IN_SERVER_ONLY) -> int:
    """The interaction's guild id; NotAllowed with ``refusal`` in DMs."""
    if interaction.guild_id is None:
        raise NotAllowed(refusal)
    return interaction.guild_id


async def guild_config_for(interaction: Interaction) -> GuildConfig:
    """The settings of the interaction's guild (NotAllowed in DMs)."""
    guild_id = require_guild_id(interaction)
    async with interaction.client.session_factory() as session:
        return await get_config(session, guild_id)


NOT_ORGANIZER = "Only organizers can do this (Manage Events or the organizer role)."
NOT_MANAGER = "Only members with Manage Server can change the club's settings."


async def ensure_organizer(interaction: Interaction) -> GuildConfig:
    """The organizer gate: NotAllowed unless the user is an organizer; returns the guild's settings."""
    config = await guild_config_for(interaction)
    if not isinstance(interaction.user, discord.Member) or not member_is_organizer(interaction.user, config):
        raise NotAllowed(NOT_ORGANIZER)
    return config


async def organizer_begin(interaction: Interaction) -> tuple[GuildConfig, int, datetime]:
    """The organizer gate, then the ephemeral answer deferred: (the guild's settings, its id, now)."""
    config = await ensure_organizer(interaction)
    guild_id = require_guild_id(interaction)
    await interaction.response.defer(ephemeral=True, thinking=True)
    return config, guild_id, interaction.client.clock.now()


def ensure_manager(interaction: Interaction) -> int:
    """The Manage Server gate (the club's settings): NotAllowed unless the user has it; the guild's id."""
    guild_id = require_guild_id(interaction)
    if not isinstance(interaction.user, discord.Member) or not member_is_manager(interaction.user):
        raise NotAllowed(NOT_MANAGER)
    return guild_id


def manager_only() -> Callable[[T], T]:
    """app_commands check: :func:`ensure_manager` (the /setup commands)."""

    async def predicate(interaction: Interaction) -> bool:
        try:
            ensure_manager(interaction)
        except NotAllowed as exc:
            raise RefusedCheck(exc) from exc
        return True

    return app_commands.check(predicate)
