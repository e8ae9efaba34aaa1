"""What each page shows, read from the store as plain values: never a user id, a DM or a hidden suggestion."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Final

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import timeutil
from bot.errors import BadInput
from bot.services.papers.card import count_parts, hub_top
from bot.services.papers.queries import SessionRead, card_of, paper_by_id
from bot.services.papers.store import paper_info
from bot.services.privacy.kinds import KINDS, MEMBER, SERVER, WORK, Kind
from bot.services.reading import search as reading_search
from bot.services.site import queries
from bot.services.site.config import LiveSite
from bot.services.site.feeds import past_sessions
from bot.services.site.views import (
    PaperView,
    SessionView,
    SiteView,
    http_link,
    info_view,
    paper_of_row,
    paper_view,
    row_view,
    site_view,
)
from bot.sources.semantic_scholar import ATTRIBUTION_TEXT, ATTRIBUTION_URL
from bot.text import cut, one_line
from db.models.core import DEFAULT_GRACE_DAYS
from db.models.reading import ReadingList, ReadingListItem

NEXT_COUNT: Final = 10
RECENT_COUNT: Final = 20
ARCHIVE_PAGE: Final = 50
SHORTLIST_COUNT: Final = 10
SEARCH_PAGE: Final = 20
SHOWN_SUGGESTIONS: Final = ("open", "shortlisted", "accepted")
ABSTRACT_LIMIT: Final = 5000
PRIVACY_GROUPS: Final = (  # (scope, heading, what the deleting line is called)
    (MEMBER, "About you", "Delete my data"),
    (SERVER, "The club's", "Deleted"),
    (WORK, "Records of the bot's work", "Deleted"),
)


@dataclass(frozen=True)
class ListView:
    """A reading list as the pages show it."""

    id: int
    name: str
    description: str | None
    size: int


@dataclass(frozen=True)
class SkippedWeek:
    """A week of a series the club skips, among the next sessions."""

    day: date
    date: str  # "Thursday 26 November"
    series: str
    reason: str | None


@dataclass(frozen=True)
class HomePage:
    """What the home page shows."""

    site: SiteView
    upcoming: tuple[SessionView, ...]
    skipped: tuple[SkippedWeek, ...]
    recent: tuple[SessionView, ...]
    past_total: int
    lists: tuple[ListView, ...]
    shortlist: tuple[tuple[PaperView, str | None, str | None, int], ...]  # (paper, topic, reason, votes)


@dataclass(frozen=True)
class SessionPage:
    """What a session's page shows."""

    site: SiteView
    session: SessionView


@dataclass(frozen=True)
class ListPage:
    """What a reading list's page shows."""

    site: SiteView
    list: ListView
    items: tuple[tuple[PaperView, str | None], ...]  # each paper with its note


@dataclass(frozen=True)
class ArchivePage:
    """What a page of the past sessions archive shows."""

    site: SiteView
    sessions: tuple[SessionView, ...]
    page: int  # 1-based
    pages: int
    total: int


@dataclass(frozen=True)
class SearchResult:
    """One search hit: a session, paper or list (``ref_id``: its page), with its marked snippet."""

    kind: str  # "session", "paper" or "list"
    title: str
    snippet: str  # member text with reading_search.MARK_OPEN/MARK_CLOSE around matched words
    ref_id: int
    url: str | None = None
    when: str | None = None
    read_in: tuple[tuple[int, str], ...] = ()  # (session id, its title)


@dataclass(frozen=True)
class SearchPage:
    """What the search page shows."""

    site: SiteView
    query: str
    results: tuple[SearchResult, ...]
    total: int
    page: int  # 1-based
    pages: int
    any_word: bool = False
    problem: str | None = None


