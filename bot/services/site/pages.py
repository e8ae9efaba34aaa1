"""What each page shows, read from the store as plain values (no HTML here: see :mod:`render`).

Only what the club page itself shows: titles, times, presenters' names, papers, descriptions, links,
the "How it runs" text, reading lists with their notes, the topics and the shortlist (paper, topic,
reason, votes). Never a Discord user id, a DM, a reminder, or a withdrawn or declined suggestion.
Every link is checked again here (:func:`bot.services.site.markdown.safe_link`): a page never links
anything but http(s) (or mailto in the Markdown).
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from bot import timeutil
from bot.errors import BadInput
from bot.services.papers.store import paper_info
from bot.services.reading import search as reading_search
from bot.services.site import queries
from bot.services.site.config import SiteConfig
from bot.services.site.feed_reads import past_sessions
from bot.services.site.views import (
    ArchivePage,
    Display,
    HomePage,
    ListItemView,
    ListPage,
    ListView,
    SearchPage,
    SearchResult,
    SessionPage,
    SessionView,
    ShortlistItem,
    SkippedWeek,
    http_link,
    info_view,
    paper_of_row,
    paper_view,
    row_view,
    site_view,
)
from bot.text import cut, one_line
from db.models.reading import ReadingList, ReadingListItem

NEXT_COUNT: Final = 10
RECENT_COUNT: Final = 20
ARCHIVE_PAGE: Final = 50
SHORTLIST_COUNT: Final = 10
SEARCH_PAGE: Final = 20


async def home_page(
    session: AsyncSession, site: SiteConfig, now: datetime, display: Display | None = None
) -> HomePage:
    """Three reads: the sessions (next and read so far) with their papers and the count of past sessions;
    the skipped weeks among the next ones; the lists and the shortlist (and the guild's settings when
    ``display`` is not given)."""
    view, shown = await site_view(session, site, now, display)
    conn = await session.connection()
    sessions = await queries.home_sessions(
        conn, site.guild_id, now, next_count=NEXT_COUNT, recent_count=RECENT_COUNT
    )
    upcoming = tuple(row_view(s, shown, now) for s in sessions.upcoming)
    skipped = await _skipped(conn, site.guild_id, now, shown, upcoming)
    extras = await queries.lists_and_shortlist(conn, site.guild_id, SHORTLIST_COUNT)
    lists = tuple(ListView(row.list_id, row.name, row.text, int(row.n)) for row in extras.lists)
    shortlist = tuple(
        ShortlistItem(paper_of_row(row), row.topic, one_line(row.text, 300) if row.text else None, int(row.n))
        for row in extras.shortlist
    )
    return HomePage(
        site=view,
        upcoming=upcoming,
        skipped=skipped,
        recent=tuple(row_view(s, shown, now) for s in sessions.recent),
        past_total=sessions.past_total,
        lists=lists,
        shortlist=shortlist,
    )


async def _skipped(
    conn: AsyncConnection, guild_id: int, now: datetime, shown: Display, upcoming: tuple[SessionView, ...]
) -> tuple[SkippedWeek, ...]:
    """The skipped weeks among the next sessions: from today on, and (when the list of next sessions is
    full) not after its last one."""
    today = now.astimezone(shown.tz).date()
    rows = await queries.skipped_weeks(conn, guild_id, today, NEXT_COUNT)
    if len(upcoming) == NEXT_COUNT:
        last = upcoming[-1].starts_at.astimezone(shown.tz).date()
        rows = [row for row in rows if row.week_date <= last]
    return tuple(
        SkippedWeek(
            row.week_date, timeutil.club_date(row.week_date, shown.tz, now=now), row.name, row.skip_reason
        )
        for row in rows
    )


async def session_page(
    session: AsyncSession, site: SiteConfig, session_id: int, now: datetime, display: Display | None = None
) -> SessionPage | None:
    """One read: the session with its papers (and the guild's settings when ``display`` is not given)."""
    found = await queries.one_session(await session.connection(), site.guild_id, session_id)
    if found is None:
        return None
    view, shown = await site_view(session, site, now, display)
    return SessionPage(view, row_view(found, shown, now))


async def list_page(
    session: AsyncSession, site: SiteConfig, list_id: int, now: datetime, display: Display | None = None
) -> ListPage | None:
    """A reading list's page, or None when the list is not the site's guild's."""
    row = await session.get(ReadingList, list_id)
    if row is None or row.guild_id != site.guild_id:
        return None
    items = list(
        await session.scalars(
            select(ReadingListItem)
            .where(ReadingListItem.list_id == row.id)
            .order_by(ReadingListItem.position, ReadingListItem.added_at)
        )
    )
    view, _ = await site_view(session, site, now, display)
    return ListPage(
        view,
        ListView(row.id, row.name, row.description, len(items)),
        tuple(ListItemView(paper_view(paper_info(item.paper)), item.note) for item in items),
    )


async def archive_page(
    session: AsyncSession, site: SiteConfig, page: int, now: datetime, display: Display | None = None
) -> ArchivePage | None:
    """Every session that took place, newest first, :data:`ARCHIVE_PAGE` a page (None past the last)."""
    conn = await session.connection()
    total = await queries.past_count(conn, site.guild_id, now)
    pages = max(1, -(-total // ARCHIVE_PAGE))
    if not 1 <= page <= pages:
        return None
    view, shown = await site_view(session, site, now, display)
    infos = await past_sessions(
        session, site.guild_id, now, limit=ARCHIVE_PAGE, offset=(page - 1) * ARCHIVE_PAGE
    )
    return ArchivePage(view, tuple(info_view(i, shown, now) for i in infos), page, pages, total)


async def search_page(
    session: AsyncSession,
    site: SiteConfig,
    query: str,
    page: int,
    now: datetime,
    display: Display | None = None,
) -> SearchPage:
    """The reading feature's full-text search over sessions, papers and lists (page is 1-based)."""
    view, shown = await site_view(session, site, now, display)
    if not query.strip():
        return SearchPage(view, "", (), 0, 1, 1)
    try:
        found = await reading_search.search(
            session, site.guild_id, query, page=max(page, 1) - 1, per_page=SEARCH_PAGE
        )
    except BadInput as error:
        return SearchPage(view, cut(query, 200), (), 0, 1, 1, problem=error.user_message)
    results: list[SearchResult] = []
    for hit in found.hits:
        if hit.kind == "session" and hit.starts_at is not None:
            when = timeutil.club_date(hit.starts_at, shown.tz, now=now)
            results.append(SearchResult("session", hit.title, hit.snippet, session_id=hit.ref_id, when=when))
        elif hit.kind == "paper":
            read_in = tuple((brief.id, brief.title) for brief in hit.read_in[:5])
            results.append(
                SearchResult(
                    "paper",
                    hit.title,
                    hit.snippet,
                    url=http_link(hit.url),
                    read_in=read_in,
                    paper_id=hit.ref_id,
                )
            )
        elif hit.kind == "list":
            results.append(SearchResult("list", hit.title, hit.snippet, list_id=hit.ref_id))
    problem = "Only very common words: try a more specific one." if found.only_common_words else None
    return SearchPage(
        view, found.query, tuple(results), found.total, found.page + 1, found.pages, found.any_word, problem
    )
