"""The site served: aiohttp handlers (each a GET with a strong ETag), or written as static files (no search)."""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from aiohttp import web
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.errors import NotConfigured
from bot.ids import parse_id
from bot.services.site import feeds, pages, render
from bot.services.site.config import LiveSite, get_site, live_site, owner_of
from db.engine import backend_name, one_statement_session_factory, read_only_session_factory
from db.models import ClubSession, Paper
from db.models.core import DEFAULT_GRACE_DAYS
from db.models.reading import ReadingList

HTML: Final = "text/html"
PAGE_CACHE: Final = "public, max-age=60"
FEED_CACHE: Final = "public, max-age=300"
STATIC_CACHE: Final = "public, max-age=3600"
PERSONAL_CACHE: Final = "private, max-age=300"
MAX_SEARCH_PAGE: Final = 50

#: The pages found by the id in their address: (folder, its rows' model, read, render).
ID_PAGES: Final = (
    ("sessions", ClubSession, pages.session_page, render.session_html),
    ("lists", ReadingList, pages.list_page, render.list_html),
    ("papers", Paper, pages.paper_page, render.paper_html),
)

PublicUrl = Callable[[], str | None]
Handler = Callable[[web.Request, AsyncSession, LiveSite], Awaitable[web.Response | None]]


def security_headers(response: web.StreamResponse) -> None:
    """Set the site's security headers (CSP, nosniff, referrer policy) on a response."""
    response.headers["Content-Security-Policy"] = render.CSP_HEADER
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers.setdefault("Referrer-Policy", "same-origin")


def respond(request: web.Request, body: bytes, content_type: str, *, cache: str) -> web.Response:
    """200 with the body, or 304 when ``If-None-Match`` holds its ETag (RFC 9110 §13.1.2)."""
    etag = '"' + hashlib.sha256(body).hexdigest()[:40] + '"'
    headers = {"ETag": etag, "Cache-Control": cache, "Vary": "Accept-Encoding"}
    wanted = request.headers.get("If-None-Match", "")
    if wanted.strip() == "*" or any(tag.strip().removeprefix("W/") == etag for tag in wanted.split(",")):
        response = web.Response(status=304, headers=headers)
    else:
        response = web.Response(body=body, content_type=content_type, charset="utf-8", headers=headers)
    security_headers(response)
    return response


def not_found() -> web.Response:
    """The site's 404 page as a response."""
    response = web.Response(
        status=404, text=render.not_found_html(), content_type=HTML, headers={"Cache-Control": "no-cache"}
    )
    security_headers(response)
    return response


@dataclass(frozen=True)
class SiteHandlers:
    """The routes of every guild's site (``/<slug>/…``): the site read first, then its page."""

    session_factory: async_sessionmaker[AsyncSession]
    clock: Clock
    public_url: PublicUrl
    grace_days: int = DEFAULT_GRACE_DAYS  # GUILD_DATA_GRACE_DAYS, said on the privacy page

    def base_url(self, live: LiveSite) -> str | None:
        """The public address of a site's pages, or None without a public URL."""
        base = self.public_url()
        return f"{base.rstrip('/')}/{live.site.slug}/" if base else None

    def _html(
        self, request: web.Request, live: LiveSite, page: Any, show: Callable[..., str]
    ) -> web.Response:
        return respond(request, show(page, base_url=self.base_url(live)).encode(), HTML, cache=PAGE_CACHE)

    def routes(self) -> web.RouteTableDef:
        """The site's routes: pages, feeds, calendars and static files under each slug."""
        routes = web.RouteTableDef()
        routes.get(r"/{slug}")(self._page(self.bare_slug))
        for path, handler in (
            ("/", self.home),
            *(
                (f"/{folder}/{{id:[0-9]{{1,12}}}}/", self._by_id(read, show))
                for folder, _, read, show in ID_PAGES
            ),
            ("/past/", self.archive),
            ("/past/{n:[0-9]{1,6}}/", self.archive),
            ("/search", self.search),
            ("/privacy/", self.privacy),
            ("/calendar.ics", self.calendar),
            ("/calendar/{token:[A-Za-z0-9_-]{1,100}}.ics", self.personal_calendar),
            ("/feed.atom", self.atom),
            (r"/{name:style\.css|site\.js}", self.static),
        ):
            routes.get("/{slug}" + path)(self._page(handler))
        routes.get(r"/{slug}/{tail:.*}")(self.unknown)
        return routes

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

    def _by_id(self, read: Callable[..., Awaitable[Any]], show: Callable[..., str]) -> Handler:
        """A page found by the id in its address (a session, list or paper); None: not the guild's."""

        async def handler(request: web.Request, session: AsyncSession, live: LiveSite) -> web.Response | None:
            found_id = parse_id(request.match_info["id"])
            if found_id is None:
                return None
            page = await read(session, live, found_id, self.clock.now())
            return None if page is None else self._html(request, live, page, show)

        return handler

    async def bare_slug(self, request: web.Request, session: AsyncSession, live: LiveSite) -> web.Response:
        """``/<slug>`` → ``/<slug>/`` for an enabled site only (the target is our own path, never input)."""
        raise web.HTTPMovedPermanently(f"/{live.site.slug}/")

    async def unknown(self, request: web.Request) -> web.Response:
        """Answer an unknown address with the 404 page."""
        return not_found()

    async def home(self, request: web.Request, session: AsyncSession, live: LiveSite) -> web.Response:
        """Serve the club's home page."""
        page = await pages.home_page(session, live, self.clock.now())
        return self._html(request, live, page, render.home_html)

    async def archive(
        self, request: web.Request, session: AsyncSession, live: LiveSite
    ) -> web.Response | None:
        """Serve a page of the past sessions archive (None: not found)."""
        number = request.match_info.get("n")
        if number is not None and (number.startswith("0") or number == "1"):
            return None  # one address per page: the first is /past/
        page = await pages.archive_page(session, live, int(number or 1), self.clock.now())
        return None if page is None else self._html(request, live, page, render.archive_html)

    async def privacy(self, request: web.Request, session: AsyncSession, live: LiveSite) -> web.Response:
        """Serve the privacy page."""
        found = pages.privacy_page(live, self.clock.now(), grace_days=self.grace_days)
        return self._html(request, live, found, render.privacy_html)

    async def search(self, request: web.Request, session: AsyncSession, live: LiveSite) -> web.Response:
        """Serve the search page for ``q``."""
        query = request.query.get("q", "")[:1000]
        raw_page = request.query.get("page", "1")
        number = int(raw_page) if raw_page.isascii() and raw_page.isdigit() and len(raw_page) <= 3 else 1
        number = min(max(number, 1), MAX_SEARCH_PAGE)
        page = await pages.search_page(session, live, query, number, self.clock.now())
        response = self._html(request, live, page, render.search_html)
        response.headers["X-Robots-Tag"] = "noindex"
        return response

    async def calendar(self, request: web.Request, session: AsyncSession, live: LiveSite) -> web.Response:
        """Serve the club's calendar feed, sessions and series."""
        body = await feeds.ics_feed(session, live.site, self.clock.now(), self.base_url(live))
        return respond(request, body, "text/calendar", cache=FEED_CACHE)

    async def personal_calendar(
        self, request: web.Request, session: AsyncSession, live: LiveSite
    ) -> web.Response | None:
        """Serve a member's personal calendar feed, found by its token (None: unknown token)."""
        site = live.site
        user_id = await owner_of(session, site.guild_id, request.match_info["token"])
        if user_id is None:
            return None
        body = await feeds.ics_feed(session, site, self.clock.now(), self.base_url(live), user_id=user_id)
        response = respond(request, body, "text/calendar", cache=PERSONAL_CACHE)
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Robots-Tag"] = "noindex"
        return response

    async def atom(self, request: web.Request, session: AsyncSession, live: LiveSite) -> web.Response:
        """Serve the club's Atom feed of sessions."""
        body = await feeds.atom_feed(session, live, self.clock.now())
        return respond(request, body, "application/atom+xml", cache=FEED_CACHE)

    async def static(self, request: web.Request, session: AsyncSession, live: LiveSite) -> web.Response:
        """Serve one of the site's static files."""
        name = request.match_info["name"]
        return respond(request, render.static_file(name), render.STATIC_FILES[name], cache=STATIC_CACHE)


