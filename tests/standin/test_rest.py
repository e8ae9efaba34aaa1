"""Stand-in REST behaviour: files, threads, forum posts, events, polls, DMs, faults, limits and rendering."""

from __future__ import annotations

import datetime as dt
import io

import aiohttp
import discord
import pytest

from standin import StandIn
from standin.render import render_channel, render_message
from standin.server import DefaultGuild
from tests.standin.helpers import BareBot

pytestmark = pytest.mark.asyncio


def text_channel(bot: BareBot, channel_id: int) -> discord.TextChannel:
    channel = bot.get_channel(channel_id)
    assert isinstance(channel, discord.TextChannel)
    return channel


async def test_channel_message_with_file_edit_and_delete(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    channel = text_channel(bot, world.general.id)
    sent = await channel.send("agenda", file=discord.File(io.BytesIO(b"BEGIN:VCALENDAR"), "session.ics"))
    [stored] = standin.messages_in(world.general)
    assert stored.file("session.ics") == b"BEGIN:VCALENDAR"
    assert standin.requests_to("POST", r"/messages$")[-1].files == ["session.ics"]
    assert await sent.attachments[0].read() == b"BEGIN:VCALENDAR"
    edited = await sent.edit(content="agenda v2")
    assert edited.content == "agenda v2"
    assert stored.content == "agenda v2"
    assert len(stored.attachments) == 1
    await sent.delete()
    assert standin.messages_in(world.general) == []


async def test_interaction_response_with_file(bot: BareBot, standin: StandIn) -> None:
    reply = await (await standin.invoke("ics")).response()
    assert reply.ephemeral
    assert [a["filename"] for a in reply.attachments] == ["session.ics"]
    assert reply.message is not None
    assert reply.message.file("session.ics").startswith(b"BEGIN:VCALENDAR")


async def test_defer_then_edit_original(bot: BareBot, standin: StandIn) -> None:
    result = await standin.invoke("think")
    assert (await result.response()).ephemeral
    final = await result.final()
    assert final.content == "ready"
    assert final.embeds[0]["title"] == "Result"
    assert final.ephemeral


async def test_forum_post_and_thread_from_message(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    forum = bot.get_channel(world.suggestions.id)
    assert isinstance(forum, discord.ForumChannel)
    tag = next(t for t in forum.available_tags if t.name == "verifier soundness")
    post = await forum.create_thread(name="Checking verifiers", content="Worth a read", applied_tags=[tag])
    [thread] = standin.threads
    assert thread.parent_id == world.suggestions.id
    assert thread.applied_tags == [tag.id]
    assert post.message.id == thread.id
    assert standin.messages_in(thread)[0].content == "Worth a read"
    with pytest.raises(discord.HTTPException) as info:
        await forum.create_thread(name="Bad tag", content="x", applied_tags=[discord.Object(1)])  # type: ignore[list-item]
    assert info.value.code == 50035

    message = await text_channel(bot, world.announcements.id).send("Session 1")
    discussion = await message.create_thread(name="Session 1 discussion")
    assert discussion.id == message.id
    assert standin.state.channels[message.id].name == "Session 1 discussion"
    await discussion.add_user(discord.Object(world.members[0].id))
    assert world.members[0].id in standin.state.channels[discussion.id].thread_members


async def test_scheduled_event_lifecycle(bot: BareBot, standin: StandIn, world: DefaultGuild) -> None:
    guild = bot.get_guild(world.guild.id)
    assert guild is not None
    start = discord.utils.utcnow() + dt.timedelta(days=2)
    event = await guild.create_scheduled_event(
        name="Reading: Attention",
        start_time=start,
        end_time=start + dt.timedelta(hours=1),
        entity_type=discord.EntityType.external,
        location="Room 4",
        privacy_level=discord.PrivacyLevel.guild_only,
    )
    assert [e["name"] for e in standin.scheduled_events()] == ["Reading: Attention"]
    edited = await event.edit(name="Reading: Attention (moved)", location="Room 5")
    assert edited.name == "Reading: Attention (moved)"
    assert standin.scheduled_events()[0]["entity_metadata"] == {"location": "Room 5"}
    await edited.delete()
    assert standin.scheduled_events() == []
    past = discord.utils.utcnow() - dt.timedelta(days=1)
    with pytest.raises(discord.HTTPException) as info:
        await guild.create_scheduled_event(
            name="Past",
            start_time=past,
            end_time=start,
            entity_type=discord.EntityType.external,
            location="Room",
            privacy_level=discord.PrivacyLevel.guild_only,
        )
    assert info.value.code == 50035


async def test_poll_votes_and_expiry(bot: BareBot, standin: StandIn, world: DefaultGuild) -> None:
    poll = discord.Poll(question="Which paper next?", duration=dt.timedelta(hours=24))
    poll.add_answer(text="Attention").add_answer(text="BERT")
    sent = await text_channel(bot, world.general.id).send(poll=poll)
    [stored] = standin.messages_in(world.general)
    await standin.vote(stored, world.members[0], 2)
    await standin.vote(stored, world.members[1], 2)
    ended = await sent.end_poll()
    assert ended.poll is not None
    assert ended.poll.is_finalised()
    assert stored.poll is not None
    assert stored.poll["results"]["answer_counts"] == [{"id": 2, "count": 2, "me_voted": False}]
    assert "📊 Which paper next? (final)" in render_message(stored, standin.state)


async def test_dm_and_role_mentions(bot: BareBot, standin: StandIn, world: DefaultGuild) -> None:
    guild = bot.get_guild(world.guild.id)
    assert guild is not None
    member = guild.get_member(world.members[1].id)
    assert member is not None
    await member.send("Your reminder")
    assert [m.content for m in standin.dm_messages(world.members[1])] == ["Your reminder"]
    await text_channel(bot, world.announcements.id).send(
        f"{world.readers.mention} new session", allowed_mentions=discord.AllowedMentions(roles=True)
    )
    [announced] = standin.messages_in(world.announcements)
    assert announced.payload["mention_roles"] == [str(world.readers.id)]


async def test_unknown_route_faults_and_expired_token(bot: BareBot, standin: StandIn) -> None:
    api = standin.base_url + "/api/v10"
    headers = {"Authorization": "Bot sandbox-token"}
    async with aiohttp.ClientSession(headers=headers) as http:
        async with http.get(api + "/nope/nothing") as resp:
            assert resp.status == 404
            assert await resp.json() == {"message": "404: Not Found", "code": 0}
        # A route Discord's API description lacks is a bot bug too: recorded, so it fails the test.
        [unknown] = standin.take_violations()
        assert unknown.operation_id == "(no operation)"
        standin.fail_next("GET", r"^/users/@me$", status=500)
        async with http.get(api + "/users/@me") as resp:
            assert resp.status == 500
        async with http.get(api + "/users/@me") as resp:
            assert resp.status == 200
            assert int(resp.headers["X-RateLimit-Remaining"]) > 0
        result = await standin.invoke("echo", {"text": "hi"})
        await result.response()
        standin.advance_clock(15 * 60 + 1)
        async with http.post(
            f"{api}/webhooks/{standin.state.application_id}/{result.record.token}",
            json={"content": "too late"},
        ) as resp:
            assert resp.status == 401
            assert (await resp.json())["code"] == 50027


async def test_render_message_with_embed_and_buttons(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    view = discord.ui.View()
    view.add_item(discord.ui.Button(label="Sign up", url="https://example.org/signup"))
    view.add_item(discord.ui.Button(label="Remind me", custom_id="remind"))
    embed = discord.Embed(title="Session #3", description="Attention Is All You Need")
    embed.add_field(name="When", value="<t:1793728800:F>")
    await text_channel(bot, world.announcements.id).send(
        f"{world.readers.mention} next session", embed=embed, view=view
    )
    text = render_channel(standin.state, world.announcements.id)
    assert text.startswith("#announcements  PaperClub (bot):")
    assert "@Readers next session" in text
    assert "┌ Session #3" in text
    assert "[ Sign up ↗ ] [ Remind me ]" in text
    assert "When: " in text
    assert "UTC" in text


async def test_entity_select_pins_and_event_interest(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    picked: list[discord.Member | discord.User] = []

    class Pick(discord.ui.UserSelect[discord.ui.View]):
        async def callback(self, interaction: discord.Interaction) -> None:
            picked.extend(self.values)
            await interaction.response.send_message("noted", ephemeral=True)

    view = discord.ui.View()
    view.add_item(Pick(custom_id="pick-user"))
    sent = await text_channel(bot, world.general.id).send("Who presents?", view=view)
    clicked = await standin.click(sent.id, "pick-user", values=[world.organizer], member=world.admin)
    assert (await clicked.response()).content == "noted"
    assert [m.id for m in picked] == [world.organizer.id]
    assert isinstance(picked[0], discord.Member)

    await sent.pin()
    assert standin.message(sent.id).payload["pinned"] is True

    guild = bot.get_guild(world.guild.id)
    assert guild is not None
    start = discord.utils.utcnow() + dt.timedelta(days=2)
    event = await guild.create_scheduled_event(
        name="Reading",
        start_time=start,
        end_time=start + dt.timedelta(hours=1),
        entity_type=discord.EntityType.external,
        location="Room 4",
        privacy_level=discord.PrivacyLevel.guild_only,
    )
    await standin.mark_interested(event.id, world.members[2])
    assert [u.id async for u in event.users()] == [world.members[2].id]


async def test_default_member_permissions_hide_commands(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    @discord.app_commands.command(description="Organizers only")
    @discord.app_commands.default_permissions(manage_events=True)
    async def organize(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("organizing")

    bot.tree.add_command(organize)
    await bot.tree.sync()
    standin.enforce_command_permissions = True
    with pytest.raises(PermissionError):
        await standin.invoke("organize", member=world.members[0])
    assert (
        await (await standin.invoke("organize", member=world.organizer)).response()
    ).content == "organizing"
