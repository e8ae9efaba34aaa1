"""Where the site is, seen from Discord: the public address (PUBLIC_URL, else the bot's own web server)
and a session's page, when the guild's website is on."""

from __future__ import annotations

from bot.client import PaperclubBot
from bot.services.site.config import SiteConfig, get_site, session_page_url


def public_base(bot: PaperclubBot) -> str | None:
    """PUBLIC_URL, else the bot's own server (WEB_PORT); None when the site can be reached nowhere."""
    if bot.settings.public_url:
        return bot.settings.public_url
    return bot.web.public_url if bot.web is not None else None


async def guild_site(bot: PaperclubBot, guild_id: int) -> SiteConfig:
    """The server's website settings."""
    async with bot.session_factory() as session:
        return await get_site(session, guild_id)


async def session_url(bot: PaperclubBot, guild_id: int, session_id: int) -> str | None:
    """The session's page, or None while the guild's website is off (or unreachable)."""
    base = public_base(bot)
    if base is None:
        return None
    return session_page_url(base, await guild_site(bot, guild_id), session_id)
