"""The site's aiohttp handlers: Discord-free, given the session factory, the clock and the public address.

They live with the service (not in ``cogs/site``) because nothing here touches Discord: the bot mounts
them on its web server (``cogs/site``), and the bench and the tests serve them with no bot at all.

Read-only by construction: every route is a GET (aiohttp answers HEAD for it too, and 405 for any other
method). A guild's pages exist only while its site is on; an unknown slug, session, list or page is the
same plain 404 page. Every answer carries a strong ETag (the SHA-256 of its body) and answers a matching
``If-None-Match`` with 304, so feed readers and calendar apps poll cheaply. Last-Modified is not sent:
pages shift with the clock (a session moves from "next" to "read") and papers carry no change time, so
no stored time says when a page last changed, and a wrong one would keep stale copies alive.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Awaitable, Callable
from typing import Final

from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.ids import parse_id
from bot.services.site import feeds, pages, render
from bot.services.site.config import SiteConfig, site_by_slug
from bot.services.site.tokens import owner_of

HTML: Final = "text/html"
PAGE_CACHE: Final = "public, max-age=60"
FEED_CACHE: Final = "public, max-age=300"
STATIC_CACHE: Final = "public, max-age=3600"
PERSONAL_CACHE: Final = "private, max-age=300"
MAX_SEARCH_PAGE: Final = 50

PublicUrl = Callable[[], str | None]


def security_headers(response: web.StreamResponse) -> None:
    response.headers["Content-Security-Policy"] = render.CSP_HEADER
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers.setdefault("Referrer-Policy", "same-origin")


def etag_of(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:40] + '"'


def _matches(header: str, etag: str) -> bool:
    """RFC 9110 §13.1.2: weak comparison, a list of tags, or ``*``."""
    if header.strip() == "*":
        return True
    return any(tag.strip().removeprefix("W/") == etag for tag in header.split(","))


def respond(
    request: web.Request, body: bytes, content_type: str, *, cache: str, charset: str | None = "utf-8"
) -> web.Response:
    """200 with the body, or 304 when the client already holds it."""
    etag = etag_of(body)
    headers = {"ETag": etag, "Cache-Control": cache, "Vary": "Accept-Encoding"}
    if _matches(request.headers.get("If-None-Match", ""), etag):
        response = web.Response(status=304, headers=headers)
    else:
        response = web.Response(body=body, content_type=content_type, charset=charset, headers=headers)
    security_headers(response)
    return response


def not_found() -> web.Response:
    response = web.Response(
        status=404, text=render.not_found_html(), content_type=HTML, headers={"Cache-Control": "no-cache"}
    )
    security_headers(response)
    return response


class SiteHandlers:
    """The routes of every guild's site (``/<slug>/…``).

    ``cache_seconds`` (0: off) keeps the home page and the two feeds, the pages every reader and calendar
    app polls, for that long in this process after building them from the store: within the freshness
    their Cache-Control already grants (60 s and 300 s). The site's on/off check runs on every request
    before the cache, so a site turned off stops at once. Session, list, archive and search pages are
    always built from the store.
    """

    def __init__(
        self,
        session_factory: async_sessionmaker[AsyncSession],
        clock: Clock,
        public_url: PublicUrl,
        *,
        cache_seconds: float = 0.0,
    ) -> None:
        self.session_factory = session_factory
        self.clock = clock
        self.public_url = public_url
        self.cache_seconds = cache_seconds
        self._cache: dict[tuple[int, str], tuple[float, bytes]] = {}

    def forget(self, guild_id: int) -> None:
        """Drop a guild's kept pages (the bot calls this when it changes that guild's sessions or site)."""
        for key in [k for k in self._cache if k[0] == guild_id]:
            del self._cache[key]

    async def _cached(self, site: SiteConfig, name: str, build: Callable[[], Awaitable[bytes]]) -> bytes:
        if self.cache_seconds <= 0:
            return await build()
        key = (site.guild_id, name)
        now = time.monotonic()
        hit = self._cache.get(key)
        if hit is not None and now - hit[0] < self.cache_seconds:
            return hit[1]
        body = await build()
        if len(self._cache) > 10_000:  # many clubs: drop the oldest half rather than grow without bound
            for old in sorted(self._cache, key=lambda k: self._cache[k][0])[: len(self._cache) // 2]:
                del self._cache[old]
        self._cache[key] = (now, body)
        return body

    def base_url(self, site: SiteConfig) -> str | None:
        base = self.public_url()
        return f"{base.rstrip('/')}/{site.slug}/" if base else None

    def routes(self) -> web.RouteTableDef:
        routes = web.RouteTableDef()
        page = self._page
        routes.get(r"/{slug}")(self.bare_slug)
        routes.get(r"/{slug}/")(page(self.home))
        routes.get(r"/{slug}/sessions/{id:[0-9]{1,12}}/")(page(self.session))
        routes.get(r"/{slug}/lists/{id:[0-9]{1,12}}/")(page(self.reading_list))
        routes.get(r"/{slug}/past/")(page(self.archive))
        routes.get(r"/{slug}/past/{n:[0-9]{1,6}}/")(page(self.archive))
        routes.get(r"/{slug}/search")(page(self.search))
        routes.get(r"/{slug}/calendar.ics")(page(self.calendar))
        routes.get(r"/{slug}/calendar/{token:[A-Za-z0-9_-]{1,100}}.ics")(page(self.personal_calendar))
        routes.get(r"/{slug}/feed.atom")(page(self.atom))
        routes.get(r"/{slug}/{name:style\.css|site\.js}")(page(self.static))
        routes.get(r"/{slug}/{tail:.*}")(self.unknown)
        return routes

    Handler = Callable[[web.Request, AsyncSession, SiteConfig], Awaitable[web.Response | None]]

    def _page(self, handler: Handler) -> Callable[[web.Request], Awaitable[web.Response]]:
        """Look the site up by slug (only enabled sites are found); None from the handler is a 404."""

        async def wrapped(request: web.Request) -> web.Response:
            async with self.session_factory() as session:
                site = await site_by_slug(session, request.match_info["slug"])
                if site is None:
                    return not_found()
                response = await handler(request, session, site)
            return response if response is not None else not_found()

        return wrapped

    async def bare_slug(self, request: web.Request) -> web.Response:
        """``/<slug>`` → ``/<slug>/`` for an enabled site only (the target is our own path, never input)."""
        async with self.session_factory() as session:
            site = await site_by_slug(session, request.match_info["slug"])
        if site is None:
            return not_found()
        raise web.HTTPMovedPermanently(f"/{site.slug}/")

    async def unknown(self, request: web.Request) -> web.Response:
        return not_found()

    def _html(self, request: web.Request, html: str) -> web.Response:
        return respond(request, html.encode("utf-8"), HTML, cache=PAGE_CACHE)

    async def home(self, request: web.Request, session: AsyncSession, site: SiteConfig) -> web.Response:
        async def build() -> bytes:
            data = await pages.home_page(session, site, self.clock.now())
            return render.home_html(data, base_url=self.base_url(site)).encode("utf-8")

        return respond(request, await self._cached(site, "home", build), HTML, cache=PAGE_CACHE)

    async def session(
        self, request: web.Request, session: AsyncSession, site: SiteConfig
    ) -> web.Response | None:
        session_id = parse_id(request.match_info["id"])
        if session_id is None:
            return None
        data = await pages.session_page(session, site, session_id, self.clock.now())
        return (
            None
            if data is None
            else self._html(request, render.session_html(data, base_url=self.base_url(site)))
        )

    async def reading_list(
        self, request: web.Request, session: AsyncSession, site: SiteConfig
    ) -> web.Response | None:
        list_id = parse_id(request.match_info["id"])
        data = None if list_id is None else await pages.list_page(session, site, list_id)
        return (
            None
            if data is None
            else self._html(request, render.list_html(data, base_url=self.base_url(site)))
        )

    async def archive(
        self, request: web.Request, session: AsyncSession, site: SiteConfig
    ) -> web.Response | None:
        number = request.match_info.get("n")
        if number is not None and (number.startswith("0") or number == "1"):
            return None  # one address per page: the first is /past/
        data = await pages.archive_page(session, site, int(number or 1), self.clock.now())
        return (
            None
            if data is None
            else self._html(request, render.archive_html(data, base_url=self.base_url(site)))
        )

    async def search(self, request: web.Request, session: AsyncSession, site: SiteConfig) -> web.Response:
        query = request.query.get("q", "")[:1000]
        raw_page = request.query.get("page", "1")
        number = int(raw_page) if raw_page.isascii() and raw_page.isdigit() and len(raw_page) <= 3 else 1
        data = await pages.search_page(
            session, site, query, min(max(number, 1), MAX_SEARCH_PAGE), self.clock.now()
        )
        response = self._html(request, render.search_html(data, base_url=self.base_url(site)))
        response.headers["X-Robots-Tag"] = "noindex"
        return response

    async def calendar(self, request: web.Request, session: AsyncSession, site: SiteConfig) -> web.Response:
        async def build() -> bytes:
            infos, changed = await pages.calendar_sessions(session, site.guild_id, self.clock.now())
            return feeds.ics_feed(infos, changed, name=site.title)

        return respond(request, await self._cached(site, "ics", build), "text/calendar", cache=FEED_CACHE)

    async def personal_calendar(
        self, request: web.Request, session: AsyncSession, site: SiteConfig
    ) -> web.Response | None:
        user_id = await owner_of(session, site.guild_id, request.match_info["token"])
        if user_id is None:
            return None
        infos, changed = await pages.personal_sessions(session, site.guild_id, user_id, self.clock.now())
        body = feeds.ics_feed(infos, changed, name=f"{site.title}: my sessions")
        response = respond(request, body, "text/calendar", cache=PERSONAL_CACHE)
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Robots-Tag"] = "noindex"
        return response

    async def atom(self, request: web.Request, session: AsyncSession, site: SiteConfig) -> web.Response:
        async def build() -> bytes:
            view, entries = await pages.atom_entries(session, site, self.clock.now())
            return feeds.atom_feed(view, entries)

        body = await self._cached(site, "atom", build)
        return respond(request, body, "application/atom+xml", cache=FEED_CACHE)

    async def static(self, request: web.Request, session: AsyncSession, site: SiteConfig) -> web.Response:
        name = request.match_info["name"]
        return respond(request, render.static_file(name), render.STATIC_FILES[name], cache=STATIC_CACHE)


#: What the bot uses (tests and `site build` use 0: every answer straight from the store).
BOT_CACHE_SECONDS: Final = 15.0


def site_routes(
    session_factory: async_sessionmaker[AsyncSession],
    clock: Clock,
    public_url: PublicUrl,
    *,
    cache_seconds: float = 0.0,
) -> web.RouteTableDef:
    """Every site's routes, for ``WebServer.add_routes`` (or any aiohttp application)."""
    return SiteHandlers(session_factory, clock, public_url, cache_seconds=cache_seconds).routes()
