"""/privacy's two buttons, restart-proof: *Delete my data…* (its scope: the server, or 0 from a DM) opens the
confirmation; the confirmation's *Delete my data* carries the scope, the member it was shown to and when.

A custom id is text any client can send, so nothing in it is trusted: the confirmation deletes only the
presser's own data, only when the presser is the member it names, pressed where it was shown, within
:data:`CONFIRM_MINUTES`; anything else is refused and nothing changes. Pressed twice, the second finds
nothing left."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Final

import discord

from bot.client import Interaction, PaperclubBot
from bot.errors import BadInput, NotAllowed
from bot.layouts import layout
from bot.replies import send_reply
from bot.services.privacy.member import erase_member, overview
from bot.services.privacy.rows import Who
from bot.views import PersistentButton, field
from cogs.privacy import _render as render
from cogs.privacy._follow import Follows

CONFIRM_MINUTES: Final = 10
NOT_YOURS: Final = (
    "This confirmation was shown to another member, so nothing was deleted: `/privacy` shows what the bot "
    "keeps about you."
)
ELSEWHERE: Final = (
    "This button belongs to /privacy somewhere else, so nothing was deleted: run `/privacy` here."
)
EXPIRED: Final = f"This confirmation is more than {CONFIRM_MINUTES} minutes old, so nothing was deleted: run `/privacy` again."


def scope_of(interaction: Interaction) -> int:
    """Where the member is: the server's id, or 0 in a DM with the bot (every server)."""
    return interaction.guild_id or 0


def who(user_id: int, scope: int) -> Who:
    """The member's data in the server ``scope``, or in every server (0)."""
    return Who(user_id, frozenset({scope}) if scope else None)


def server_names(bot: PaperclubBot) -> render.ServerName:
    """The servers' names as the bot sees them."""
    return render.server_names([(g.id, g.name) for g in bot.guilds])


def _here(interaction: Interaction, scope: int) -> None:
    if scope_of(interaction) != scope:
        raise NotAllowed(ELSEWHERE)


class AskButton(PersistentButton, prefix="privacy:ask"):
    """*Delete my data…*: the confirmation, listing what deleting does to the presser's data."""

    scope: int = field(r"\d{1,20}", int)
    label = "Delete my data…"
    style = discord.ButtonStyle.danger

    async def pressed(self, interaction: Interaction) -> None:
        _here(interaction, self.scope)
        bot = interaction.client
        async with bot.session_factory() as session:
            found = await overview(session, who(interaction.user.id, self.scope))
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
        if interaction.user.id != self.user_id:
            raise NotAllowed(NOT_YOURS)
        _here(interaction, self.scope)
        bot = interaction.client
        now = bot.clock.now()
        age = now.timestamp() - self.issued
        if not 0 <= age <= timedelta(minutes=CONFIRM_MINUTES).total_seconds():
            raise BadInput(EXPIRED)
        await interaction.response.defer()  # the confirmation becomes the outcome
        async with bot.session_factory() as session, session.begin():
            done = await erase_member(session, who(self.user_id, self.scope), now)
        text = render.result(done, self.scope, server_names(bot))
        await interaction.edit_original_response(view=layout(discord.ui.TextDisplay(text)))
        cog = bot.get_cog("PrivacyCog")
        if isinstance(cog, Follows):
            cog.follow(done, self.user_id)
