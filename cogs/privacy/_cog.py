"""/privacy and *Delete my data*; the servers the bot leaves and rejoins; the ``privacy.lifetimes`` job."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Final

import discord
from discord import app_commands
from discord.ext import commands

from bot.background import Job, every
from bot.client import Interaction, PaperclubBot
from bot.layouts import Card, escape_line, layout
from bot.replies import send_reply
from bot.services.privacy.actions import Deletion, Overview, Privacy, here
from bot.services.privacy.kinds import MEMBER_KINDS
from bot.services.privacy.rows import SESSION, SUBSCRIPTION, SUGGESTION
from bot.services.sessions import publish
from bot.views import PersistentButton, field
from cogs.sessions.publish import sessions_of

log = logging.getLogger("paperclub.privacy")

JOB: Final = "privacy.lifetimes"
JOB_EVERY: Final = timedelta(hours=1)
COLOUR = discord.Colour.dark_teal()
ServerName = Callable[[int], str]


def where(scope: int, server_name: ServerName) -> str:
    """ "in Paper Club", or "in every server you share with the bot" (a DM's scope, 0)."""
    return f"in {escape_line(server_name(scope), 100)}" if scope else "in every server you share with the bot"


def overview_card(
    found: Overview, scope: int, server_name: ServerName, ask: discord.ui.Item[Any] | None
) -> discord.ui.LayoutView:
    """What the bot keeps about the member: one server's kinds, or (from a DM) each server's counts."""
    place = where(scope, server_name)
    card = Card(accent=COLOUR).heading("What the bot keeps about you", below=place[:1].upper() + place[1:])
    if found.empty:
        card.text(
            "Nothing: no suggestions, votes, offers to present, reminders or feeds of yours, and no session "
            "names you as its presenter."
        )
        return card.view()
    if scope:
        card.text("\n".join(f"- **{kind.name}** · {n} — {kind.what}" for kind, n in found.in_server(scope)))
    else:
        for guild_id in found.servers:
            counts = " · ".join(f"{kind.name} {n}" for kind, n in found.in_server(guild_id))
            card.text(f"**{escape_line(server_name(guild_id), 100)}** — {counts}", group="servers")
        card.more("servers", "servers")
        card.text("\n".join(f"- **{kind.name}** — {kind.what}" for kind in MEMBER_KINDS))
    card.text(
        "-# Server settings, sessions and reading lists are the club's, not yours. Log lines carry ids, "
        "never what you typed."
    )
    if ask is not None:
        card.row([ask])
    return card.view()


def confirmation(found: Overview, scope: int, server_name: ServerName) -> str:
    """What *Delete my data* will do, kind by kind."""
    servers = [scope] if scope else found.servers
    lines = [f"**Delete your data {where(scope, server_name)}?** This cannot be undone."]
    for kind in MEMBER_KINDS:
        if n := sum(found.counts.get(kind.key, {}).get(g, 0) for g in servers):
            lines.append(f"- **{kind.name}** ({n}): {kind.delete}")
    return "\n".join(lines)


def result_nothing(scope: int, server_name: ServerName) -> str:
    """There is nothing of the member's to delete."""
    return f"There is nothing of yours left to delete {where(scope, server_name)}."


def result(done: Deletion, scope: int, server_name: ServerName) -> str:
    """What the deletion did, kind by kind (what stayed, and why)."""
    if not any(e.count or e.kept for e in done.erased.values()):  # nothing was there to delete (or keep)
        return result_nothing(scope, server_name)
    lines = [f"Your data {where(scope, server_name)} is deleted:"]
    for kind in MEMBER_KINDS:
        erased = done.erased[kind.key]
        if erased.count:
            lines.append(f"- **{kind.name}** ({erased.count}): {kind.delete}")
        if erased.kept:
            lines.append(f"- **{kind.name}**: {erased.kept} kept — {kind.kept_note}.")
    return "\n".join(lines)


def server_names(bot: PaperclubBot) -> ServerName:
    """The servers' names as the bot sees them ("server <id>" for one it no longer sees)."""
    known = {g.id: g.name for g in bot.guilds}
    return lambda guild_id: known.get(guild_id) or f"server {guild_id}"


class AskButton(PersistentButton, prefix="privacy:ask"):
    """*Delete my data…* (its scope: the server, or 0 from a DM): the confirmation, listing what it deletes."""

    scope: int = field(r"\d{1,20}", int)
    label = "Delete my data…"
    style = discord.ButtonStyle.danger

    async def pressed(self, interaction: Interaction) -> None:
        here(interaction.guild_id or 0, self.scope)
        bot = interaction.client
        found = await Privacy(bot).overview(interaction.user.id, self.scope)
        names = server_names(bot)
        if found.empty:
            await send_reply(interaction, result_nothing(self.scope, names))
            return
        issued = int(bot.clock.now().timestamp())
        confirm = ConfirmButton(self.scope, interaction.user.id, issued)
        text: discord.ui.TextDisplay[Any] = discord.ui.TextDisplay(confirmation(found, self.scope, names))
        await send_reply(interaction, view=layout(text, discord.ui.ActionRow(confirm)))


class ConfirmButton(PersistentButton, prefix="privacy:delete"):
    """*Delete my data*, carrying the scope, the member it was shown to, and when."""

    scope: int = field(r"\d{1,20}", int)
    user_id: int = field(r"\d{1,20}", int)
    issued: int = field(r"\d{1,12}", int)
    label = "Delete my data"
    style = discord.ButtonStyle.danger

    async def pressed(self, interaction: Interaction) -> None:
        bot = interaction.client
        done = await Privacy(bot).delete(
            self.user_id,
            self.scope,
            self.issued,
            presser=interaction.user.id,
            where=interaction.guild_id or 0,
            ready=interaction.response.defer,  # the confirmation becomes the outcome
        )
        text = result(done, self.scope, server_names(bot))
        await interaction.edit_original_response(view=layout(discord.ui.TextDisplay(text)))
        if isinstance(cog := bot.get_cog("PrivacyCog"), PrivacyCog):
            cog.follow(done, self.user_id)


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

    @app_commands.command(name="privacy", description="What the bot keeps about you here, and deleting it")
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=False)
    @app_commands.allowed_installs(guilds=True, users=False)
    async def privacy(self, interaction: Interaction) -> None:
        """Ephemeral: the caller's data in this server (from a DM: in every server), grouped and counted."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        scope = interaction.guild_id or 0  # 0: a DM with the bot (every server)
        found = await self.flows.overview(interaction.user.id, scope)
        ask = None if found.empty else AskButton(scope)
        await send_reply(interaction, view=overview_card(found, scope, server_names(self.bot), ask))

    def follow(self, done: Deletion, user_id: int) -> None:
        """Bring the Discord side in line with a deletion, in the background (:meth:`settle` waits)."""
        task = asyncio.create_task(self._follow(done, user_id), name=f"privacy-follow-{user_id}")
        self._following.add(task)
        task.add_done_callback(self._following.discard)

    async def _follow(self, done: Deletion, user_id: int) -> None:
        """Tell the features what changed in their rows; publish the sessions that lost their presenter."""
        bot = self.bot
        posts: defaultdict[int, set[int]] = defaultdict(set)
        for change in sorted(done.follow, key=lambda f: (f.guild_id, f.id)):
            if change.what == SUGGESTION:
                posts[change.guild_id].add(change.id)
            elif change.what == SUBSCRIPTION:
                bot.dispatch("session_subscription_changed", change.guild_id, change.id, user_id, False)
        for guild_id, ids in posts.items():
            bot.dispatch("suggestions_changed", guild_id, tuple(sorted(ids)))
        for change in sorted(f for f in done.follow if f.what == SESSION):
            now = bot.clock.now()
            for warning in await publish.saved_by_id(sessions_of(bot), change.guild_id, change.id, now):
                log.warning("session %s without its presenter: %s", change.id, warning)

    async def settle(self) -> None:
        """Wait until the follow-ups of deletions are done (tests, the demo, unload)."""
        while self._following:
            await asyncio.gather(*list(self._following), return_exceptions=True)

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
        """Servers Discord did not list (the bot was removed while offline) are marked left."""
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
