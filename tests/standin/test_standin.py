"""The Discord stand-in against a bare discord.py bot (no paperclub code)."""

from __future__ import annotations

import asyncio
import datetime as dt

import discord
import pytest
from discord import app_commands

from standin import StandIn
from standin.server import DefaultGuild
from tests.standin.helpers import BareBot

pytestmark = pytest.mark.asyncio


async def wait_errors(bot: BareBot) -> list[BaseException]:
    await asyncio.wait_for(bot.errored.wait(), 5)  # the bot's error handler runs in its own task
    return bot.errors


async def test_login_connect_populates_cache(bot: BareBot, standin: StandIn, world: DefaultGuild) -> None:
    guild = bot.get_guild(world.guild.id)
    assert guild is not None
    assert guild.name == "Paper Club"
    assert {c.name for c in guild.channels} >= {"announcements", "suggestions", "general"}
    forum = guild.get_channel(world.suggestions.id)
    assert isinstance(forum, discord.ForumChannel)
    assert [t.name for t in forum.available_tags][0] == "environment generation"
    organizer = guild.get_member(world.organizer.id)
    assert organizer is not None
    assert organizer.guild_permissions.manage_events
    assert guild.me.guild_permissions.create_events
    assert len(guild.members) == len(world.guild.members)
    names = {c["name"] for c in standin.commands()}
    assert names >= {"setup", "echo", "slow", "form", "panel", "topic", "bigembed", "late", "twice"}


async def test_sync_rejects_long_description(bot: BareBot, standin: StandIn) -> None:
    bot.tree.add_command(app_commands.Command(name="wordy", description="x" * 101, callback=_noop))
    with pytest.raises(discord.HTTPException) as info:
        await bot.tree.sync()
    assert info.value.status == 400
    assert info.value.code == 50035
    assert "description" in info.value.text
    # Discord's OpenAPI description caught it first (the hand-written limit is the second line).
    [violation] = standin.take_violations()
    assert violation.operation_id == "bulk_set_application_commands"
    assert violation.pointer.endswith("/description")


