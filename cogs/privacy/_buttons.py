"""/privacy's two buttons, restart-proof: *Delete my data…* (its scope: the server, or 0 from a DM) opens the
confirmation; the confirmation's *Delete my data* carries the scope, the member it was shown to and when.
A custom id is text any client can send: the service checks the press (bot/services/privacy/actions.py)."""

from __future__ import annotations

from typing import Any

import discord

from bot.client import Interaction, PaperclubBot
from bot.layouts import layout
from bot.replies import send_reply
from bot.services.privacy.actions import Privacy, here
from bot.views import PersistentButton, field
from cogs.privacy import _render as render
from cogs.privacy._follow import Follows


def scope_of(interaction: Interaction) -> int:
    """Where the member is: the server's id, or 0 in a DM with the bot (every server)."""
    return interaction.guild_id or 0


def server_names(bot: PaperclubBot) -> render.ServerName:
    """The servers' names as the bot sees them ("server <id>" for one it no longer sees)."""
    known = {g.id: g.name for g in bot.guilds}
    return lambda guild_id: known.get(guild_id) or f"server {guild_id}"


class AskButton(PersistentButton, prefix="privacy:ask"):
    """*Delete my data…*: the confirmation, listing what deleting does to the presser's data."""

    scope: int = field(r"\d{1,20}", int)
    label = "Delete my data…"
    style = discord.ButtonStyle.danger

    async def pressed(self, interaction: Interaction) -> None:
        here(scope_of(interaction), self.scope)
        bot = interaction.client
        found = await Privacy(bot).overview(interaction.user.id, self.scope)
        names = server_names(bot)
        if found.empty:
            await send_reply(interaction, render.result_nothing(self.scope, names))
            return
        issued = int(bot.clock.now().timestamp())
        confirm = ConfirmButton(self.scope, interaction.user.id, issued)
        text: discord.ui.TextDisplay[Any] = discord.ui.TextDisplay(
            render.confirmation(found, self.scope, names)
        )
        await send_reply(interaction, view=layout(text, discord.ui.ActionRow(confirm)))


class ConfirmButton(PersistentButton, prefix="privacy:delete"):
    """*Delete my data*: deletes the presser's data in one transaction, then the Discord side follows."""

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
            where=scope_of(interaction),
            ready=interaction.response.defer,  # the confirmation becomes the outcome
        )
        text = render.result(done, self.scope, server_names(bot))
        await interaction.edit_original_response(view=layout(discord.ui.TextDisplay(text)))
        cog = bot.get_cog("PrivacyCog")
        if isinstance(cog, Follows):
            cog.follow(done, self.user_id)
