"""What the bot needs (``REQUIRED_PERMISSIONS``); the organizer and Manage Server gates, in code."""

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

# The invite's permissions, defined once (README, `paperclub invite-url`, the harness and /setup use them).
# https://discord.com/developers/docs/topics/permissions#permissions-bitwise-permission-flags
REQUIRED_PERMISSIONS: Final = discord.Permissions(
    view_channel=True,
    send_messages=True,  # "Start Thread in Forum or Media Channel" needs it too
    send_messages_in_threads=True,  # "Add Thread Member" needs it
    create_public_threads=True,  # "Start Thread from Message"
    embed_links=True,  # deferred public embeds follow the bot's permissions
    attach_files=True,  # follow-ups too (change log, 1 November 2023)
    read_message_history=True,  # "Create Message" as a reply
    # Events since 23 February 2026 (change log, 24 November 2025); the bot touches only its own events.
    create_events=True,
    send_polls=True,
)
# Not asked for: Manage Events, Pin Messages, Bypass Slowmode, Mention Everyone, Manage Messages/Threads/Roles.

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

# Asked only in a session's channel (Guild Scheduled Event, "Permissions for events with entity_type ...").
STAGE_EVENT_PERMISSIONS: Final = discord.Permissions(
    manage_channels=True, mute_members=True, move_members=True
)
VOICE_EVENT_PERMISSIONS: Final = discord.Permissions(view_channel=True, connect=True)
# PUT /channels/{channel.id}/voice-status (discord/discord-api-docs#6400, #8176): the bot is not connected.
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


class RefusedCheck(app_commands.CheckFailure):
    """A NotAllowed wrapped as an AppCommandError, so discord.py routes it to the tree's handler."""

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
