"""HTML for the site's pages: autoescaped Jinja2 templates with relative links (``root``); unescaped only
markdown-it's output (raw HTML off), search highlights (escaped, then marked) and the escaped JSON-LD."""

from __future__ import annotations

import json
from datetime import UTC
from functools import lru_cache
from importlib import resources
from typing import Any, Final

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

from bot.services.reading.search import MARK_CLOSE, MARK_OPEN
from bot.services.site.config import plain_text, render_markdown
from bot.services.site.pages import (
    ArchivePage,
    HomePage,
    ListPage,
    PaperPage,
    PrivacyPage,
    SearchPage,
    SessionPage,
    SkippedWeek,
)
from bot.services.site.sentences import plain
from bot.services.site.views import FRAME_SOURCES, SessionView, and_list, iso
from bot.text import one_line

#: The pages run their own script and stylesheet only; embeds may come from the three video hosts.
CSP_META: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    f"frame-src {' '.join(FRAME_SOURCES)}; base-uri 'none'; form-action 'self'"
)
#: The header adds what a <meta> cannot carry (frame-ancestors).
CSP_HEADER: Final = CSP_META + "; frame-ancestors 'none'"
STATIC_FILES: Final = {"style.css": "text/css", "site.js": "text/javascript"}
DESCRIPTION_LIMIT: Final = 200  # a link preview's line (Discord shows about this much)
ONLINE: Final = "https://schema.org/OnlineEventAttendanceMode"
#: What JSON may hold but a <script> block may not show raw: each written as its \u escape.
_JSON_ESCAPES: Final = {ord(c): f"\\u{ord(c):04x}" for c in "<>&\u2028\u2029"}


def _inline(text: str) -> Markup:
    """The bot's own short Markdown (emphasis, code) as inline HTML, through the site's safe renderer."""
    html = render_markdown(text).strip()
    return Markup(html.removeprefix("<p>").removesuffix("</p>"))


def _marked(text: str) -> Markup:
    """A search snippet: escaped, then the matched words in <mark>."""
    return Markup(str(escape(text)).replace(MARK_OPEN, "<mark>").replace(MARK_CLOSE, "</mark>"))


