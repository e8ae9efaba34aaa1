"""HTML for the site's pages: Jinja2 templates (``templates/``, shipped as package data) with autoescaping
on for every template, so each member-typed text (titles, descriptions, names, notes, reasons) is escaped,
in attributes too (the link previews' ``<meta>`` tags). The only markup not escaped is markdown-it's output
for the intro and "How it runs" (raw HTML off, see :mod:`markdown`), the search snippets' highlight, which
is escaped first and then marked, and a session's schema.org ``Event`` (JSON with ``<``, ``>`` and ``&``
written as unicode escapes, so no text can close its ``<script>`` block or open a comment).

Every page links relatively (``root`` is the way back to ``/<slug>/``), so the same HTML is served by the
bot and written by ``paperclub site build`` for a static host.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from importlib import resources
from typing import Any, Final

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

from bot.services.reading.hits import MARK_CLOSE, MARK_OPEN
from bot.services.site.embeds import FRAME_SOURCES
from bot.services.site.markdown import plain_text, render_markdown
from bot.services.site.paper_page import PaperPage
from bot.services.site.privacy_page import PrivacyPage
from bot.services.site.sentences import plain
from bot.services.site.views import (
    ArchivePage,
    HomePage,
    ListPage,
    SearchPage,
    SessionPage,
    SessionView,
    SiteView,
    SkippedWeek,
)
from bot.text import one_line

_FRAMES = " ".join(FRAME_SOURCES)
#: The pages run their own script and stylesheet only; embeds may come from the three video hosts.
CSP_META: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    f"frame-src {_FRAMES}; base-uri 'none'; form-action 'self'"
)
#: The header adds what a <meta> cannot carry (frame-ancestors).
CSP_HEADER: Final = CSP_META + "; frame-ancestors 'none'"
STATIC_FILES: Final = {"style.css": "text/css", "site.js": "text/javascript"}
DESCRIPTION_LIMIT: Final = 200  # a link preview's line (Discord shows about this much)
ONLINE: Final = "https://schema.org/OnlineEventAttendanceMode"
#: What JSON may hold but a <script> block may not show raw: each written as its \u escape.
_JSON_ESCAPES: Final = {
    ord("<"): "\\u003c",
    ord(">"): "\\u003e",
    ord("&"): "\\u0026",
    0x2028: "\\u2028",
    0x2029: "\\u2029",
}


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _inline(text: str) -> Markup:
    """The bot's own short Markdown (emphasis, code) as inline HTML, through the site's safe renderer."""
    html = render_markdown(text).strip()
    return Markup(html.removeprefix("<p>").removesuffix("</p>"))


def _marked(text: str) -> Markup:
    """A search snippet: escaped, then the matched words in <mark>."""
    return Markup(str(escape(text)).replace(MARK_OPEN, "<mark>").replace(MARK_CLOSE, "</mark>"))


@lru_cache(maxsize=1)
def environment() -> Environment:
    """The Jinja environment of the site's templates (autoescaped, strict)."""
    env = Environment(
        loader=PackageLoader("bot.services.site", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        # The templates are package data and never change while the bot runs: no stat() of each file
        # (base, macros, the page) on every render to see whether it changed.
        auto_reload=False,
    )
    env.filters["iso"] = _iso
    env.filters["marked"] = _marked
    env.filters["inline"] = _inline
    return env


@lru_cache(maxsize=len(STATIC_FILES))
def static_file(name: str) -> bytes:
    """The stylesheet or the script (package data)."""
    if name not in STATIC_FILES:
        raise KeyError(name)
    return resources.files("bot.services.site").joinpath("static", name).read_bytes()


def _webcal(base_url: str | None) -> str | None:
    """``webcal://`` for the calendar, when the site's absolute address is known."""
    if not base_url:
        return None
    scheme, _, rest = base_url.partition("://")
    if scheme not in ("http", "https") or not rest:
        return None
    return f"webcal://{rest.rstrip('/')}/calendar.ics"


@dataclass(frozen=True)
class Meta:
    """What a link preview shows of a page (Open Graph, Twitter's card): its title, a line about it, and its
    absolute address when the site's is known (a static build without ``--base-url`` has none)."""

    title: str
    description: str
    url: str | None
    type: str = "website"


def _meta(
    site: SiteView, title: str, description: str, base_url: str | None, path: str, kind: str = "website"
) -> Meta:
    """The page at ``path`` (relative to the site's home, "" for the home page)'s preview."""
    home = base_url if base_url and base_url.startswith(("https://", "http://")) else None
    url = f"{home.rstrip('/')}/{path}" if home else None
    return Meta(title, one_line(description, DESCRIPTION_LIMIT) or site.title, url, kind)


def _page(
    template: str,
    site: SiteView,
    root: str,
    meta: Meta,
    *,
    base_url: str | None,
    static: bool,
    **context: Any,
) -> str:
    return (
        environment()
        .get_template(template)
        .render(
            site=site,
            root=root,
            static=static,
            meta=meta,
            csp_meta=CSP_META,
            webcal_url=_webcal(base_url),
            **context,
        )
    )


def _and(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    if len(items) == 2:
        return f"{items[0]} and {items[1]}"
    return ", ".join(items[:-1]) + f", and {items[-1]}"


def _each_runs(page: HomePage) -> str | None:
    durations = {s.duration for s in page.upcoming}
    if len(durations) != 1:
        return None
    only = durations.pop()
    return "an hour" if only == "1 hour" else only


def _next(page: HomePage) -> list[SessionView | SkippedWeek]:
    """The next sessions and the skipped weeks among them, by date."""
    tz = page.upcoming[0].display.tz if page.upcoming else UTC
    items: list[SessionView | SkippedWeek] = [*page.upcoming, *page.skipped]
    return sorted(
        items,
        key=lambda item: item.starts_at.astimezone(tz).date() if isinstance(item, SessionView) else item.day,
    )


def home_html(page: HomePage, *, base_url: str | None = None, static: bool = False) -> str:
    """Render the club's home page."""
    site = page.site
    about = plain_text(site.intro) or plain_text(site.about)
    return _page(
        "home.html",
        site,
        "./",
        _meta(site, site.title, about, base_url, ""),
        base_url=base_url,
        static=static,
        page=page,
        next_items=_next(page),
        intro_html=Markup(render_markdown(site.intro)),
        about_html=Markup(render_markdown(site.about)),
        topics_text=_and(list(site.topics)),
        each_runs=_each_runs(page),
    )


def event_json(page: SessionPage, base_url: str | None) -> Markup:
    """The session as a schema.org ``Event`` (JSON-LD), safe inside ``<script type="application/ld+json">``."""
    s, site = page.session, page.site
    meta = _meta(site, s.title, "", base_url, f"sessions/{s.id}/")
    home = meta.url.removesuffix(f"sessions/{s.id}/") if meta.url else None
    local = s.display.tz
    if s.date_only:
        start = end = s.starts_at.astimezone(local).date().isoformat()
    else:
        start, end = (t.astimezone(local).isoformat() for t in (s.starts_at, s.ends_at))
    place = s.channel_url or s.signup_url or s.thread_url or meta.url
    data: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "Event",
        "name": s.title,
        "startDate": start,
        "endDate": end,
        "eventStatus": f"https://schema.org/{'EventCancelled' if s.cancelled else 'EventScheduled'}",
        "eventAttendanceMode": ONLINE,
        "location": {"@type": "VirtualLocation", **({"url": place} if place else {})},
        "organizer": {"@type": "Organization", "name": site.title, **({"url": home} if home else {})},
    }
    if said := plain(s.line()):
        data["description"] = said
    if s.presenter:
        data["performer"] = {"@type": "Person", "name": s.presenter}
    if s.papers:
        data["about"] = [
            {
                "@type": "ScholarlyArticle",
                "name": p.title,
                **(
                    {"url": link} if (link := f"{home}papers/{p.id}/" if home else p.abs_url or p.url) else {}
                ),
            }
            for p in s.papers
        ]
    if meta.url:
        data["url"] = meta.url
    return Markup(json.dumps(data, ensure_ascii=False, separators=(",", ":")).translate(_JSON_ESCAPES))


def session_html(page: SessionPage, *, base_url: str | None = None, static: bool = False) -> str:
    """Render a session's page."""
    s = page.session
    meta = _meta(page.site, s.title, f"{s.when}. {plain(s.line())}", base_url, f"sessions/{s.id}/", "article")
    return _page(
        "session.html",
        page.site,
        "../../",
        meta,
        base_url=base_url,
        static=static,
        page=page,
        event_json=event_json(page, base_url),
    )


def paper_html(page: PaperPage, *, base_url: str | None = None, static: bool = False) -> str:
    """A paper's page (``papers/<id>/``)."""
    p = page.paper
    about = p.tldr or p.authors or f"{p.title}, in {page.site.title}"
    meta = _meta(page.site, p.title, about, base_url, f"papers/{p.id}/", "article")
    return _page("paper.html", page.site, "../../", meta, base_url=base_url, static=static, page=page)


def list_html(page: ListPage, *, base_url: str | None = None, static: bool = False) -> str:
    """Render a reading list's page."""
    listed = page.list
    about = listed.description or f"A reading list of {page.site.title}: {listed.size} papers."
    meta = _meta(page.site, listed.name, about, base_url, f"lists/{listed.id}/")
    return _page("list.html", page.site, "../../", meta, base_url=base_url, static=static, page=page)


def archive_html(page: ArchivePage, *, base_url: str | None = None, static: bool = False) -> str:
    """Render a page of the past sessions archive."""
    root = "../" if page.page == 1 else "../../"
    path = "past/" if page.page == 1 else f"past/{page.page}/"
    about = f"Every session {page.site.title} has held, newest first."
    title = "Reading so far" if page.page == 1 else f"Reading so far (page {page.page})"
    meta = _meta(page.site, title, about, base_url, path)
    return _page("archive.html", page.site, root, meta, base_url=base_url, static=static, page=page)


def privacy_html(page: PrivacyPage, *, base_url: str | None = None, static: bool = False) -> str:
    """Render the privacy page: what the club's bot keeps, why, how long, how it is deleted."""
    about = f"What the Discord bot of {page.site.title} keeps, why, for how long, and how it is deleted."
    meta = _meta(page.site, "Privacy", about, base_url, "privacy/")
    return _page("privacy.html", page.site, "../", meta, base_url=base_url, static=static, page=page)


def search_html(page: SearchPage, *, base_url: str | None = None) -> str:
    """Render the search page and its results."""
    about = f"Search the sessions, papers and reading lists of {page.site.title}."
    title = f"Search: {page.query}" if page.query else "Search"
    meta = _meta(page.site, title, about, base_url, "search")
    return _page("search.html", page.site, "./", meta, base_url=base_url, static=False, page=page)


def not_found_html() -> str:
    """Render the site's 404 page."""
    return environment().get_template("not_found.html").render()
