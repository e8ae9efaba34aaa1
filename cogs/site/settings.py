"""What /setup website and /setup about do (declared in cogs/setup); Manage Server is checked again here."""

from __future__ import annotations

import discord

from bot.client import Interaction, PaperclubBot
from bot.permissions import ensure_manager
from bot.replies import send_ephemeral
from bot.services.site import config as site_config
from bot.services.site.actions import Site
from bot.services.site.config import MAX_ABOUT, SiteConfig
from bot.views import PaperclubModal


def public_base(bot: PaperclubBot) -> str | None:
    """PUBLIC_URL, else the bot's own server (WEB_PORT); None when the site can be reached nowhere."""
    if bot.settings.public_url:
        return bot.settings.public_url
    return bot.web.public_url if bot.web is not None else None


def show_field(bot: PaperclubBot, site: SiteConfig) -> str:
    """The Website line of /setup show and of the replies here."""
    if not site.live:
        return f"off (address `/{site.slug}/` kept)" if site.slug else "off"
    url = site_config.site_url(public_base(bot), site)
    if url is None:
        return f"on at `/{site.slug}/`, but not served: set WEB_PORT (and PUBLIC_URL) on the bot's host"
    return f"on: {url}"


async def set_website(interaction: Interaction, enabled: bool, slug: str | None) -> None:
    """Turn the guild's website on or off (with its slug) and say what that means."""
    guild_id = ensure_manager(interaction)
    bot = interaction.client
    title = interaction.guild.name if interaction.guild is not None else None
    site = await Site(bot).set_website(guild_id, enabled, slug, title)
    status = show_field(bot, site)
    extra = (
        " Announcements and `/session show` now link each session's page; members get their own calendar "
        "feed with `/calendar link`."
        if site.live
        else " Nothing of this server is served now."
    )
    await send_ephemeral(interaction, f"Website {status}.{extra}")


class AboutModal(PaperclubModal, title="How the club runs"):
    """The form for the website's "How the club runs" text."""

    text: discord.ui.TextInput[AboutModal] = discord.ui.TextInput(
        label="How it runs (Markdown: lists, links, bold)",
        custom_id="site_about:text",
        style=discord.TextStyle.paragraph,
        required=False,
        max_length=MAX_ABOUT,
    )

    def __init__(self, current: str | None) -> None:
        super().__init__()
        self.text.default = current

    async def submitted(self, interaction: Interaction) -> None:
        """Save the text the manager submitted."""
        await save_about(interaction, self.text.value)


async def save_about(interaction: Interaction, text: str | None) -> None:
    """Save (or clear) the website's "How the club runs" text and say where it shows."""
    site = await Site(interaction.client).set_about(ensure_manager(interaction), text)
    shown = "cleared" if site.about is None else f"saved ({len(site.about)} characters)"
    where = "" if site.live else " It shows once the website is on (`/setup website`)."
    await send_ephemeral(interaction, f"The “How it runs” text is {shown}.{where}")


async def set_about(interaction: Interaction, text: str | None) -> None:
    """With ``text``: save it. Without: a form holding the current text (Markdown needs line breaks)."""
    if text is not None:
        await save_about(interaction, text)
        return
    site = await Site(interaction.client).site(ensure_manager(interaction))
    await interaction.response.send_modal(AboutModal(site.about))
