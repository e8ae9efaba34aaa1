"""The stand-in's rules for events in a voice or stage channel and a voice channel's status, driven by a bare
discord.py bot: each entity type's fields, the status transitions, what a stage event asks, Discord starting
and ending link events itself, and PUT /channels/{id}/voice-status with its permissions and 500 characters."""

from __future__ import annotations

import datetime as dt

import discord
import pytest

from standin import StandIn
from standin.server import DefaultGuild
from standin.state import (
    GUILD_STAGE_VOICE,
    GUILD_VOICE,
    MANAGE_CHANNELS,
    MOVE_MEMBERS,
    MUTE_MEMBERS,
    SET_VOICE_CHANNEL_STATUS,
)
from tests.standin.helpers import BareBot

START = discord.utils.utcnow() + dt.timedelta(days=1)
TIMES = {"start_time": START, "end_time": START + dt.timedelta(hours=1)}
PRIVATE = {"privacy_level": discord.PrivacyLevel.guild_only}


async def _channel(
    bot: BareBot, standin: StandIn, world: DefaultGuild, kind: int, name: str
) -> discord.abc.GuildChannel:
    made = await standin.create_channel(world.guild, name, type=kind)
    guild = bot.get_guild(world.guild.id)
    assert guild is not None
    channel = guild.get_channel(made.id) or await bot.wait_for(
        "guild_channel_create", check=lambda created: created.id == made.id, timeout=10
    )
    assert channel is not None
    return channel


async def test_a_voice_event_moves_only_as_discord_allows(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    room = await _channel(bot, standin, world, GUILD_VOICE, "reading-room")
    guild = room.guild
    event = await guild.create_scheduled_event(name="Hour", channel=room, **TIMES, **PRIVATE)
    assert (event.entity_type, event.channel_id, event.location) == (discord.EntityType.voice, room.id, None)
    with pytest.raises(discord.HTTPException) as refused:  # SCHEDULED -> COMPLETED is not a transition
        await bot.http.edit_scheduled_event(guild.id, event.id, status=3)
    assert refused.value.status == 400
    await bot.http.edit_scheduled_event(guild.id, event.id, status=2)
    await bot.http.edit_scheduled_event(guild.id, event.id, status=3)
    with pytest.raises(discord.HTTPException):  # once completed, never again
        await bot.http.edit_scheduled_event(guild.id, event.id, status=2)
    with pytest.raises(discord.HTTPException) as refused:  # a channel event has no location
        await bot.http.create_guild_scheduled_event(
            guild.id,
            name="Both",
            entity_type=2,
            channel_id=room.id,
            entity_metadata={"location": "Room 1"},
            scheduled_start_time=START.isoformat(),
            scheduled_end_time=(START + dt.timedelta(hours=1)).isoformat(),
            privacy_level=2,
        )
    assert refused.value.status == 400


async def test_a_stage_event_asks_for_three_permissions(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    stage = await _channel(bot, standin, world, GUILD_STAGE_VOICE, "stage")
    with pytest.raises(discord.Forbidden):
        await stage.guild.create_scheduled_event(name="Talk", channel=stage, **TIMES, **PRIVATE)
    await standin.set_overwrite(
        standin.channel(stage.id),
        standin.bot_role(world.guild),
        allow=MANAGE_CHANNELS | MUTE_MEMBERS | MOVE_MEMBERS,
    )
    event = await stage.guild.create_scheduled_event(name="Talk", channel=stage, **TIMES, **PRIVATE)
    assert event.entity_type is discord.EntityType.stage_instance


async def test_discord_starts_and_ends_a_link_event_itself(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    guild = bot.get_guild(world.guild.id)
    assert guild is not None
    start = discord.utils.utcnow() + dt.timedelta(minutes=5)
    await guild.create_scheduled_event(
        name="Linked",
        start_time=start,
        end_time=start + dt.timedelta(hours=1),
        entity_type=discord.EntityType.external,
        location="https://lu.ma/x",
        **PRIVATE,
    )
    room = await _channel(bot, standin, world, GUILD_VOICE, "reading-room")
    await guild.create_scheduled_event(
        name="In a room", channel=room, start_time=start, end_time=start + dt.timedelta(hours=1), **PRIVATE
    )
    standin.wall_clock = lambda: start + dt.timedelta(minutes=1)
    await standin.run_automation()
    assert {e["name"]: e["status"] for e in standin.scheduled_events()} == {"Linked": 2, "In a room": 1}
    standin.wall_clock = lambda: start + dt.timedelta(hours=1)
    await standin.run_automation()
    assert {e["name"]: e["status"] for e in standin.scheduled_events()} == {"Linked": 3, "In a room": 1}


async def test_a_voice_status_needs_its_permissions_and_fits_500(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    room = await _channel(bot, standin, world, GUILD_VOICE, "reading-room")
    with pytest.raises(discord.Forbidden):
        await bot.http.edit_voice_channel_status("Reading TMax", channel_id=room.id)
    await standin.set_overwrite(
        standin.channel(room.id), standin.bot_role(world.guild), allow=SET_VOICE_CHANNEL_STATUS
    )
    with pytest.raises(discord.Forbidden):  # and Manage Channels, since the bot is not connected
        await bot.http.edit_voice_channel_status("Reading TMax", channel_id=room.id)
    await standin.set_overwrite(
        standin.channel(room.id),
        standin.bot_role(world.guild),
        allow=SET_VOICE_CHANNEL_STATUS | MANAGE_CHANNELS,
    )
    await bot.http.edit_voice_channel_status("Reading TMax", channel_id=room.id)
    assert standin.channel(room.id).status == "Reading TMax"
    with pytest.raises(discord.HTTPException) as refused:
        await bot.http.edit_voice_channel_status("x" * 501, channel_id=room.id)
    assert refused.value.status == 400
    standin.take_violations()  # sent over the limit on purpose (the OpenAPI description's maxLength)
    await bot.http.edit_voice_channel_status(None, channel_id=room.id)
    assert standin.channel(room.id).status is None
    with pytest.raises(discord.HTTPException) as refused:  # a text channel has no voice status
        await bot.http.edit_voice_channel_status("x", channel_id=world.general.id)
    assert refused.value.status == 400
