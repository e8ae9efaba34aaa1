"""The bot removed from a guild and invited back, against discord.py's own Client (no paperclub code):
GUILD_DELETE without ``unavailable`` (discord.py's ``on_guild_remove``), Missing Access and no events of
that guild after, GUILD_CREATE as a join (``on_guild_join``) when it is back; a command offered only in its
contexts; a forged button press as a modified client would send it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import discord
import pytest
from discord import app_commands

from bot.demo.running import connected
from standin import StandIn


class Bare(discord.Client):
    """A bare client with one command offered in guilds only, and one everywhere."""

    def __init__(self) -> None:
        super().__init__(intents=discord.Intents(guilds=True))
        self.tree = app_commands.CommandTree(self)
        self.pressed: list[tuple[str, str]] = []  # (custom id of the press, the message's button's)

        @self.tree.command(name="here", description="Guilds only")
        @app_commands.guild_only()
        async def here(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("here", ephemeral=True)

        @self.tree.command(name="anywhere", description="Guilds and DMs")
        @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=False)
        async def anywhere(interaction: discord.Interaction) -> None:
            view = discord.ui.View()
            view.add_item(discord.ui.Button(label="Press", custom_id="press:1"))
            await interaction.response.send_message("anywhere", view=view)

    async def setup_hook(self) -> None:
        await self.tree.sync()

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        if interaction.type == discord.InteractionType.component and interaction.message is not None:
            sent = interaction.message.components[0].children[0]  # type: ignore[union-attr]
            self.pressed.append((str(interaction.data.get("custom_id")), str(getattr(sent, "custom_id", ""))))  # type: ignore[union-attr]
            await interaction.response.defer()


@pytest.fixture
async def standin() -> AsyncIterator[StandIn]:
    async with StandIn() as server:
        yield server


async def test_removed_then_added_back(standin: StandIn) -> None:
    world = await standin.create_default_guild()
    guild_id = world.guild.id
    async with connected(Bare(), standin) as client:
        assert client.get_guild(guild_id) is not None
        removed = asyncio.ensure_future(client.wait_for("guild_remove", timeout=10))
        await standin.remove_bot(world.guild)
        assert (await removed).id == guild_id
        assert client.get_guild(guild_id) is None
        with pytest.raises(discord.Forbidden) as refused:
            await client.fetch_guild(guild_id)
        assert refused.value.code == 50001
        with pytest.raises(discord.Forbidden):
            await client.fetch_channel(world.general.id)
        created = asyncio.ensure_future(client.wait_for("guild_channel_create", timeout=0.5))
        await standin.create_channel(world.guild, "unheard")
        with pytest.raises(TimeoutError):
            await created  # nothing of a guild the bot is not in reaches it
        joined = asyncio.ensure_future(client.wait_for("guild_join", timeout=10))
        await standin.add_bot(world.guild)
        assert (await joined).id == guild_id
        assert (await client.fetch_guild(guild_id)).id == guild_id
        assert any(r.managed for r in client.get_guild(guild_id).roles)  # type: ignore[union-attr]


async def test_commands_are_offered_in_their_contexts_and_a_press_can_be_forged(standin: StandIn) -> None:
    world = await standin.create_default_guild()
    rita = world.members[0]
    dm = standin.state.dm_channel(rita.user)
    async with connected(Bare(), standin) as client:
        with pytest.raises(LookupError, match="not offered in DMs"):
            await standin.invoke("here", member=rita.user, channel=dm)
        answer = await (await standin.invoke("anywhere", member=rita.user, channel=dm)).final()
        assert answer.content == "anywhere"
        await (await standin.click(answer, "press:1", member=rita.user)).response()
        await (await standin.click(answer, "press:2", member=rita.user, forged=True)).response()
        assert client.pressed == [("press:1", "press:1"), ("press:2", "press:2")]
        assert answer.buttons[0]["custom_id"] == "press:1"  # the message itself is as it was
