"""/calendar file, link and reset; the site's routes on the bot's web server; the Session page links."""

from __future__ import annotations

import io
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, PaperclubBot
from bot.layouts import link_button
from bot.permissions import require_guild_id
from bot.replies import send_ephemeral
from bot.services.sessions.info import SessionInfo
from bot.services.site.actions import Site
from cogs.sessions.buttons import announcement_buttons
from cogs.site.settings import public_base


@app_commands.guild_only()
class SiteCog(
    commands.GroupCog, group_name="calendar", group_description="The club's sessions in your calendar"
):
    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot
        self.site = Site(bot)
        super().__init__()

    async def cog_load(self) -> None:
        """Link each session's page from its announcement; serve the site on the bot's web server."""
        announcement_buttons(self.bot).links.append(self.session_page_link)
        if self.bot.web is not None:
            web = self.bot.web  # its public_url is PUBLIC_URL, else its own address once it listens
            grace = self.bot.settings.guild_data_grace_days  # said on the privacy page
            web.add_routes(self.site.routes(lambda: web.public_url, grace_days=grace))

    async def cog_unload(self) -> None:
        """Stop linking the session pages."""
        announcement_buttons(self.bot).links.remove(self.session_page_link)

    async def session_page_link(self, info: SessionInfo) -> discord.ui.Item[Any] | None:
        """The session's page, while the server's website is on (kept once the session is over)."""
        url = await self.site.session_url(public_base(self.bot), info.guild_id, info.id)
        return link_button(url, "Session page")

    async def _feed(self, interaction: Interaction, *, reset: bool) -> None:
        url, issued = await self.site.feed(
            public_base(self.bot), require_guild_id(interaction), interaction.user.id, reset=reset
        )
        if issued.token is None:
            made = issued.created_at
            day = f"{made.day} {made:%B %Y}"
            await send_ephemeral(
                interaction,
                f"You already have a personal calendar feed (made {day}). Its address is secret and only a "
                "fingerprint of it is kept, so I can't show it again: `/calendar reset` gives you a new one "
                "(the old one stops working).",
            )
            return
        if issued.replaced:
            lead = "Your new personal calendar feed (the old address no longer works):"
        else:
            lead = "Your personal calendar feed: the sessions you asked to be reminded of (**Remind me** or `/remind me`)."
        await send_ephemeral(
            interaction,
            f"{lead}\n<{url}>\nSubscribe to it in your calendar app (Google Calendar: Other calendars → From URL; "
            "Apple Calendar: File → New Calendar Subscription). "
            "Keep it to yourself: anyone with the address sees your sessions. I show it only now; "
            "`/calendar reset` replaces it.",
        )

    @app_commands.command(name="file", description="A calendar file (.ics) of all upcoming sessions")
    async def file(self, interaction: Interaction) -> None:
        name = interaction.guild.name if interaction.guild else "Paper club"
        data, count = await self.site.calendar_file(require_guild_id(interaction), name[:100])
        await send_ephemeral(
            interaction,
            f"{count} upcoming session{'s' if count != 1 else ''}. Open the file to add them to your calendar; "
            "importing it again later updates them.",
            file=discord.File(io.BytesIO(data), filename="paperclub-sessions.ics"),
        )

    @app_commands.command(
        name="link", description="Your personal calendar feed of the sessions you're reminded of"
    )
    async def link(self, interaction: Interaction) -> None:
        await self._feed(interaction, reset=False)

    @app_commands.command(
        name="reset", description="A new address for your calendar feed; the old one stops working"
    )
    async def reset(self, interaction: Interaction) -> None:
        await self._feed(interaction, reset=True)