@lru_cache(maxsize=1)
def environment() -> Environment:
    """The Jinja environment of the site's templates (autoescaped, strict, never reloaded)."""
    env = Environment(
        loader=PackageLoader("bot.services.site", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )
    env.filters.update(iso=iso, marked=_marked, inline=_inline)
    return env


@lru_cache(maxsize=len(STATIC_FILES))
def static_file(name: str) -> bytes:
    """The stylesheet or the script (package data)."""
    return resources.files("bot.services.site").joinpath("static", name).read_bytes()


def _url(base_url: str | None, path: str) -> str | None:
    """The absolute address of ``path`` (relative to the site's home), when the site's is known."""
    if base_url and base_url.startswith(("https://", "http://")):
        return f"{base_url.rstrip('/')}/{path}"
    return None


def _page(
    template: str,
    page: Any,
    meta: tuple[str, str, str],
    base_url: str | None,
    static: bool,
    kind: str = "website",
    **context: Any,
) -> str:
    """Render ``template`` for ``page``; ``meta``: the page's (title, description, path) for its preview."""
    title, description, path = meta
    root = "../" * path.count("/") or "./"  # links are relative to the page's folder
    scheme, _, rest = (base_url or "").partition("://")
    webcal = f"webcal://{rest.rstrip('/')}/calendar.ics" if scheme in ("http", "https") and rest else None
    return (
        environment()
        .get_template(template)
        .render(
            site=page.site,
            root=root,
            static=static,
            meta={  # the link preview (Open Graph)
                "title": title,
                "description": one_line(description, DESCRIPTION_LIMIT) or page.site.title,
                "url": _url(base_url, path),
                "type": kind,
            },
            csp_meta=CSP_META,
            webcal_url=webcal,
            page=page,
            **context,
        )
    )


def home_html(page: HomePage, *, base_url: str | None = None, static: bool = False) -> str:
    """Render the club's home page: the next sessions and the skipped weeks among them by date."""
    site = page.site
    about = plain_text(site.intro) or plain_text(site.about)
    tz = page.upcoming[0].display.tz if page.upcoming else UTC
    next_items: list[SessionView | SkippedWeek] = sorted(
        [*page.upcoming, *page.skipped],
        key=lambda item: item.starts_at.astimezone(tz).date() if isinstance(item, SessionView) else item.day,
    )
    durations = {s.duration for s in page.upcoming}  # all the same: "each runs an hour"
    each_runs = durations.pop() if len(durations) == 1 else None
    return _page(
        "home.html",
        page,
        (site.title, about, ""),
        base_url,
        static,
        next_items=next_items,
        intro_html=Markup(render_markdown(site.intro)),
        about_html=Markup(render_markdown(site.about)),
        topics_text=and_list(site.topics, serial=True),
        each_runs="an hour" if each_runs == "1 hour" else each_runs,
    )


def event_json(page: SessionPage, base_url: str | None) -> Markup:
    """The session as a schema.org ``Event`` (JSON-LD), safe inside ``<script type="application/ld+json">``."""
    s, site = page.session, page.site
    url = _url(base_url, f"sessions/{s.id}/")
    home = _url(base_url, "")
    local = s.display.tz
    if s.date_only:
        start = end = s.starts_at.astimezone(local).date().isoformat()
    else:
        start, end = (t.astimezone(local).isoformat() for t in (s.starts_at, s.ends_at))
    place = s.channel_url or s.signup_url or s.thread_url or url
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
    if url:
        data["url"] = url
    return Markup(json.dumps(data, ensure_ascii=False, separators=(",", ":")).translate(_JSON_ESCAPES))


def session_html(page: SessionPage, *, base_url: str | None = None, static: bool = False) -> str:
    """Render a session's page."""
    s = page.session
    meta = (s.title, f"{s.when}. {plain(s.line())}", f"sessions/{s.id}/")
    return _page(
        "session.html", page, meta, base_url, static, "article", event_json=event_json(page, base_url)
    )


def paper_html(page: PaperPage, *, base_url: str | None = None, static: bool = False) -> str:
    """Render a paper's page."""
    meta = (
        page.title,
        page.tldr or page.authors or f"{page.title}, in {page.site.title}",
        f"papers/{page.id}/",
    )
    return _page("paper.html", page, meta, base_url, static, "article")


def list_html(page: ListPage, *, base_url: str | None = None, static: bool = False) -> str:
    """Render a reading list's page."""
    listed = page.list
    about = listed.description or f"A reading list of {page.site.title}: {listed.size} papers."
    meta = (listed.name, about, f"lists/{listed.id}/")
    return _page("list.html", page, meta, base_url, static)


def archive_html(page: ArchivePage, *, base_url: str | None = None, static: bool = False) -> str:
    """Render a page of the past sessions archive."""
    first = page.page == 1
    meta = (
        "Reading so far" if first else f"Reading so far (page {page.page})",
        f"Every session {page.site.title} has held, newest first.",
        "past/" if first else f"past/{page.page}/",
    )
    return _page("archive.html", page, meta, base_url, static)


def privacy_html(page: PrivacyPage, *, base_url: str | None = None, static: bool = False) -> str:
    """Render the privacy page."""
    about = f"What the Discord bot of {page.site.title} keeps, why, for how long, and how it is deleted."
    meta = ("Privacy", about, "privacy/")
    return _page("privacy.html", page, meta, base_url, static)


def search_html(page: SearchPage, *, base_url: str | None = None) -> str:
    """Render the search page and its results."""
    about = f"Search the sessions, papers and reading lists of {page.site.title}."
    meta = (f"Search: {page.query}" if page.query else "Search", about, "search")
    return _page("search.html", page, meta, base_url, False)


def not_found_html() -> str:
    """Render the site's 404 page."""
    return environment().get_template("not_found.html").render()
