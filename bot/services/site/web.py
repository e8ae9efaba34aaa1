"""The site's aiohttp handlers: Discord-free, given the session factory, the clock and the public address.

Read-only: every route is a GET. A guild's pages exist only while its site is on; anything unknown is the
same plain 404. Every answer is built from the store at the request (so any process's change shows next
time), with a strong ETag answered by 304 and a ``Cache-Control: max-age``. Last-Modified is not sent:
pages shift with the clock and papers carry no change time, so a stored time would keep stale copies alive.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from typing import Any, Final

from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.ids import parse_id
from bot.services.calendars.ics import series_calendars
from bot.services.site import feed_reads, feeds, pages, paper_page, privacy_page, render, views
from bot.services.site.config import LiveSite, SiteConfig, live_site, site_by_slug
from bot.services.site.tokens import owner_of
from db.engine import backend_name, one_statement_session_factory, read_only_session_factory
from db.models.privacy import DEFAULT_GRACE_DAYS

HTML: Final = "text/html"
PAGE_CACHE: Final = "public, max-age=60"
FEED_CACHE: Final = "public, max-age=300"
STATIC_CACHE: Final = "public, max-age=3600"
PERSONAL_CACHE: Final = "private, max-age=300"
MAX_SEARCH_PAGE: Final = 50

PublicUrl = Callable[[], str | None]


def security_headers(response: web.StreamResponse) -> None:
    """Set the site's security headers (CSP, nosniff, referrer policy) on a response."""
    response.headers["Content-Security-Policy"] = render.CSP_HEADER
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers.setdefault("Referrer-Policy", "same-origin")


def etag_of(body: bytes) -> str:
    """A strong ETag: a hash of the body (the same bytes, the same tag, in any process)."""
    return '"' + hashlib.sha256(body).hexdigest()[:40] + '"'


def _matches(header: str, etag: str) -> bool:
    """RFC 9110 §13.1.2: weak comparison, a list of tags, or ``*``."""
    if header.strip() == "*":
        return True
    return any(tag.strip().removeprefix("W/") == etag for tag in header.split(","))


def respond(
    request: web.Request,
    body: bytes,
    content_type: str,
    *,
    cache: str,
    charset: str | None = "utf-8",
) -> web.Response:
    """200 with the body, or 304 when the client already holds it (``If-None-Match``)."""
    etag = etag_of(body)
    headers = {"ETag": etag, "Cache-Control": cache, "Vary": "Accept-Encoding"}
    if _matches(request.headers.get("If-None-Match", ""), etag):
        response = web.Response(status=304, headers=headers)
    else:
        response = web.Response(body=body, content_type=content_type, charset=charset, headers=headers)
    security_headers(response)
    return response


def not_found() -> web.Response:
    """The site's 404 page as a response."""
    response = web.Response(
        status=404, text=render.not_found_html(), content_type=HTML, headers={"Cache-Control": "no-cache"}
    )
    security_headers(response)
    return response