async def home_page(session: AsyncSession, live: LiveSite, now: datetime) -> HomePage:
    """The home page in three reads: sessions and the past count, skipped weeks, lists and shortlist."""
    view, shown = site_view(live, now)
    conn, guild_id = await session.connection(), live.site.guild_id
    upcoming_rows, recent_rows, past_total = await queries.home_sessions(
        conn, guild_id, now, next_count=NEXT_COUNT, recent_count=RECENT_COUNT
    )
    upcoming = tuple(row_view(s, shown, now) for s in upcoming_rows)
    skipped = await queries.skipped_weeks(conn, guild_id, now.astimezone(shown.tz).date(), NEXT_COUNT)
    if len(upcoming) == NEXT_COUNT:  # the list is full: no skipped week after its last session
        last = upcoming[-1].starts_at.astimezone(shown.tz).date()
        skipped = [row for row in skipped if row.week_date <= last]
    list_rows, shortlist_rows = await queries.lists_and_shortlist(conn, guild_id, SHORTLIST_COUNT)
    return HomePage(
        site=view,
        upcoming=upcoming,
        skipped=tuple(
            SkippedWeek(
                row.week_date, timeutil.club_date(row.week_date, shown.tz, now=now), row.name, row.skip_reason
            )
            for row in skipped
        ),
        recent=tuple(row_view(s, shown, now) for s in recent_rows),
        past_total=past_total,
        lists=tuple(ListView(row.list_id, row.name, row.text, int(row.n)) for row in list_rows),
        shortlist=tuple(
            (paper_of_row(row), row.topic, one_line(row.text, 300) if row.text else None, int(row.n))
            for row in shortlist_rows
        ),
    )


async def session_page(
    session: AsyncSession, live: LiveSite, session_id: int, now: datetime
) -> SessionPage | None:
    """One read: the session with its papers."""
    found = await queries.one_session(await session.connection(), live.site.guild_id, session_id)
    if found is None:
        return None
    view, shown = site_view(live, now)
    return SessionPage(view, row_view(found, shown, now))


async def list_page(session: AsyncSession, live: LiveSite, list_id: int, now: datetime) -> ListPage | None:
    """A reading list's page, or None when the list is not the site's guild's."""
    row = await session.get(ReadingList, list_id)
    if row is None or row.guild_id != live.site.guild_id:
        return None
    items = list(
        await session.scalars(
            select(ReadingListItem)
            .where(ReadingListItem.list_id == row.id)
            .order_by(ReadingListItem.position, ReadingListItem.added_at)
        )
    )
    view, _ = site_view(live, now)
    return ListPage(
        view,
        ListView(row.id, row.name, row.description, len(items)),
        tuple((paper_view(paper_info(item.paper)), item.note) for item in items),
    )


