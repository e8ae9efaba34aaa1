"""/calendar link and /calendar reset (ephemeral): a member's personal calendar feed; the site's routes on
the bot's web server (added in cog_load, before the bot starts the server); the Session page link on
sessions' announcements and cards."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, PaperclubBot
from bot.errors import NotConfigured
from bot.permissions import require_guild_id
from bot.replies import send_ephemeral
from bot.services.sessions.info import SessionInfo
from bot.services.site import tokens
from bot.services.site.config import get_site
from bot.services.site.web import SiteHandlers, reader_session_factory
from cogs.sessions import announcement_buttons
from cogs.site._links import public_base, session_url

OFF = "This server's website is off, so there is no calendar feed yet: an admin turns it on with `/setup website`."
UNREACHABLE = "The website has no address yet: the bot's host sets WEB_PORT (and PUBLIC_URL) to serve it."


@app_commands.guild_only()
class SiteCog(
    commands.GroupCog, group_name="calendar", group_description="Your own calendar feed of sessions"
):
    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot
        super().__init__()

    async def cog_load(self) -> None:
        """Link each session's page from its announcement; serve the site on the bot's web server."""
        announcement_buttons.of(self.bot).add_link(self.session_page_link)
        if self.bot.web is not None:
            web = self.bot.web  # its public_url is PUBLIC_URL, else its own address once it listens
            readers = reader_session_factory(self.bot.engine)  # pages only read: no SQLite write lock
            grace = self.bot.settings.guild_data_grace_days  # said on the privacy page
            web.add_routes(
                SiteHandlers(readers, self.bot.clock, lambda: web.public_url, grace_days=grace).routes()
            )

    async def cog_unload(self) -> None:
        """Stop linking the session pages."""
        announcement_buttons.of(self.bot).remove(self.session_page_link)

    async def session_page_link(self, info: SessionInfo) -> discord.ui.Item[Any] | None:
        """The session's page, while the server's website is on: kept once the session is over (its
        recording and notes are there)."""
        url = await session_url(self.bot, info.guild_id, info.id)
        if url is None:
            return None
        return discord.ui.Button(label="Session page", style=discord.ButtonStyle.link, url=url)

    async def _feed(self, interaction: Interaction, *, reset: bool) -> None:
        guild_id = require_guild_id(interaction)
        base = public_base(self.bot)
        async with self.bot.session_factory() as session, session.begin():
            site = await get_site(session, guild_id)
            if not site.live:
                raise NotConfigured(OFF)
            if base is None:
                raise NotConfigured(UNREACHABLE)
            issued = await tokens.issue(
                session, guild_id, interaction.user.id, now=self.bot.clock.now(), reset=reset
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
        url = f"{base.rstrip('/')}/{site.slug}/calendar/{issued.token}.ics"
        lead = (
            "Your new personal calendar feed (the old address no longer works):"
            if issued.replaced
            else (
                "Your personal calendar feed: the sessions you asked to be reminded of (**Remind me** or `/remind me`)."
            )
        )
        await send_ephemeral(
            interaction,
            f"{lead}\n<{url}>\nSubscribe to it in your calendar app (Google Calendar: Other calendars → From URL; "
            "Apple Calendar: File → New Calendar Subscription). "
            "Keep it to yourself: anyone with the address sees your sessions. I show it only now; "
            "`/calendar reset` replaces it.",
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