class SiteHandlers:
    """The routes of every guild's site (``/<slug>/…``): each request reads the site (its on/off check and
    display settings, one statement), then what its page shows."""

    def __init__(
        self,
        session_factory: async_sessionmaker[AsyncSession],
        clock: Clock,
        public_url: PublicUrl,
        *,
        grace_days: int = DEFAULT_GRACE_DAYS,
    ) -> None:
        self.session_factory = session_factory
        self.clock = clock
        self.public_url = public_url
        self.grace_days = grace_days  # GUILD_DATA_GRACE_DAYS, said on the privacy page

    def _render(self, live: LiveSite, page: Any, render_page: Callable[..., str]) -> bytes:
        return render_page(page, base_url=self.base_url(live.site)).encode("utf-8")

    def base_url(self, site: SiteConfig) -> str | None:
        """The public address of a site's pages, or None without a public URL."""
        base = self.public_url()
        return f"{base.rstrip('/')}/{site.slug}/" if base else None

    def routes(self) -> web.RouteTableDef:
        """The site's routes: pages, feeds, calendars and static files under each slug."""
        routes = web.RouteTableDef()
        page = self._page
        routes.get(r"/{slug}")(self.bare_slug)
        routes.get(r"/{slug}/")(page(self.home))
        routes.get(r"/{slug}/sessions/{id:[0-9]{1,12}}/")(page(self.session))
        routes.get(r"/{slug}/lists/{id:[0-9]{1,12}}/")(page(self.reading_list))
        routes.get(r"/{slug}/papers/{id:[0-9]{1,12}}/")(page(self.paper))
        routes.get(r"/{slug}/past/")(page(self.archive))
        routes.get(r"/{slug}/past/{n:[0-9]{1,6}}/")(page(self.archive))
        routes.get(r"/{slug}/search")(page(self.search))
        routes.get(r"/{slug}/privacy/")(page(self.privacy))
        routes.get(r"/{slug}/calendar.ics")(page(self.calendar))
        routes.get(r"/{slug}/calendar/{token:[A-Za-z0-9_-]{1,100}}.ics")(page(self.personal_calendar))
        routes.get(r"/{slug}/feed.atom")(page(self.atom))
        routes.get(r"/{slug}/{name:style\.css|site\.js}")(page(self.static))
        routes.get(r"/{slug}/{tail:.*}")(self.unknown)
        return routes

    Handler = Callable[[web.Request, AsyncSession, LiveSite], Awaitable[web.Response | None]]

    def _page(self, handler: Handler) -> Callable[[web.Request], Awaitable[web.Response]]:
        """Look the site up by slug (only enabled sites are found); None from the handler is a 404."""

        async def wrapped(request: web.Request) -> web.Response:
            async with self.session_factory() as session:
                live = await live_site(session, request.match_info["slug"])
                if live is None:
                    return not_found()
                response = await handler(request, session, live)
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
        """Answer an unknown address with the 404 page."""
        return not_found()

    async def home(self, request: web.Request, session: AsyncSession, live: LiveSite) -> web.Response:
        """Serve the club's home page."""
        page = await pages.home_page(session, live.site, self.clock.now(), views.live_display(live))
        return respond(request, self._render(live, page, render.home_html), HTML, cache=PAGE_CACHE)

    async def session(
        self, request: web.Request, session: AsyncSession, live: LiveSite
    ) -> web.Response | None:
        """Serve a session's page (None: not found)."""
        session_id = parse_id(request.match_info["id"])
        if session_id is None:
            return None
        now, display = self.clock.now(), views.live_display(live)
        page = await pages.session_page(session, live.site, session_id, now, display)
        if page is None:
            return None
        return respond(request, self._render(live, page, render.session_html), HTML, cache=PAGE_CACHE)

    async def reading_list(
        self, request: web.Request, session: AsyncSession, live: LiveSite
    ) -> web.Response | None:
        """Serve a reading list's page (None: not found)."""
        list_id = parse_id(request.match_info["id"])
        if list_id is None:
            return None
        page = await pages.list_page(session, live.site, list_id, self.clock.now(), views.live_display(live))
        if page is None:
            return None
        return respond(request, self._render(live, page, render.list_html), HTML, cache=PAGE_CACHE)

    async def paper(self, request: web.Request, session: AsyncSession, live: LiveSite) -> web.Response | None:
        """A paper's page: its card and the club's history with it."""
        paper_id = parse_id(request.match_info["id"])
        if paper_id is None:
            return None
        found = await paper_page.paper_page(
            session, live.site, paper_id, self.clock.now(), views.live_display(live)
        )
        if found is None:
            return None
        return respond(request, self._render(live, found, render.paper_html), HTML, cache=PAGE_CACHE)

    async def archive(
        self, request: web.Request, session: AsyncSession, live: LiveSite
    ) -> web.Response | None:
        """Serve a page of the past sessions archive (None: not found)."""
        number = request.match_info.get("n")
        if number is not None and (number.startswith("0") or number == "1"):
            return None  # one address per page: the first is /past/
        now, display = self.clock.now(), views.live_display(live)
        page = await pages.archive_page(session, live.site, int(number or 1), now, display)
        if page is None:
            return None
        return respond(request, self._render(live, page, render.archive_html), HTML, cache=PAGE_CACHE)

    async def privacy(self, request: web.Request, session: AsyncSession, live: LiveSite) -> web.Response:
        """Serve the privacy page: what the bot keeps, why, how long, how it is deleted."""
        found = await privacy_page.privacy_page(
            session, live.site, self.clock.now(), views.live_display(live), grace_days=self.grace_days
        )
        return respond(request, self._render(live, found, render.privacy_html), HTML, cache=PAGE_CACHE)

    async def search(self, request: web.Request, session: AsyncSession, live: LiveSite) -> web.Response:
        """Serve the search page for ``q``."""
        query = request.query.get("q", "")[:1000]
        raw_page = request.query.get("page", "1")
        number = int(raw_page) if raw_page.isascii() and raw_page.isdigit() and len(raw_page) <= 3 else 1
        page = await pages.search_page(
            session,
            live.site,
            query,
            min(max(number, 1), MAX_SEARCH_PAGE),
            self.clock.now(),
            views.live_display(live),
        )
        html = render.search_html(page, base_url=self.base_url(live.site))
        response = respond(request, html.encode("utf-8"), HTML, cache=PAGE_CACHE)
        response.headers["X-Robots-Tag"] = "noindex"
        return response

    async def calendar(self, request: web.Request, session: AsyncSession, live: LiveSite) -> web.Response:
        """Serve the club's calendar feed, sessions and series."""
        site, now = live.site, self.clock.now()
        infos, changed = await feed_reads.calendar_sessions(session, site.guild_id, now)
        series = await series_calendars(session, site.guild_id, now)
        body = feeds.ics_feed(infos, changed, name=site.title, series=series, base_url=self.base_url(site))
        return respond(request, body, "text/calendar", cache=FEED_CACHE)

    async def personal_calendar(
        self, request: web.Request, session: AsyncSession, live: LiveSite
    ) -> web.Response | None:
        """Serve a member's personal calendar feed, found by its token (None: unknown token)."""
        site = live.site
        user_id = await owner_of(session, site.guild_id, request.match_info["token"])
        if user_id is None:
            return None
        infos, changed = await feed_reads.personal_sessions(session, site.guild_id, user_id, self.clock.now())
        body = feeds.ics_feed(infos, changed, name=f"{site.title}: my sessions", base_url=self.base_url(site))
        response = respond(request, body, "text/calendar", cache=PERSONAL_CACHE)
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Robots-Tag"] = "noindex"
        return response

    async def atom(self, request: web.Request, session: AsyncSession, live: LiveSite) -> web.Response:
        """Serve the club's Atom feed of sessions."""
        display = views.live_display(live)
        view, entries = await feed_reads.atom_entries(session, live.site, self.clock.now(), display=display)
        return respond(request, feeds.atom_feed(view, entries), "application/atom+xml", cache=FEED_CACHE)

    async def static(self, request: web.Request, session: AsyncSession, live: LiveSite) -> web.Response:
        """Serve one of the site's static files."""
        name = request.match_info["name"]
        return respond(request, render.static_file(name), render.STATIC_FILES[name], cache=STATIC_CACHE)


def reader_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """The sessions the site reads with. SQLite: a deferred BEGIN, so a page's several reads see one
    snapshot. PostgreSQL: autocommit, since under READ COMMITTED each statement sees its own snapshot
    inside a transaction too, so a BEGIN and a ROLLBACK around a page's reads are two round trips for
    nothing."""
    if backend_name(engine) == "sqlite":
        return read_only_session_factory(engine)
    return one_statement_session_factory(engine)


def site_routes(
    session_factory: async_sessionmaker[AsyncSession],
    clock: Clock,
    public_url: PublicUrl,
    *,
    grace_days: int = DEFAULT_GRACE_DAYS,
) -> web.RouteTableDef:
    """Every site's routes, for ``WebServer.add_routes`` (or any aiohttp application)."""
    return SiteHandlers(session_factory, clock, public_url, grace_days=grace_days).routes()
