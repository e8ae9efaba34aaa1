"""Who may run what, checked in code on every call (Discord's default permissions can be changed
by server admins, so they are only a hint)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import discord
from discord import app_commands

from bot.errors import NotAllowed
from bot.services.setup.config import GuildConfig, get_config

if TYPE_CHECKING:
    from bot.client import Interaction

T = TypeVar("T")


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
    perms = member.guild_permissions
    return perms.administrator or perms.manage_guild


IN_SERVER_ONLY = "This command works in a server, not in DMs."


def require_guild_id(interaction: Interaction, refusal: str = IN_SERVER_ONLY) -> int:
    """The interaction's guild id; NotAllowed with ``refusal`` in DMs."""
    if interaction.guild_id is None:
        raise NotAllowed(refusal)
    return interaction.guild_id


async def guild_config_for(interaction: Interaction) -> GuildConfig:
    guild_id = require_guild_id(interaction)
    async with interaction.client.session_factory() as session:
        return await get_config(session, guild_id)


async def ensure_organizer(interaction: Interaction) -> GuildConfig:
    """Raise NotAllowed unless the user is an organizer; returns the guild's settings."""
    config = await guild_config_for(interaction)
    if not isinstance(interaction.user, discord.Member) or not member_is_organizer(interaction.user, config):
        raise NotAllowed("Only organizers can do this (Manage Events or the organizer role).")
    return config


def organizer_only() -> Callable[[T], T]:
    """app_commands check: organizers only (Manage Events or the organizer role)."""

    async def predicate(interaction: Interaction) -> bool:
        try:
            await ensure_organizer(interaction)
        except NotAllowed as exc:
            raise RefusedCheck(exc) from exc
        return True

    return app_commands.check(predicate)


def manager_only() -> Callable[[T], T]:
    """app_commands check: Manage Server only."""

    async def predicate(interaction: Interaction) -> bool:
        try:
            require_guild_id(interaction)
            if not isinstance(interaction.user, discord.Member) or not member_is_manager(interaction.user):
                raise NotAllowed("Only members with Manage Server can change the club's settings.")
        except NotAllowed as exc:
            raise RefusedCheck(exc) from exc
        return True

    return app_commands.check(predicate)
