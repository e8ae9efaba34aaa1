"""Channels the bot cannot view, as Discord sends them since 16 November 2026 (change log of 12 August 2026,
"Channel Obfuscation for Users and Bots"): obfuscated over the gateway (GUILD_CREATE, CHANNEL_CREATE and
CHANNEL_UPDATE, also when a permission change hides or reveals one), left out of GET /guilds/{id}/channels,
whole in interactions. A bare discord.py bot, no paperclub code."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

import discord
import pytest

from bot.demo.running import connected
from standin import StandIn
from standin.interactions import resolve_value
from standin.server import DefaultGuild
from standin.state import (
    CHANNEL_OBFUSCATED,
    GUILD_CATEGORY,
    HIDDEN_NAME,
    SEND_MESSAGES,
    VIEW_CHANNEL,
    Channel,
)
from tests.standin.helpers import BareBot


def _frames(standin: StandIn, event: str, channel: Channel) -> list[dict[str, Any]]:
    """The payloads of ``event`` about ``channel`` the gateway sent, oldest first."""
    return [
        frame["d"]
        for session in standin.gateway.sessions.values()
        for frame in session.buffer
        if frame["t"] == event and frame["d"].get("id") == str(channel.id)
    ]


def _guild_create(standin: StandIn) -> dict[str, Any]:
    frames = [f["d"] for s in standin.gateway.sessions.values() for f in s.buffer if f["t"] == "GUILD_CREATE"]
    return frames[-1]


async def _updated(bot: BareBot, channel: Channel, change: Awaitable[None]) -> discord.abc.GuildChannel:
    """Make ``change`` and wait until discord.py has applied the CHANNEL_UPDATE about ``channel``."""
    waiter = asyncio.ensure_future(
        bot.wait_for("guild_channel_update", check=lambda _, after: after.id == channel.id, timeout=5)
    )
    await change
    _, after = await waiter
    return after


async def _hide(standin: StandIn, world: DefaultGuild, name: str) -> Channel:
    channel = await standin.create_channel(world.guild, name, topic="Organizers only")
    await standin.set_overwrite(channel, world.guild.everyone, deny=VIEW_CHANNEL)
    return channel


def _assert_obfuscated(data: dict[str, Any], channel: Channel, guild_id: int) -> None:
    assert data["name"] == HIDDEN_NAME
    assert data["flags"] & CHANNEL_OBFUSCATED == 1 << 17
    assert data["topic"] is None
    assert data["last_message_id"] is None
    assert data["permission_overwrites"] == [
        {"id": str(guild_id), "type": 0, "allow": "0", "deny": str(VIEW_CHANNEL)}
    ]
    # "id, type, position, and parent_id will not be obfuscated"
    assert (data["id"], data["type"], data["position"]) == (str(channel.id), channel.type, channel.position)
    assert data["parent_id"] == (str(channel.parent_id) if channel.parent_id else None)


async def test_a_channel_the_bot_cannot_view_arrives_obfuscated(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    channel = await standin.create_channel(world.guild, "organizers", topic="Organizers only")
    assert _frames(standin, "CHANNEL_CREATE", channel)[-1]["name"] == "organizers"
    cached = await _updated(
        bot, channel, standin.set_overwrite(channel, world.guild.everyone, deny=VIEW_CHANNEL)
    )
    _assert_obfuscated(_frames(standin, "CHANNEL_UPDATE", channel)[-1], channel, world.guild.id)
    # discord.py 2.7.1 keeps the placeholder name, drops a text channel's flags, and reckons the bot's
    # permissions from the one overwrite it was given
    assert isinstance(cached, discord.TextChannel)
    assert cached.name == HIDDEN_NAME
    assert cached.topic is None
    assert not cached.permissions_for(cached.guild.me).view_channel
    # members still see it whole: the world is unchanged, only the bot's view is obfuscated
    assert world.guild.channels[channel.id].name == "organizers"

    # the bot's role let in: the whole channel again
    revealed = await _updated(
        bot, channel, standin.set_overwrite(channel, world.bot_role, allow=VIEW_CHANNEL | SEND_MESSAGES)
    )
    assert revealed.name == "organizers"
    assert not _frames(standin, "CHANNEL_UPDATE", channel)[-1]["flags"] & CHANNEL_OBFUSCATED


async def test_guild_create_and_a_new_hidden_channel(standin: StandIn, world: DefaultGuild) -> None:
    hidden = await _hide(standin, world, "plans")
    secret = await standin.create_channel(world.guild, "secret-forum", type=15, tags=["a"])
    await standin.set_overwrite(secret, world.guild.everyone, deny=VIEW_CHANNEL)
    async with connected(BareBot(), standin) as late:
        payload = _guild_create(standin)
        by_id = {c["id"]: c for c in payload["channels"]}
        _assert_obfuscated(by_id[str(hidden.id)], hidden, world.guild.id)
        assert by_id[str(secret.id)]["available_tags"] == []
        assert by_id[str(world.announcements.id)]["name"] == "announcements"
        guild = late.get_guild(world.guild.id)
        assert guild is not None
        forum = guild.get_channel(secret.id)
        assert isinstance(forum, discord.ForumChannel)
        assert forum.flags.value & CHANNEL_OBFUSCATED  # a forum keeps its flags in discord.py 2.7.1

    # a channel made where the bot cannot see it is created obfuscated
    await standin.set_role_permissions(world.guild.everyone, world.guild.everyone.permissions & ~VIEW_CHANNEL)
    fresh = await standin.create_channel(world.guild, "fresh")
    _assert_obfuscated(_frames(standin, "CHANNEL_CREATE", fresh)[-1], fresh, world.guild.id)


async def test_a_role_change_hides_and_reveals_every_channel_it_touches(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    everyone = world.guild.everyone
    before = everyone.permissions
    hidden = await _updated(
        bot, world.general, standin.set_role_permissions(everyone, before & ~VIEW_CHANNEL)
    )
    assert hidden.name == HIDDEN_NAME
    guild = bot.get_guild(world.guild.id)
    assert guild is not None
    # one CHANNEL_UPDATE for each channel the change hid, all applied in order
    assert {c.name for c in guild.channels} == {HIDDEN_NAME}
    shown = await _updated(bot, world.general, standin.set_role_permissions(everyone, before))
    assert shown.name == "general"
    assert {c.name for c in guild.channels} == {"announcements", "suggestions", "general"}
    # giving the bot's role View Channel reveals them too
    await standin.set_role_permissions(everyone, before & ~VIEW_CHANNEL)
    shown = await _updated(
        bot,
        world.general,
        standin.set_role_permissions(world.bot_role, world.bot_role.permissions | VIEW_CHANNEL),
    )
    assert shown.name == "general"


async def test_a_category_is_viewable_while_a_channel_in_it_is(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    category = await standin.create_channel(world.guild, "Organizers", type=GUILD_CATEGORY)
    await standin.set_overwrite(category, world.guild.everyone, deny=VIEW_CHANNEL)
    _assert_obfuscated(_frames(standin, "CHANNEL_UPDATE", category)[-1], category, world.guild.id)
    # a channel the bot can view put in it: the category is viewable ("Channel categories are viewable if
    # any of their children channels are viewable")
    inside = await standin.create_channel(world.guild, "planning", parent=category)
    assert _frames(standin, "CHANNEL_UPDATE", category)[-1]["name"] == "Organizers"
    # that channel hidden: both obfuscated, each with its own CHANNEL_UPDATE
    cached = await _updated(
        bot, category, standin.set_overwrite(inside, world.guild.everyone, deny=VIEW_CHANNEL)
    )
    assert cached.name == HIDDEN_NAME
    _assert_obfuscated(_frames(standin, "CHANNEL_UPDATE", inside)[-1], inside, world.guild.id)
    assert _frames(standin, "CHANNEL_UPDATE", inside)[-1]["parent_id"] == str(category.id)
    # the bot's role let into the channel: both whole again
    cached = await _updated(bot, category, standin.set_overwrite(inside, world.bot_role, allow=VIEW_CHANNEL))
    assert cached.name == "Organizers"


async def test_rest_leaves_out_what_the_bot_cannot_view(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    hidden = await _hide(standin, world, "plans")
    guild = bot.get_guild(world.guild.id)
    assert guild is not None
    listed = {c.id for c in await guild.fetch_channels()}
    assert hidden.id not in listed
    assert {world.announcements.id, world.suggestions.id, world.general.id} <= listed
    with pytest.raises(discord.Forbidden) as refused:
        await bot.fetch_channel(hidden.id)
    assert refused.value.code == 50001  # Missing Access
    cached = guild.get_channel(hidden.id)
    assert isinstance(cached, discord.TextChannel)
    with pytest.raises(discord.Forbidden) as refused:
        await cached.send("hello")
    assert refused.value.code == 50001
    assert standin.messages_in(hidden) == []
    await standin.set_overwrite(hidden, world.bot_role, allow=VIEW_CHANNEL)
    assert hidden.id in {c.id for c in await guild.fetch_channels()}


async def test_interactions_resolve_a_hidden_channel_whole(standin: StandIn, world: DefaultGuild) -> None:
    hidden = await _hide(standin, world, "plans")
    resolved: dict[str, Any] = {}
    resolve_value(standin.state, world.guild, 7, hidden, resolved, world.general)
    data = resolved["channels"][str(hidden.id)]
    assert data["name"] == "plans"
    assert data["topic"] == "Organizers only"
    assert not data["flags"] & CHANNEL_OBFUSCATED
    assert not int(data["app_permissions"]) & VIEW_CHANNEL  # the bot's own permissions say it
