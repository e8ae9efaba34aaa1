"""The stand-in holds a bot to Discord's current permission rules (a bare discord.py bot, no paperclub code):
the February 2026 splits (Create Events, Pin Messages), replies needing Read Message History, adding a
thread member needing Send Messages in Threads, and embeds needing Embed Links."""

from __future__ import annotations

import datetime as dt

import discord
import pytest

from standin import StandIn
from standin.server import DefaultGuild
from standin.state import (
    CREATE_EVENTS,
    EMBED_LINKS,
    MANAGE_EVENTS,
    MANAGE_MESSAGES,
    PIN_MESSAGES,
    READ_MESSAGE_HISTORY,
    SEND_MESSAGES_IN_THREADS,
)
from tests.standin.helpers import BareBot

EXTERNAL = {
    "entity_type": discord.EntityType.external,
    "location": "Room 1",
    "privacy_level": discord.PrivacyLevel.guild_only,
}


def _guild(bot: BareBot, world: DefaultGuild) -> discord.Guild:
    guild = bot.get_guild(world.guild.id)
    assert guild is not None
    return guild


def _text(bot: BareBot, channel_id: int) -> discord.TextChannel:
    channel = bot.get_channel(channel_id)
    assert isinstance(channel, discord.TextChannel)
    return channel


async def _create(guild: discord.Guild, name: str = "Reading") -> discord.ScheduledEvent:
    start = discord.utils.utcnow() + dt.timedelta(days=1)
    return await guild.create_scheduled_event(
        name=name, start_time=start, end_time=start + dt.timedelta(hours=1), **EXTERNAL
    )


async def _everyone_cannot(standin: StandIn, world: DefaultGuild, permission: int) -> None:
    """Take ``permission`` from @everyone too, so only the bot's own role counts."""
    everyone = world.guild.everyone
    await standin.set_role_permissions(everyone, everyone.permissions & ~permission)


async def test_manage_events_alone_no_longer_creates_events(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    guild = _guild(bot, world)
    await standin.set_bot_permissions(MANAGE_EVENTS)
    with pytest.raises(discord.Forbidden) as refused:
        await _create(guild)
    assert refused.value.code == 50013
    await standin.set_bot_permissions(CREATE_EVENTS)
    event = await _create(guild)
    assert [e["name"] for e in standin.scheduled_events()] == ["Reading"]
    # Create Events is enough to edit and delete the events the bot created itself
    edited = await event.edit(name="Reading (moved)")
    assert edited.name == "Reading (moved)"
    await edited.delete()
    assert standin.scheduled_events() == []


async def test_someone_elses_event_needs_manage_events(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    guild = _guild(bot, world)
    event = await _create(guild, "Made by the owner")
    stored = standin.scheduled_events()[0]
    stored["creator_id"] = str(world.guild.owner_id)  # as if a member had made it by hand
    await standin.set_bot_permissions(CREATE_EVENTS)
    with pytest.raises(discord.Forbidden):
        await event.edit(name="Not mine")
    with pytest.raises(discord.Forbidden):
        await event.delete()
    await standin.set_bot_permissions(MANAGE_EVENTS)
    edited = await event.edit(name="Mine to manage")
    assert edited.name == "Mine to manage"


async def test_pinning_needs_pin_messages_not_manage_messages(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    sent = await _text(bot, world.general.id).send("pin me")
    await standin.set_bot_permissions(MANAGE_MESSAGES)
    with pytest.raises(discord.Forbidden):
        await sent.pin()
    await standin.set_bot_permissions(PIN_MESSAGES)
    await sent.pin()
    assert standin.message(sent.id).payload["pinned"] is True


async def test_a_reply_needs_read_message_history(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    channel = _text(bot, world.general.id)
    first = await channel.send("the announcement")
    await _everyone_cannot(standin, world, READ_MESSAGE_HISTORY)
    await standin.set_bot_permissions(0)
    await channel.send("not a reply: fine")
    with pytest.raises(discord.Forbidden):
        await channel.send("a reply", reference=first)
    await standin.set_bot_permissions(READ_MESSAGE_HISTORY)
    await channel.send("a reply", reference=first)
    assert standin.messages_in(world.general)[-1].content == "a reply"


async def test_adding_a_thread_member_needs_send_messages_in_threads(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    message = await _text(bot, world.general.id).send("discuss")
    thread = await message.create_thread(name="Discussion")
    await _everyone_cannot(standin, world, SEND_MESSAGES_IN_THREADS)
    await standin.set_bot_permissions(0)
    with pytest.raises(discord.Forbidden):
        await thread.add_user(discord.Object(id=world.members[0].id))
    await standin.set_bot_permissions(SEND_MESSAGES_IN_THREADS)
    await thread.add_user(discord.Object(id=world.members[0].id))
    assert world.members[0].id in standin.channel(thread.id).thread_members


async def test_embeds_need_embed_links(bot: BareBot, standin: StandIn, world: DefaultGuild) -> None:
    channel = _text(bot, world.general.id)
    await standin.set_overwrite(world.general, world.bot_role, deny=EMBED_LINKS)
    with pytest.raises(discord.Forbidden):
        await channel.send(embed=discord.Embed(title="only an embed"))
    await channel.send("text and an embed", embed=discord.Embed(title="dropped"))
    kept = standin.messages_in(world.general)[-1]
    assert kept.content == "text and an embed"
    assert kept.embeds == []
    sent = standin.requests_to("POST", rf"/channels/{world.general.id}/messages$")[-1]
    assert sent.json["embeds"][0]["title"] == "dropped"  # the log keeps what the bot sent
