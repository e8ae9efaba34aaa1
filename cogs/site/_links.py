"""Where the site is, seen from Discord: the public address (PUBLIC_URL, else the bot's own web server)."""

from __future__ import annotations

from bot.client import PaperclubBot


def public_base(bot: PaperclubBot) -> str | None:
    """PUBLIC_URL, else the bot's own server (WEB_PORT); None when the site can be reached nowhere."""
    if bot.settings.public_url:
        return bot.settings.public_url
    return bot.web.public_url if bot.web is not None else None