def reader_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """The site's read sessions: SQLite, a deferred BEGIN (a snapshot a page); PostgreSQL, autocommit."""
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
    return SiteHandlers(session_factory, clock, public_url, grace_days).routes()


@dataclass(frozen=True)
class BuildReport:
    """What a static site build wrote: where, how many files, sessions and lists, for which slug."""

    out_dir: Path
    files: int
    sessions: int
    lists: int
    slug: str


def _write(path: Path, data: bytes) -> None:
    """Whole or not at all: a temporary file beside it, then renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".paperclub-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


async def build_site(
    session_factory: async_sessionmaker[AsyncSession],
    guild_id: int,
    out_dir: Path,
    *,
    now: datetime,
    base_url: str | None = None,
    grace_days: int = DEFAULT_GRACE_DAYS,
) -> BuildReport:
    """Write the guild's site into ``out_dir``; NotConfigured while its website is off."""
    written = 0

    def put(relative: str, data: bytes | str) -> None:
        nonlocal written
        _write(out_dir / relative, data.encode("utf-8") if isinstance(data, str) else data)
        written += 1

    async with session_factory() as session:
        site = await get_site(session, guild_id)
        if not site.live or site.slug is None:
            raise NotConfigured(
                f"server {guild_id} has not turned its website on: run /setup website enabled:True slug:… first"
            )
        live = await live_site(session, site.slug)
        assert live is not None
        home = await pages.home_page(session, live, now)
        put("index.html", render.home_html(home, base_url=base_url, static=True))
        counts = []
        for folder, model, read, show in ID_PAGES:
            ids = list(
                await session.scalars(select(model.id).where(model.guild_id == guild_id).order_by(model.id))
            )
            for row_id in ids:
                page: Any = await read(session, live, row_id, now)
                if page is not None:
                    put(f"{folder}/{row_id}/index.html", show(page, base_url=base_url, static=True))
            counts.append(len(ids))
        number = 1
        while (archive := await pages.archive_page(session, live, number, now)) is not None:
            where = "past/index.html" if number == 1 else f"past/{number}/index.html"
            put(where, render.archive_html(archive, base_url=base_url, static=True))
            number += 1
        kept = pages.privacy_page(live, now, grace_days=grace_days)
        put("privacy/index.html", render.privacy_html(kept, base_url=base_url, static=True))
        put("calendar.ics", await feeds.ics_feed(session, site, now, base_url))
        put("feed.atom", await feeds.atom_feed(session, live, now))
    for name in render.STATIC_FILES:
        put(name, render.static_file(name))
    put("404.html", render.not_found_html())
    return BuildReport(out_dir, written, counts[0], counts[1], site.slug)
