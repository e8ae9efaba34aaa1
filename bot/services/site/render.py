"""HTML for the site's pages: Jinja2 templates (``templates/``, shipped as package data) with autoescaping
on for every template, so each member-typed text (titles, descriptions, names, notes, reasons) is escaped.
The only markup not escaped is markdown-it's output for "How it runs" (raw HTML off, see :mod:`markdown`)
and the search snippets' highlight, which is escaped first and then marked.

Every page links relatively (``root`` is the way back to ``/<slug>/``), so the same HTML is served by the
bot and written by ``paperclub site build`` for a static host.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from functools import lru_cache
from importlib import resources
from typing import Any, Final

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

from bot.services.reading.hits import MARK_CLOSE, MARK_OPEN
from bot.services.site.embeds import FRAME_SOURCES
from bot.services.site.markdown import render_markdown
from bot.services.site.paper_page import PaperPage
from bot.services.site.views import ArchivePage, HomePage, ListPage, SearchPage, SessionPage, SiteView

_FRAMES = " ".join(FRAME_SOURCES)
#: The pages run their own script and stylesheet only; embeds may come from the three video hosts.
CSP_META: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    f"frame-src {_FRAMES}; base-uri 'none'; form-action 'self'"
)
#: The header adds what a <meta> cannot carry (frame-ancestors).
CSP_HEADER: Final = CSP_META + "; frame-ancestors 'none'"
STATIC_FILES: Final = {"style.css": "text/css", "site.js": "text/javascript"}


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


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


def _page(
    template: str, site: SiteView, root: str, *, base_url: str | None, static: bool, **context: Any
) -> str:
    return (
        environment()
        .get_template(template)
        .render(
            site=site,
            root=root,
            static=static,
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


def home_html(page: HomePage, *, base_url: str | None = None, static: bool = False) -> str:
    """Render the club's home page."""
    return _page(
        "home.html",
        page.site,
        "./",
        base_url=base_url,
        static=static,
        page=page,
        about_html=Markup(render_markdown(page.site.about)),
        topics_text=_and(list(page.site.topics)),
        lists_text=_and([item.name for item in page.lists]),
        each_runs=_each_runs(page),
    )


def session_html(page: SessionPage, *, base_url: str | None = None, static: bool = False) -> str:
    """Render a session's page."""
    return _page("session.html", page.site, "../../", base_url=base_url, static=static, page=page)


def paper_html(page: PaperPage, *, base_url: str | None = None, static: bool = False) -> str:
    """A paper's page (``papers/<id>/``)."""
    return _page("paper.html", page.site, "../../", base_url=base_url, static=static, page=page)


def list_html(page: ListPage, *, base_url: str | None = None, static: bool = False) -> str:
    """Render a reading list's page."""
    return _page("list.html", page.site, "../../", base_url=base_url, static=static, page=page)


def archive_html(page: ArchivePage, *, base_url: str | None = None, static: bool = False) -> str:
    """Render a page of the past sessions archive."""
    root = "../" if page.page == 1 else "../../"
    return _page("archive.html", page.site, root, base_url=base_url, static=static, page=page)


def search_html(page: SearchPage, *, base_url: str | None = None) -> str:
    """Render the search page and its results."""
    return _page("search.html", page.site, "./", base_url=base_url, static=False, page=page)


def not_found_html() -> str:
    """Render the site's 404 page."""
    return environment().get_template("not_found.html").render()