async def _noop(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("noop")


async def test_subcommand_and_options(bot: BareBot, standin: StandIn, world: DefaultGuild) -> None:
    reply = await (await standin.invoke("setup show", {"verbose": True}, member=world.admin)).response()
    assert reply.type == 4
    assert reply.ephemeral
    assert reply.content == "settings verbose=True"
    assert reply.message not in standin.messages_in(world.general)

    result = await standin.invoke(
        "echo", {"text": "hi", "times": 2, "who": world.organizer, "where": world.announcements}
    )
    reply = await result.response()
    assert not reply.ephemeral
    assert reply.content == "hi hi for Olivia in #announcements"
    assert [m.content for m in standin.messages_in(world.general)] == [reply.content]


async def test_defer_and_followups(bot: BareBot, standin: StandIn) -> None:
    result = await standin.invoke("slow")
    assert (await result.response()).deferred
    final = await result.final()
    assert final.content == "done slowly"
    assert final.id == result.message.id
    followups = await result.wait_followups(2)
    assert [m.content for m in followups] == ["done slowly", "and one more"]


async def test_modal_round_trip(bot: BareBot, standin: StandIn) -> None:
    opened = await standin.invoke("form")
    modal = (await opened.response()).modal
    assert modal is not None
    assert modal["title"] == "Suggest a paper"
    submitted = await standin.submit_modal(opened, {"form:title": "Attention", "form:why": "classic"})
    reply = await submitted.response()
    assert reply.ephemeral
    assert reply.content == "Thanks for 'Attention' (classic)"


async def test_button_and_select(bot: BareBot, standin: StandIn, world: DefaultGuild) -> None:
    posted = await (await standin.invoke("panel")).final()
    assert sorted(str(b.get("label")) for b in posted.buttons) == ["Paper", "Remind me"]
    clicked = await standin.click(posted, "panel:remind", member=world.organizer)
    assert (await clicked.response()).type == 7
    assert standin.message(posted.id).content == "Olivia will be reminded"
    picked = await standin.click(posted, "panel:pick", values=["b"])
    assert (await picked.response()).content == "picked ['b']"


async def test_autocomplete(bot: BareBot, standin: StandIn) -> None:
    choices = await standin.autocomplete("topic", "name", "sim")
    assert choices == [{"name": "user simulators", "value": "user simulators"}]


async def test_embed_over_6000_is_rejected(bot: BareBot, standin: StandIn) -> None:
    result = await standin.invoke("bigembed")
    error = await result.wait_error()
    assert error["code"] == 50035
    [raised] = await wait_errors(bot)
    assert isinstance(raised, discord.HTTPException)
    assert raised.code == 50035
    assert result.record.response is None


async def test_late_response_is_unknown_interaction(bot: BareBot, standin: StandIn) -> None:
    result = await standin.invoke("late")
    await asyncio.wait_for(bot.at_gate.wait(), 5)
    standin.advance_clock(standin.interaction_deadline + 0.1)
    bot.gate.set()
    assert (await result.wait_error())["code"] == 10062
    [raised] = await wait_errors(bot)
    assert isinstance(raised, discord.NotFound)
    assert raised.code == 10062


async def test_second_response_is_rejected(bot: BareBot, standin: StandIn) -> None:
    result = await standin.invoke("twice")
    assert (await result.response()).content == "first"
    assert (await result.wait_error())["code"] == 40060
    [raised] = await wait_errors(bot)
    assert isinstance(raised, discord.HTTPException)
    assert raised.code == 40060


async def test_enforced_nonce_returns_first_message(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    channel = bot.get_channel(world.announcements.id)
    assert isinstance(channel, discord.TextChannel)
    first = await channel.send("weekly reminder", nonce="reminder-1")  # discord.py adds enforce_nonce
    again = await channel.send("weekly reminder", nonce="reminder-1")  # discord.py adds enforce_nonce
    assert first.id == again.id
    assert len(standin.messages_in(world.announcements)) == 1


async def test_resume_after_dropped_gateway(bot: BareBot, standin: StandIn) -> None:
    await standin.drop_gateway()
    await asyncio.wait_for(bot.resumed.wait(), 5)
    assert standin.gateway.identifies == 1
    reply = await (await standin.invoke("echo", {"text": "still here"})).response()
    assert reply.content == "still here"


async def test_events_missed_while_dropped_are_replayed(bot: BareBot, standin: StandIn) -> None:
    await standin.drop_gateway(wait_resumed=False)
    result = await standin.invoke("echo", {"text": "queued"})  # buffered, replayed on RESUME
    assert (await result.response()).content == "queued"


async def test_rate_limit_is_waited_out(bot: BareBot, standin: StandIn, world: DefaultGuild) -> None:
    standin.fail_next("POST", r"^/channels/\d+/messages$", status=429, retry_after=0.05)
    channel = bot.get_channel(world.general.id)
    assert isinstance(channel, discord.TextChannel)
    await channel.send("after the limit")
    assert [m.content for m in standin.messages_in(world.general)] == ["after the limit"]
    assert [r.status for r in standin.requests_to("POST", r"^/channels/\d+/messages$")] == [429, 200]


async def test_permissions_and_closed_dms(bot: BareBot, standin: StandIn, world: DefaultGuild) -> None:
    guild = bot.get_guild(world.guild.id)
    assert guild is not None
    # Manage Events without Create Events: since 23 February 2026 a bot cannot create events with it
    await standin.set_bot_permissions(world.bot_role.permissions & ~(1 << 44))
    start = discord.utils.utcnow() + dt.timedelta(days=1)
    with pytest.raises(discord.Forbidden) as info:
        await guild.create_scheduled_event(
            name="Reading",
            start_time=start,
            end_time=start + dt.timedelta(hours=1),
            entity_type=discord.EntityType.external,
            location="Room 1",
            privacy_level=discord.PrivacyLevel.guild_only,
        )
    assert info.value.code == 50013
    await standin.set_overwrite(world.announcements, world.bot, deny=1 << 11)
    channel = guild.get_channel(world.announcements.id)
    assert isinstance(channel, discord.TextChannel)
    with pytest.raises(discord.Forbidden):
        await channel.send("nope")
    closed = await standin.create_member(world.guild, "hermit", dms_closed=True)
    user = await bot.fetch_user(closed.id)
    with pytest.raises(discord.Forbidden) as dm_info:
        await user.send("hello")
    assert dm_info.value.code == 50007