async def archive_page(session: AsyncSession, live: LiveSite, page: int, now: datetime) -> ArchivePage | None:
    """Every session that took place, newest first, :data:`ARCHIVE_PAGE` a page (None past the last)."""
    total = await queries.past_count(await session.connection(), live.site.guild_id, now)
    pages = max(1, -(-total // ARCHIVE_PAGE))
    if not 1 <= page <= pages:
        return None
    view, shown = site_view(live, now)
    infos = await past_sessions(
        session, live.site.guild_id, now, limit=ARCHIVE_PAGE, offset=(page - 1) * ARCHIVE_PAGE
    )
    return ArchivePage(view, tuple(info_view(i, shown, now) for i in infos), page, pages, total)


async def search_page(
    session: AsyncSession, live: LiveSite, query: str, page: int, now: datetime
) -> SearchPage:
    """The reading feature's full-text search over sessions, papers and lists (page is 1-based)."""
    view, shown = site_view(live, now)
    if not query.strip():
        return SearchPage(view, "", (), 0, 1, 1)
    try:
        found = await reading_search.search(
            session, live.site.guild_id, query, page=max(page, 1) - 1, per_page=SEARCH_PAGE
        )
    except BadInput as error:
        return SearchPage(view, cut(query, 200), (), 0, 1, 1, problem=error.user_message)
    results: list[SearchResult] = []
    for hit in found.hits:
        if hit.kind == "session" and hit.starts_at is not None:
            when = timeutil.club_date(hit.starts_at, shown.tz, now=now)
            results.append(SearchResult("session", hit.title, hit.snippet, hit.ref_id, when=when))
        elif hit.kind == "paper":
            read_in = tuple((brief.id, brief.title) for brief in hit.read_in[:5])
            url = http_link(hit.url)
            results.append(SearchResult("paper", hit.title, hit.snippet, hit.ref_id, url, read_in=read_in))
        elif hit.kind == "list":
            results.append(SearchResult("list", hit.title, hit.snippet, hit.ref_id))
    problem = "Only very common words: try a more specific one." if found.only_common_words else None
    return SearchPage(
        view, found.query, tuple(results), found.total, found.page + 1, found.pages, found.any_word, problem
    )


@dataclass(frozen=True)
class PaperPage:
    """What a paper's page shows: /paper show's card, and the club's history without a Discord user id."""

    site: SiteView
    id: int
    title: str
    authors: str | None
    facts: tuple[str, ...]  # year, venue, decision
    tldr: str | None
    abstract: str | None
    counts: tuple[str, ...]  # citations, models, data sets, Spaces, upvotes
    hub: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]  # (kind, ((repo name, its Hub page), ...))
    links: tuple[tuple[str, str], ...]  # (label, address), each http(s)
    attribution: tuple[str, str] | None  # Semantic Scholar's (text, link back) when a field came from it
    sessions: tuple[tuple[str, SessionRead], ...]  # (its date, the session)
    suggested: int  # how many members suggested it
    volunteers: int  # how many offered to present it
    lists: tuple[tuple[int, str], ...]  # (list id, name)


async def paper_page(session: AsyncSession, live: LiveSite, paper_id: int, now: datetime) -> PaperPage | None:
    """The guild's paper's page, its card's values (dates in the guild's first zone); None: not the guild's."""
    row = await paper_by_id(session, live.site.guild_id, paper_id)
    if row is None:
        return None
    card = await card_of(session, live.site.guild_id, row)
    view, display = site_view(live, now)
    record, history = card.record, card.history
    shown = [s for s in history.suggestions if s.status in SHOWN_SUGGESTIONS]
    attribution = None
    if record.from_scholar:
        attribution = (ATTRIBUTION_TEXT, http_link(record.s2_url) or ATTRIBUTION_URL)
    links: dict[str, str] = {}  # address → label: each address once, its first label
    for label, url in card.links:
        if safe := http_link(url):
            links.setdefault(safe, label)
    return PaperPage(
        site=view,
        id=card.paper.id,
        title=card.paper.title,
        authors=card.paper.authors,
        facts=tuple(dict.fromkeys(str(p) for p in (record.year, record.venue, record.decision) if p)),
        tldr=record.tldr,
        abstract=row.abstract[:ABSTRACT_LIMIT] if row.abstract else None,
        counts=tuple(count_parts(record)),
        hub=tuple((kind, tuple(repos)) for kind, repos in hub_top(card.record)),
        links=tuple((label, url) for url, label in links.items()),
        attribution=attribution,
        sessions=tuple(
            (timeutil.club_date(read.starts_at, display.tz, now=now, weekday=False), read)
            for read in history.sessions
        ),
        suggested=len({s.submitter_id for s in shown}),
        volunteers=len({v for s in shown for v in s.volunteer_ids}),
        lists=tuple((item.id, item.name) for item in history.lists),
    )


@dataclass(frozen=True)
class PrivacyPage:
    """The privacy page: the kinds of data in their groups (heading, the deleting line's label, kinds)."""

    site: SiteView
    groups: tuple[tuple[str, str, tuple[Kind, ...]], ...]  # Markdown texts, the bot's own
    grace_days: int


def privacy_page(live: LiveSite, now: datetime, *, grace_days: int = DEFAULT_GRACE_DAYS) -> PrivacyPage:
    """What the bot keeps, why, how long, how it is deleted, with GUILD_DATA_GRACE_DAYS in its texts."""
    view, _ = site_view(live, now)
    said = [kind.said(grace_days) for kind in KINDS]
    groups = tuple(
        (heading, label, tuple(k for k in said if k.scope == scope))
        for scope, heading, label in PRIVACY_GROUPS
    )
    return PrivacyPage(view, groups, grace_days)
