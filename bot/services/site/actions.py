"""Each website action from Discord as one call over the host's store."""

from __future__ import annotations

from aiohttp import web

from bot.clock import Host
from bot.errors import NotConfigured
from bot.services.calendars import ics
from bot.services.site import config as site_config
from bot.services.site.config import Issued, SiteConfig, issue
from bot.services.site.web import PublicUrl, reader_session_factory, site_routes
from db.models.core import DEFAULT_GRACE_DAYS

OFF = "This server's website is off, so there is no calendar feed yet: an admin turns it on with `/setup website`."
UNREACHABLE = "The website has no address yet: the bot's host sets WEB_PORT (and PUBLIC_URL) to serve it."


class Site:
    """The website's flows over the host's store (``base``: where the site is served, None for nowhere)."""

    def __init__(self, host: Host) -> None:
        self.host = host

    def routes(self, public_url: PublicUrl, *, grace_days: int = DEFAULT_GRACE_DAYS) -> web.RouteTableDef:
        """Every site's routes for the bot's web server (pages only read: no SQLite write lock)."""
        readers = reader_session_factory(self.host.engine)
        return site_routes(readers, self.host.clock, public_url, grace_days=grace_days)

    async def site(self, guild_id: int) -> SiteConfig:
        """The server's website settings."""
        async with self.host.session_factory() as session:
            return await site_config.get_site(session, guild_id)

    async def session_url(self, base: str | None, guild_id: int, session_id: int) -> str | None:
        """The session's page, or None while the guild's website is off (or unreachable)."""
        if base is None:
            return None
        return site_config.site_url(base, await self.site(guild_id), f"sessions/{session_id}/")

    async def calendar_file(self, guild_id: int, name: str) -> tuple[bytes, int]:
        """/calendar file: every upcoming session as one .ics, and how many there are."""
        return await ics.guild_calendar(self.host.session_factory, guild_id, self.host.clock.now(), name=name)

    async def feed(
        self, base: str | None, guild_id: int, user_id: int, *, reset: bool
    ) -> tuple[str | None, Issued]:
        """The member's calendar feed: its address when new (None: they have one), made or ``reset``."""
        async with self.host.session_factory() as session, session.begin():
            site = await site_config.get_site(session, guild_id)
            if not site.live:
                raise NotConfigured(OFF)
            if base is None:
                raise NotConfigured(UNREACHABLE)
            issued = await issue(session, guild_id, user_id, now=self.host.clock.now(), reset=reset)
        url = None if issued.token is None else f"{base.rstrip('/')}/{site.slug}/calendar/{issued.token}.ics"
        return url, issued

    async def set_website(
        self, guild_id: int, enabled: bool, slug: str | None, title: str | None
    ) -> SiteConfig:
        """Turn the guild's website on or off (with its slug)."""
        async with self.host.session_factory() as session, session.begin():
            return await site_config.set_website(
                session, guild_id, enabled=enabled, slug=slug, title=title, now=self.host.clock.now()
            )

    async def set_about(self, guild_id: int, text: str | None) -> SiteConfig:
        """Save (or clear) the website's "How the club runs" text."""
        async with self.host.session_factory() as session, session.begin():
            return await site_config.set_about(session, guild_id, text, now=self.host.clock.now())
