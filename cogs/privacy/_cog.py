"""/privacy: what the bot keeps about the caller, and *Delete my data*, in a server or (every server) from a
DM with the bot; the servers the bot leaves and rejoins; the ``privacy.lifetimes`` job."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from typing import Final

import discord
from discord import app_commands
from discord.ext import commands

from bot.background import Job, every
from bot.client import Interaction, PaperclubBot
from bot.replies import send_reply
from bot.services.privacy.actions import Privacy
from bot.services.privacy.member import Deletion
from cogs.privacy import _render as render
from cogs.privacy._buttons import AskButton, ConfirmButton, scope_of, server_names
from cogs.privacy._follow import follow

log = logging.getLogger("paperclub.privacy")

JOB: Final = "privacy.lifetimes"
JOB_EVERY: Final = timedelta(hours=1)


class PrivacyCog(commands.Cog):
    """/privacy and its buttons; marks the servers the bot leaves (and rejoins); runs the lifetimes job."""

    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot
        self.flows = Privacy(bot)
        self._following: set[asyncio.Task[None]] = set()
        self._noted: dict[int, asyncio.Event] = {}
        self.reconciled = asyncio.Event()  # set once start-up's look at the servers is recorded (tests)

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(AskButton, ConfirmButton)
        await self.bot.background.add(Job(JOB, every(JOB_EVERY), self.lifetimes, run_at_start=False))

    async def cog_unload(self) -> None:
        await self.bot.background.remove(JOB)
        self.bot.remove_dynamic_items(AskButton, ConfirmButton)
        await self.settle()

    # ------------------------------------------------------------------ /privacy

    @app_commands.command(name="privacy", description="What the bot keeps about you here, and deleting it")
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=False)
    @app_commands.allowed_installs(guilds=True, users=False)
    async def privacy(self, interaction: Interaction) -> None:
        """Ephemeral: the caller's data in this server (from a DM: in every server), grouped and counted."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        scope = scope_of(interaction)
        found = await self.flows.overview(interaction.user.id, scope)
        ask = None if found.empty else AskButton(scope)
        await send_reply(interaction, view=render.overview_card(found, scope, server_names(self.bot), ask))

    # ------------------------------------------------------------------ after a deletion

    def follow(self, done: Deletion, user_id: int) -> None:
        """Bring the Discord side in line with a deletion, in the background (:meth:`settle` waits)."""
        task = asyncio.create_task(follow(self.bot, done, user_id), name=f"privacy-follow-{user_id}")
        self._following.add(task)
        task.add_done_callback(self._following.discard)

    async def settle(self) -> None:
        """Wait until the follow-ups of deletions are done (tests, the demo, unload)."""
        while self._following:
            await asyncio.gather(*list(self._following), return_exceptions=True)

    # ------------------------------------------------------------------ servers the bot leaves

    def noted(self, guild_id: int) -> asyncio.Event:
        """Set each time the bot's leaving or joining the server has been recorded (tests, the demo)."""
        return self._noted.setdefault(guild_id, asyncio.Event())

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """Removed from a server (GUILD_DELETE without ``unavailable``): its grace period begins."""
        await self.flows.left(guild.id)
        self.noted(guild.id).set()
        log.info(
            "guild %s: the bot was removed; its data is deleted in %d days unless the bot is added back",
            guild.id,
            self.bot.settings.guild_data_grace_days,
        )

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        """Added (back) to a server: whatever it holds is kept."""
        back = await self.flows.back(guild.id)
        self.noted(guild.id).set()
        if back:
            log.info("guild %s: the bot is back within the grace period; its data is kept", guild.id)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Every server Discord listed is kept; one of our shards' the store knows but Discord did not list
        removed the bot while it was offline: marked left now."""
        present = {guild.id for guild in self.bot.guilds}
        gone = await self.flows.reconcile(present, self._ours)
        for guild_id in sorted(gone):
            log.info("guild %s: not among the bot's servers at start-up; marked as left", guild_id)
        self.reconciled.set()

    def _ours(self, guild_id: int) -> bool:
        """Whether the server is on one of this process's shards."""
        count = self.bot.shard_count
        if not count:
            return True
        ours = {state.shard_id for state in self.bot.shard_states()}
        return (guild_id >> 22) % count in ours

    # ------------------------------------------------------------------ the lifetimes job

    async def lifetimes(self, now: datetime) -> None:
        """Delete what is past its lifetime, and the data of servers left more than the grace period ago."""
        done = await self.flows.lifetimes(
            now,
            grace=timedelta(days=self.bot.settings.guild_data_grace_days),
            running=set(self.bot.background.jobs),
        )
        if any(done.expired.values()):
            deleted = ", ".join(f"{n} {table}" for table, n in sorted(done.expired.items()) if n)
            log.info("lifetimes: deleted %s", deleted)
