"""A bare discord.py bot (no paperclub code) used to exercise the stand-in."""

from __future__ import annotations

import asyncio
import io

import discord
from discord import app_commands
from discord.ext import commands


class Form(discord.ui.Modal, title="Suggest a paper"):
    paper: discord.ui.TextInput[Form] = discord.ui.TextInput(
        label="Paper title", custom_id="form:title", max_length=200
    )
    why: discord.ui.TextInput[Form] = discord.ui.TextInput(
        label="Why", custom_id="form:why", style=discord.TextStyle.paragraph, required=False
    )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            f"Thanks for {self.paper.value!r} ({self.why.value})", ephemeral=True
        )


class Panel(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)
        self.add_item(discord.ui.Button(label="Paper", url="https://arxiv.org/abs/1706.03762"))

    @discord.ui.button(label="Remind me", custom_id="panel:remind", style=discord.ButtonStyle.primary)
    async def remind(self, interaction: discord.Interaction, button: discord.ui.Button[Panel]) -> None:
        await interaction.response.edit_message(
            content=f"{interaction.user.display_name} will be reminded", view=self
        )

    @discord.ui.select(
        custom_id="panel:pick", options=[discord.SelectOption(label=x, value=x) for x in "abc"]
    )
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select[Panel]) -> None:
        await interaction.response.send_message(f"picked {select.values}", ephemeral=True)


class BareBot(commands.Bot):
    def __init__(self) -> None:
        intents = discord.Intents.default()
        intents.members = True
        super().__init__(command_prefix="!", intents=intents)
        self.errors: list[BaseException] = []
        self.resumed = asyncio.Event()
        self.errored = asyncio.Event()
        self.gate = asyncio.Event()
        self.at_gate = asyncio.Event()
        self.sync_error: BaseException | None = None
        self._define()

    async def on_resumed(self) -> None:
        self.resumed.set()

    async def setup_hook(self) -> None:
        self.add_view(Panel())
        await self.tree.sync()

    def _define(self) -> None:
        tree = self.tree
        setup = app_commands.Group(name="setup", description="Club settings")

        @setup.command(name="show", description="Show the settings")
        async def show(interaction: discord.Interaction, verbose: bool = False) -> None:
            await interaction.response.send_message(f"settings verbose={verbose}", ephemeral=True)

        tree.add_command(setup)

        @tree.command(description="Echo text")
        async def echo(
            interaction: discord.Interaction,
            text: str,
            times: int = 1,
            who: discord.Member | None = None,
            where: discord.TextChannel | None = None,
        ) -> None:
            tail = f" for {who.display_name}" if who else ""
            tail += f" in #{where.name}" if where else ""
            await interaction.response.send_message(" ".join([text] * times) + tail)

        @tree.command(description="Takes a while")
        async def slow(interaction: discord.Interaction) -> None:
            await interaction.response.defer(thinking=True)
            await interaction.followup.send("done slowly")
            await interaction.followup.send("and one more")

        @tree.command(description="Open a form")
        async def form(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(Form())

        @tree.command(description="Post a panel")
        async def panel(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("Session panel", view=Panel())

        @tree.command(description="Pick a topic")
        async def topic(interaction: discord.Interaction, name: str) -> None:
            await interaction.response.send_message(f"topic {name}")

        @topic.autocomplete("name")
        async def topic_names(
            interaction: discord.Interaction, current: str
        ) -> list[app_commands.Choice[str]]:
            names = ["verifier soundness", "user simulators", "benchmark validity"]
            return [app_commands.Choice(name=n, value=n) for n in names if current.lower() in n]

        @tree.command(description="Too much embed")
        async def bigembed(interaction: discord.Interaction) -> None:
            embed = discord.Embed(title="t" * 200, description="d" * 4000)
            for i in range(2):
                embed.add_field(name=f"f{i}", value="v" * 899)
            await interaction.response.send_message(embed=embed)  # 200 + 4000 + 2 * 901 = 6002 > 6000

        @tree.command(description="Answers late")
        async def late(interaction: discord.Interaction) -> None:
            self.at_gate.set()
            await self.gate.wait()
            await interaction.response.send_message("finally")

        @tree.command(description="Answers twice")
        async def twice(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("first")
            await discord.InteractionResponse(interaction).send_message("second")  # bypass the local guard

        @tree.command(description="Send a calendar file")
        async def ics(interaction: discord.Interaction) -> None:
            data = io.BytesIO(b"BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n")
            await interaction.response.send_message(
                "here", file=discord.File(data, "session.ics"), ephemeral=True
            )

        @tree.command(description="Think, then edit")
        async def think(interaction: discord.Interaction) -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            await interaction.edit_original_response(content="ready", embed=discord.Embed(title="Result"))

        @tree.error
        async def on_error(interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
            self.errors.append(
                error.original if isinstance(error, app_commands.CommandInvokeError) else error
            )
            self.errored.set()
