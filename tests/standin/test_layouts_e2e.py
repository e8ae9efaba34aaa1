"""The real discord.py 2.7 client against the stand-in's Components V2, labelled modals and context menus:
a throwaway bot (no paperclub code) sends a LayoutView, converts a classic post, opens forms with each
kind of input and answers message and user commands."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.demo.running import connected
from standin import StandIn
from standin.render import render_message, render_modal
from standin.server import DefaultGuild
from standin.state import IS_COMPONENTS_V2, VIEW_CHANNEL

pytestmark = pytest.mark.asyncio


class Upvote(discord.ui.Button["Card"]):
    async def callback(self, interaction: discord.Interaction) -> None:
        assert self.view is not None
        await interaction.response.edit_message(view=Card(self.view.votes + 1))


class Card(discord.ui.LayoutView):
    """A session card: heading, a paper with its button beside it, a thumbnail, a gallery, a row."""

    def __init__(self, votes: int = 0) -> None:
        super().__init__(timeout=None)
        self.votes = votes
        up = Upvote(label=f"Upvote ({votes})", custom_id="card:up", style=discord.ButtonStyle.primary)
        self.add_item(
            discord.ui.Container(
                discord.ui.TextDisplay("# Session 3\n-# Thursday 5 November"),
                discord.ui.Separator(),
                discord.ui.Section(discord.ui.TextDisplay("**Attention Is All You Need**"), accessory=up),
                discord.ui.Section("TMax", accessory=discord.ui.Thumbnail("https://example.org/t.png")),
                discord.ui.MediaGallery(
                    discord.MediaGalleryItem("https://example.org/a.png", description="fig")
                ),
                discord.ui.ActionRow(
                    discord.ui.Button(label="arXiv", url="https://arxiv.org/abs/1706.03762"),
                    discord.ui.Button(label="Sign up", custom_id="card:signup"),
                ),
                accent_colour=0x5865F2,
            )
        )


def summary(*parts: object) -> str:
    return " | ".join(str(p) for p in parts)


class FormOne(discord.ui.Modal, title="Suggest a paper"):
    intro = discord.ui.TextDisplay("One paper per form.")
    paper: discord.ui.Label[Any] = discord.ui.Label(
        text="Paper", description="A link or a title", component=discord.ui.TextInput(custom_id="f1:paper")
    )
    topic: discord.ui.Label[Any] = discord.ui.Label(
        text="Topic",
        component=discord.ui.Select(
            custom_id="f1:topic",
            options=[
                discord.SelectOption(label="RL", value="rl"),
                discord.SelectOption(label="Bench", value="bench"),
            ],
        ),
    )
    who: discord.ui.Label[Any] = discord.ui.Label(
        text="Presenter", component=discord.ui.UserSelect(custom_id="f1:who")
    )
    day: discord.ui.Label[Any] = discord.ui.Label(
        text="Day",
        component=discord.ui.RadioGroup(
            custom_id="f1:day",
            options=[
                discord.RadioGroupOption(label="Mon", value="mon"),
                discord.RadioGroupOption(label="Thu", value="thu"),
            ],
        ),
    )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        who = [m.display_name for m in self.who.component.values]
        text = summary(self.paper.component.value, self.topic.component.values, who, self.day.component.value)
        await interaction.response.send_message(text, ephemeral=True)


class FormTwo(discord.ui.Modal, title="More"):
    roles: discord.ui.Label[Any] = discord.ui.Label(
        text="Roles", component=discord.ui.RoleSelect(custom_id="f2:roles", max_values=2)
    )
    where: discord.ui.Label[Any] = discord.ui.Label(
        text="Where",
        component=discord.ui.ChannelSelect(custom_id="f2:where", channel_types=[discord.ChannelType.text]),
    )
    weeks: discord.ui.Label[Any] = discord.ui.Label(
        text="Weeks",
        component=discord.ui.CheckboxGroup(
            custom_id="f2:weeks",
            options=[discord.CheckboxGroupOption(label=w, value=w) for w in ("w1", "w2", "w3")],
        ),
    )
    present: discord.ui.Label[Any] = discord.ui.Label(
        text="I'd present this", component=discord.ui.Checkbox(custom_id="f2:present")
    )
    slides: discord.ui.Label[Any] = discord.ui.Label(
        text="Slides", component=discord.ui.FileUpload(custom_id="f2:slides", max_values=2, required=False)
    )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        files = [(a.filename, await a.read()) for a in self.slides.component.values]
        text = summary(
            [r.name for r in self.roles.component.values],
            [c.name for c in self.where.component.values],
            self.weeks.component.values,
            self.present.component.value,
            files,
        )
        await interaction.response.send_message(text, ephemeral=True)


class LayoutBot(discord.Client):
    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.default())
        self.tree = app_commands.CommandTree(self)
        self.refusals: list[discord.HTTPException] = []
        self.refused = asyncio.Event()
        self._define()

    async def setup_hook(self) -> None:
        self.add_view(Card())
        await self.tree.sync()

    def _define(self) -> None:
        tree = self.tree

        @tree.command(description="Post a card")
        async def card(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(view=Card())

        @tree.command(description="Think, then answer with a card")
        async def slowcard(interaction: discord.Interaction) -> None:
            await interaction.response.defer(thinking=True)
            await interaction.edit_original_response(view=Card())

        @tree.command(description="Defer with the V2 flag, which Discord refuses")
        async def deferv2(interaction: discord.Interaction) -> None:
            route = discord.http.Route(
                "POST",
                "/interactions/{interaction_id}/{interaction_token}/callback",
                interaction_id=interaction.id,
                interaction_token=interaction.token,
            )
            try:
                await self.http.request(route, json={"type": 5, "data": {"flags": IS_COMPONENTS_V2}})
            except discord.HTTPException as exc:
                self.refusals.append(exc)
                self.refused.set()

        @tree.command(description="Open the first form")
        async def form1(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(FormOne())

        @tree.command(description="Open the second form")
        async def form2(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(FormTwo())

        @tree.context_menu(name="Quote this")
        async def quote(interaction: discord.Interaction, message: discord.Message) -> None:
            try:
                await message.channel.fetch_message(message.id)
            except discord.NotFound:
                await interaction.response.send_message("that message is gone", ephemeral=True)
                return
            author = "me" if message.author == self.user else message.author.display_name
            await interaction.response.send_message(f"{author} said {message.content!r}", ephemeral=True)

        @tree.context_menu(name="High five")
        async def high_five(interaction: discord.Interaction, member: discord.Member) -> None:
            await interaction.response.send_message(f"high five, {member.display_name}!")


@pytest.fixture
async def layout_bot(standin: StandIn) -> AsyncIterator[LayoutBot]:
    async with connected(LayoutBot(), standin) as client:
        yield client


def channel_of(bot: LayoutBot, channel_id: int) -> discord.TextChannel:
    channel = bot.get_channel(channel_id)
    assert isinstance(channel, discord.TextChannel)
    return channel


# -- Components V2 messages -----------------------------------------------------------------------------------
async def test_a_layout_view_is_sent_kept_and_its_nested_button_answers(
    layout_bot: LayoutBot, standin: StandIn
) -> None:
    message = (await (await standin.invoke("card")).response()).message
    assert message is not None
    assert message.is_components_v2
    assert message.content == ""
    assert message.text_displays == [
        "# Session 3\n-# Thursday 5 November",
        "**Attention Is All You Need**",
        "TMax",
    ]
    assert [c["type"] for c in message.components] == [17]
    ids = [c["id"] for c in message.walk_components()]
    assert ids == list(range(1, len(ids) + 1))  # filled in by the stand-in, as Discord does
    assert [b.get("label") for b in message.buttons] == ["Upvote (0)", "arXiv", "Sign up"]
    assert message.components_of_type(9)[0]["accessory"]["custom_id"] == "card:up"
    pressed = await (await standin.click(message, "card:up")).response()
    assert pressed.type == 7
    assert message.is_components_v2
    assert message.component("card:up")["label"] == "Upvote (1)"  # the button inside a section
    shown = render_message(message, standin.state)
    assert "■ #5865F2" in shown
    assert any(line.rstrip().endswith("[ Upvote (1) ]") for line in shown.splitlines())


async def test_a_deferred_answer_becomes_a_layout_by_editing_the_original(
    layout_bot: LayoutBot, standin: StandIn
) -> None:
    result = await standin.invoke("slowcard")
    assert (await result.response()).deferred
    final = await result.final()
    assert final.is_components_v2
    assert "Upvote (0)" in [b.get("label") for b in final.buttons]


async def test_the_flag_is_refused_on_a_deferred_reply(layout_bot: LayoutBot, standin: StandIn) -> None:
    result = await standin.invoke("deferv2")
    error = await result.wait_error()
    assert error["code"] == 50035
    assert "flags" in error["errors"]["data"]
    await asyncio.wait_for(layout_bot.refused.wait(), 5)  # the bot's own request got the same answer
    assert layout_bot.refusals[0].code == 50035


async def test_an_old_embed_post_is_rewritten_as_a_layout(
    layout_bot: LayoutBot, standin: StandIn, world: DefaultGuild
) -> None:
    channel = channel_of(layout_bot, world.announcements.id)
    sent = await channel.send("Next session", embed=discord.Embed(title="Session 3"))
    with pytest.raises(discord.HTTPException) as refused:
        await sent.edit(view=Card())  # the old content and embed left in place
    assert refused.value.code == 50035
    assert "The 'content' field cannot be used when using MessageFlags.IS_COMPONENTS_V2" in refused.value.text
    assert "The 'embeds' field" in refused.value.text
    await sent.edit(content=None, embed=None, view=Card())
    stored = standin.message(sent.id)
    assert stored.is_components_v2
    assert (stored.content, stored.embeds) == ("", [])
    assert stored.text_displays[0].startswith("# Session 3")
    # The flag stays: an edit back to plain text is refused, and a layout edit without the flag still works.
    with pytest.raises(discord.HTTPException) as back:
        await sent.edit(content="plain again", view=None)
    assert "The 'content' field" in back.value.text
    await layout_bot.http.edit_message(
        channel.id, sent.id, params=discord.http.handle_message_parameters(view=Card(5))
    )
    assert stored.is_components_v2
    assert stored.component("card:up")["label"] == "Upvote (5)"


async def test_a_layout_with_a_file_and_the_limits_discordpy_keeps(
    layout_bot: LayoutBot, standin: StandIn, world: DefaultGuild
) -> None:
    view = discord.ui.LayoutView()
    view.add_item(discord.ui.TextDisplay("Slides attached"))
    view.add_item(discord.ui.File("attachment://slides.pdf"))
    channel = channel_of(layout_bot, world.general.id)
    sent = await channel.send(view=view, file=discord.File(io.BytesIO(b"%PDF"), "slides.pdf"))
    stored = standin.message(sent.id)
    assert stored.file("slides.pdf") == b"%PDF"
    assert "📎 slides.pdf" in render_message(stored, standin.state)
    longest = discord.ui.LayoutView()
    longest.add_item(discord.ui.TextDisplay("a" * 2000))
    longest.add_item(discord.ui.TextDisplay("b" * 2000))
    await channel.send(view=longest)  # 4000 characters: accepted
    longest.add_item(discord.ui.TextDisplay("c"))
    with pytest.raises(discord.HTTPException) as over:
        await channel.send(view=longest)
    assert over.value.code == 50035
    assert "4000" in over.value.text


# -- labelled forms ----------------------------------------------------------------------------------------
async def test_the_first_form_text_select_user_select_and_radio(
    layout_bot: LayoutBot, standin: StandIn, world: DefaultGuild
) -> None:
    opened = await standin.invoke("form1", member=world.members[0])
    modal = (await opened.response()).modal
    assert modal is not None
    assert [c["type"] for c in modal["components"]] == [10, 18, 18, 18, 18]
    assert modal["components"][1]["component"].get("label") is None  # the Label carries it
    shown = render_modal(modal)
    assert "│ Paper *" in shown
    assert "A link or a title" in shown
    assert "( ) Mon  ( ) Thu" in shown
    values = {"f1:paper": "TMax", "f1:topic": "bench", "f1:who": [world.members[1]], "f1:day": "thu"}
    reply = await (await standin.submit_modal(opened, values, member=world.members[0])).response()
    assert reply.content == "TMax | ['bench'] | ['Sam'] | thu"
    again = await standin.invoke("form1", member=world.members[0])  # a form is submitted once
    with pytest.raises(ValueError, match="not one of its options"):
        await standin.submit_modal(again, {**values, "f1:topic": "cooking"}, member=world.members[0])
    forged = await standin.submit_modal(
        again, {**values, "f1:topic": "cooking"}, member=world.members[0], forged=True
    )
    assert (await forged.response()).content == "TMax | ['cooking'] | ['Sam'] | thu"  # the bot must check it


async def test_the_second_form_roles_channel_checkboxes_and_files(
    layout_bot: LayoutBot, standin: StandIn, world: DefaultGuild
) -> None:
    opened = await standin.invoke("form2", member=world.members[0])
    values = {
        "f2:roles": [world.readers],
        "f2:where": [world.announcements],
        "f2:weeks": ["w1", "w3"],
        "f2:present": True,
        "f2:slides": [("talk.pdf", b"%PDF-1.7")],
    }
    reply = await (await standin.submit_modal(opened, values, member=world.members[0])).response()
    assert (
        reply.content == "['Readers'] | ['announcements'] | ['w1', 'w3'] | True | [('talk.pdf', b'%PDF-1.7')]"
    )
    bare = {**values, "f2:present": False, "f2:slides": []}
    opened = await standin.invoke("form2", member=world.members[0])
    reply = await (await standin.submit_modal(opened, bare, member=world.members[0])).response()
    assert reply.content.endswith("| False | []")


# -- context menus ------------------------------------------------------------------------------------------
async def test_a_message_command_carries_the_message(
    layout_bot: LayoutBot, standin: StandIn, world: DefaultGuild
) -> None:
    synced = {(c["type"], c["name"]) for c in standin.commands()}
    assert {(3, "Quote this"), (2, "High five")} <= synced
    posted = await standin.post_as(world.members[1], world.general, "see https://arxiv.org/abs/1706.03762")
    result = await standin.invoke_message_command("Quote this", posted, member=world.members[0])
    data = result.record.payload["data"]
    assert (data["type"], data["target_id"]) == (3, str(posted.id))
    assert data["resolved"]["messages"][str(posted.id)]["content"] == posted.content
    reply = await result.response()
    assert reply.content == "Sam said 'see https://arxiv.org/abs/1706.03762'"
    assert reply.message is not None
    assert reply.message.payload["interaction_metadata"]["target_message_id"] == str(posted.id)
    assert reply.message.payload["message_reference"]["message_id"] == str(posted.id)


async def test_a_message_command_on_the_bots_own_a_deleted_or_an_unseen_message(
    layout_bot: LayoutBot, standin: StandIn, world: DefaultGuild
) -> None:
    own = await channel_of(layout_bot, world.general.id).send("from the bot")
    reply = await (
        await standin.invoke_message_command("Quote this", own.id, member=world.members[0])
    ).response()
    assert reply.content == "me said 'from the bot'"
    deleted = await channel_of(layout_bot, world.general.id).send("soon deleted")
    await deleted.delete()  # after the member right-clicked it
    gone = standin.message(deleted.id)
    assert gone.deleted
    reply = await (
        await standin.invoke_message_command("Quote this", gone, member=world.members[0])
    ).response()
    assert reply.content == "that message is gone"
    hidden = await standin.create_channel(world.guild, "organizers-only")
    await standin.set_overwrite(hidden, world.guild.everyone, deny=VIEW_CHANNEL)
    secret = await standin.post_as(world.organizer, hidden, "plans")
    with pytest.raises(PermissionError, match="cannot see #organizers-only"):
        await standin.invoke_message_command("Quote this", secret, member=world.members[0])
    with pytest.raises(LookupError, match="not synced"):
        await standin.invoke_message_command("Nope", own.id, member=world.members[0])


async def test_a_user_command_carries_the_member(
    layout_bot: LayoutBot, standin: StandIn, world: DefaultGuild
) -> None:
    result = await standin.invoke_user_command("High five", world.members[2], member=world.members[0])
    data = result.record.payload["data"]
    assert (data["type"], data["target_id"]) == (2, str(world.members[2].id))
    assert str(world.members[2].id) in data["resolved"]["members"]
    reply = await result.response()
    assert reply.content == "high five, Tom!"
