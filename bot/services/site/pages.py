"""What each page shows, read from the store as plain values (no HTML here: see :mod:`render`).

Only what the club page itself shows: titles, times, presenters' names, papers, descriptions, links,
the "How it runs" text, reading lists with their notes, the topics and the shortlist (paper, topic,
reason, votes). Never a Discord user id, a DM, a reminder, or a withdrawn or declined suggestion.
Every link is checked again here (:func:`bot.services.site.markdown.safe_link`): a page never links
anything but http(s) (or mailto in the Markdown).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cached_property
from typing import Any, Final
from urllib.parse import quote
from zoneinfo import ZoneInfo

from sqlalchemy import ColumnElement, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from bot import timeutil
from bot.errors import BadInput
from bot.services.papers.store import PaperInfo, paper_info
from bot.services.reading import search as reading_search
from bot.services.sessions.info import CANCELLED, SessionInfo, session_info
from bot.services.setup.config import GuildConfig, get_config
from bot.services.site import queries
from bot.services.site.config import LiveSite, SiteConfig
from bot.services.site.embeds import Embed, recording_embed
from bot.services.site.markdown import safe_link
from bot.text import cut, one_line
from db.models import ClubSession, Paper, SessionPaper, SessionSubscription
from db.models.reading import ReadingList, ReadingListItem

NEXT_COUNT: Final = 10
RECENT_COUNT: Final = 20
ARCHIVE_PAGE: Final = 50
SHORTLIST_COUNT: Final = 10
SEARCH_PAGE: Final = 20
SUMMARY_LIMIT: Final = 400


@dataclass(frozen=True)
class PaperView:
    title: str
    url: str | None
    abs_url: str | None
    pdf_url: str | None
    wiki_url: str | None


@dataclass(frozen=True)
class SessionView:
    """A session as the pages show it. The time texts and the recording's player are worked out when a
    page first reads them (a list shows the date or the time, rarely both), from the fields alone, so
    equal views still mean equal pages."""

    id: int
    title: str
    starts_at: datetime
    ends_at: datetime
    duration: str
    presenter: str | None
    papers: tuple[PaperView, ...]
    summary: str | None  # the description on one line (the club page's sentence)
    description: str | None
    signup_url: str | None
    recording_url: str | None
    notes_url: str | None
    wiki_url: str | None
    thread_url: str | None
    cancelled: bool
    cancel_reason: str | None
    started: bool
    ended: bool
    display: Display  # the guild's zones
    with_year: bool  # the session is not in the reader's current year (in the first zone)

    @cached_property
    def when(self) -> str:
        """The club page's form: "Thursday 5 November, 8:00 AM PT / 4:00 PM GMT / 9:30 PM IST"."""
        return timeutil.format_club_time(self.starts_at, self.display.zones, with_year=self.with_year)

    @cached_property
    def date(self) -> str:
        """ "16 October" (with the year when it is not this year)."""
        text = timeutil.format_club_date(self.starts_at, self.display.tz)
        return f"{text} {self.starts_at.astimezone(self.display.tz).year}" if self.with_year else text

    @cached_property
    def recording(self) -> Embed | None:
        """The recording's player when it is a YouTube, Vimeo or Loom link (else the page links it)."""
        return recording_embed(self.recording_url)

    @property
    def links(self) -> tuple[tuple[str, str], ...]:
        """What came after the session, as (label, address): the recording, the notes, the wiki page."""
        found = (("Recording", self.recording_url), ("Notes", self.notes_url), ("Wiki", self.wiki_url))
        return tuple((label, url) for label, url in found if url)

    @property
    def headline(self) -> str:
        """The title as a sentence: 'Gym-Anything: autoscaling CUA.' (no second stop after ? ! or .)."""
        return self.title if self.title.endswith((".", "?", "!", "…")) else f"{self.title}."


@dataclass(frozen=True)
class SiteView:
    slug: str
    title: str
    about: str | None  # Markdown (rendered safely by the templates' layer)
    zones: str  # "PT / GMT / IST", for the page's explanation
    topics: tuple[str, ...]


@dataclass(frozen=True)
class ListView:
    id: int
    name: str
    description: str | None
    size: int


@dataclass(frozen=True)
class ListItemView:
    paper: PaperView
    note: str | None


@dataclass(frozen=True)
class ShortlistItem:
    paper: PaperView
    topic: str | None
    reason: str | None
    votes: int


@dataclass(frozen=True)
class HomePage:
    site: SiteView
    upcoming: tuple[SessionView, ...]
    recent: tuple[SessionView, ...]
    past_total: int
    lists: tuple[ListView, ...]
    shortlist: tuple[ShortlistItem, ...]


@dataclass(frozen=True)
class SessionPage:
    site: SiteView
    session: SessionView


@dataclass(frozen=True)
class ListPage:
    site: SiteView
    list: ListView
    items: tuple[ListItemView, ...]


@dataclass(frozen=True)
class ArchivePage:
    site: SiteView
    sessions: tuple[SessionView, ...]
    page: int  # 1-based
    pages: int
    total: int


@dataclass(frozen=True)
class SearchResult:
    kind: str  # "session", "paper" or "list"
    title: str
    snippet: str  # member text with reading_search.MARK_OPEN/MARK_CLOSE around matched words
    session_id: int | None = None
    list_id: int | None = None
    url: str | None = None
    when: str | None = None
    read_in: tuple[tuple[int, str], ...] = ()  # (session id, its title)


@dataclass(frozen=True)
class SearchPage:
    site: SiteView
    query: str
    results: tuple[SearchResult, ...]
    total: int
    page: int  # 1-based
    pages: int
    any_word: bool = False
    problem: str | None = None


# ---------------------------------------------------------------- plain values


@dataclass(frozen=True)
class Display:
    """The guild settings the pages show: its zones (the first one dates the sessions) and its topics."""

    zones: tuple[timeutil.DisplayZone, ...]
    tz: ZoneInfo
    labels: str  # "PT / GMT / IST", for the page's explanation
    topics: tuple[str, ...]


def display_of(timezone: str, display_zones: str, suggestion_topics: str) -> Display:
    """Parsed once per page, not once per session."""
    zones = tuple(timeutil.parse_display_zones(display_zones))
    tz = timeutil.resolve_timezone(zones[0].zone if zones else timezone)
    labels = " / ".join(z.label or z.zone for z in zones)
    topics = tuple(t for t in suggestion_topics.split(";") if t and t.casefold() != "other")
    return Display(zones, tz, labels, topics)


def _display(config: GuildConfig) -> Display:
    return display_of(config.timezone, config.display_zones_text, ";".join(config.suggestion_topics))


def live_display(live: LiveSite) -> Display:
    return display_of(live.timezone, live.display_zones, live.suggestion_topics)


def _paper(title: str, url: str | None, arxiv_id: str | None, wiki_url: str | None) -> PaperView:
    """A paper's links, each checked."""
    abs_url = pdf_url = None
    if arxiv_id:
        quoted = quote(arxiv_id, safe="./")
        abs_url, pdf_url = f"https://arxiv.org/abs/{quoted}", f"https://arxiv.org/pdf/{quoted}"
    return PaperView(title, _http(url), abs_url, pdf_url, _http(wiki_url))


def paper_view(info: PaperInfo) -> PaperView:
    return _paper(info.title, info.url, info.arxiv_id, info.wiki_url)


def _paper_of_row(row: Any) -> PaperView:
    return _paper(row.paper_title, row.paper_url, row.paper_arxiv_id, row.paper_wiki_url)


def _http(url: str | None) -> str | None:
    safe = safe_link(url)
    return safe if safe is not None and safe.lower().startswith(("http://", "https://")) else None


def _duration(minutes: int) -> str:
    hours, mins = divmod(minutes, 60)
    if not mins:
        return f"{hours} hour" + ("s" if hours != 1 else "")
    if not hours:
        return f"{mins} minutes"
    return f"{hours} h {mins} min"


def _view(s: Any, papers: tuple[PaperView, ...], display: Display, now: datetime) -> SessionView:
    """``s``: a SessionInfo or a row of :data:`queries.SESSION_COLUMNS` (the same names)."""
    starts_at: datetime = s.starts_at
    ends_at = starts_at + timedelta(minutes=s.duration_minutes)
    tz = display.tz
    return SessionView(
        id=s.id,
        title=s.title,
        starts_at=starts_at,
        ends_at=ends_at,
        duration=_duration(s.duration_minutes),
        presenter=s.presenter_name,  # a guest's or member's typed name; never the member's id
        papers=papers,
        summary=one_line(s.description, SUMMARY_LIMIT) if s.description else None,
        description=s.description,
        signup_url=_http(s.signup_url),
        recording_url=_http(s.recording_url),
        notes_url=_http(s.notes_url),
        wiki_url=_http(s.wiki_url),
        thread_url=(f"https://discord.com/channels/{s.guild_id}/{s.thread_id}" if s.thread_id else None),
        cancelled=s.status == CANCELLED,
        cancel_reason=s.cancel_reason,
        started=starts_at <= now,
        ended=ends_at <= now,
        display=display,
        with_year=now.astimezone(tz).year != starts_at.astimezone(tz).year,
    )


def _info_view(info: SessionInfo, display: Display, now: datetime) -> SessionView:
    return _view(info, tuple(paper_view(p) for p in info.papers), display, now)


def session_view(info: SessionInfo, config: GuildConfig, now: datetime) -> SessionView:
    return _info_view(info, _display(config), now)


def _row_view(found: queries.SessionRow, display: Display, now: datetime) -> SessionView:
    return _view(found.row, tuple(_paper_of_row(r) for r in found.papers), display, now)


async def _site_display(session: AsyncSession, site: SiteConfig, display: Display | None) -> Display:
    return display if display is not None else _display(await get_config(session, site.guild_id))


async def site_view(
    session: AsyncSession, site: SiteConfig, display: Display | None = None
) -> tuple[SiteView, Display]:
    """The site's header and footer values; ``display`` (from :func:`live_display`) saves reading the
    guild's settings again."""
    assert site.slug is not None
    shown = await _site_display(session, site, display)
    return SiteView(site.slug, site.title, site.about, shown.labels, shown.topics), shown


# ---------------------------------------------------------------- queries


def _past(guild_id: int, now: datetime) -> list[ColumnElement[bool]]:
    return [ClubSession.guild_id == guild_id, ClubSession.starts_at <= now, ClubSession.status != CANCELLED]


async def _past_sessions(
    session: AsyncSession, guild_id: int, now: datetime, *, limit: int, offset: int = 0
) -> list[SessionInfo]:
    infos, _ = await _feed_infos(
        session,
        select(*_SESSION_COLUMNS)
        .where(*_past(guild_id, now))
        .order_by(ClubSession.starts_at.desc(), ClubSession.id.desc())
        .limit(limit)
        .offset(offset),
    )
    return infos


async def home_page(
    session: AsyncSession, site: SiteConfig, now: datetime, display: Display | None = None
) -> HomePage:
    """Two reads: the sessions (next and read so far) with their papers and the count of past sessions;
    the lists and the shortlist (and the guild's settings when ``display`` is not given)."""
    view, shown = await site_view(session, site, display)
    conn = await session.connection()
    sessions = await queries.home_sessions(
        conn, site.guild_id, now, next_count=NEXT_COUNT, recent_count=RECENT_COUNT
    )
    extras = await queries.lists_and_shortlist(conn, site.guild_id, SHORTLIST_COUNT)
    lists = tuple(ListView(row.list_id, row.name, row.text, int(row.n)) for row in extras.lists)
    shortlist = tuple(
        ShortlistItem(
            _paper_of_row(row), row.topic, one_line(row.text, 300) if row.text else None, int(row.n)
        )
        for row in extras.shortlist
    )
    return HomePage(
        site=view,
        upcoming=tuple(_row_view(s, shown, now) for s in sessions.upcoming),
        recent=tuple(_row_view(s, shown, now) for s in sessions.recent),
        past_total=sessions.past_total,
        lists=lists,
        shortlist=shortlist,
    )


async def session_page(
    session: AsyncSession, site: SiteConfig, session_id: int, now: datetime, display: Display | None = None
) -> SessionPage | None:
    """One read: the session with its papers (and the guild's settings when ``display`` is not given)."""
    found = await queries.one_session(await session.connection(), site.guild_id, session_id)
    if found is None:
        return None
    view, shown = await site_view(session, site, display)
    return SessionPage(view, _row_view(found, shown, now))


async def list_page(
    session: AsyncSession, site: SiteConfig, list_id: int, display: Display | None = None
) -> ListPage | None:
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
    view, _ = await site_view(session, site, display)
    return ListPage(
        view,
        ListView(row.id, row.name, row.description, len(items)),
        tuple(ListItemView(paper_view(paper_info(item.paper)), item.note) for item in items),
    )


async def archive_page(
    session: AsyncSession, site: SiteConfig, page: int, now: datetime, display: Display | None = None
) -> ArchivePage | None:
    """Every session that took place, newest first, :data:`ARCHIVE_PAGE` a page (None past the last)."""
    total = await queries.past_count(await session.connection(), site.guild_id, now)
    pages = max(1, -(-total // ARCHIVE_PAGE))
    if not 1 <= page <= pages:
        return None
    view, shown = await site_view(session, site, display)
    infos = await _past_sessions(
        session, site.guild_id, now, limit=ARCHIVE_PAGE, offset=(page - 1) * ARCHIVE_PAGE
    )
    return ArchivePage(view, tuple(_info_view(i, shown, now) for i in infos), page, pages, total)


async def search_page(
    session: AsyncSession,
    site: SiteConfig,
    query: str,
    page: int,
    now: datetime,
    display: Display | None = None,
) -> SearchPage:
    """The reading feature's full-text search over sessions, papers and lists (page is 1-based)."""
    view, shown = await site_view(session, site, display)
    if not query.strip():
        return SearchPage(view, "", (), 0, 1, 1)
    try:
        found = await reading_search.search(
            session, site.guild_id, query, page=max(page, 1) - 1, per_page=SEARCH_PAGE
        )
    except BadInput as error:
        return SearchPage(view, cut(query, 200), (), 0, 1, 1, problem=error.user_message)
    zones = shown.zones
    results: list[SearchResult] = []
    for hit in found.hits:
        if hit.kind == "session" and hit.starts_at is not None:
            when = timeutil.format_club_time(hit.starts_at, zones, with_year=True)
            results.append(SearchResult("session", hit.title, hit.snippet, session_id=hit.ref_id, when=when))
        elif hit.kind == "paper":
            read_in = tuple((brief.id, brief.title) for brief in hit.read_in[:5])
            results.append(SearchResult("paper", hit.title, hit.snippet, url=_http(hit.url), read_in=read_in))
        elif hit.kind == "list":
            results.append(SearchResult("list", hit.title, hit.snippet, list_id=hit.ref_id))
    problem = "Only very common words: try a more specific one." if found.only_common_words else None
    return SearchPage(
        view, found.query, tuple(results), found.total, found.page + 1, found.pages, found.any_word, problem
    )


# ---------------------------------------------------------------- feeds


_SESSION_COLUMNS = (
    ClubSession.id,
    ClubSession.guild_id,
    ClubSession.title,
    ClubSession.description,
    ClubSession.starts_at,
    ClubSession.duration_minutes,
    ClubSession.timezone,
    ClubSession.presenter_id,
    ClubSession.presenter_name,
    ClubSession.signup_url,
    ClubSession.recording_url,
    ClubSession.notes_url,
    ClubSession.wiki_url,
    ClubSession.status,
    ClubSession.announcement_channel_id,
    ClubSession.announcement_message_id,
    ClubSession.thread_id,
    ClubSession.event_id,
    ClubSession.sequence,
    ClubSession.cancel_reason,
    ClubSession.created_by,
    ClubSession.updated_at,
)


async def _feed_infos(session: AsyncSession, query: Any) -> tuple[list[SessionInfo], datetime | None]:
    """Sessions as plain values straight from column rows (a feed lists hundreds: no ORM objects), with
    their papers in order; and the latest change among them."""
    rows = (await session.execute(query)).all()
    papers: dict[int, list[PaperInfo]] = {row.id: [] for row in rows}
    if papers:
        links = await session.execute(
            select(
                SessionPaper.session_id,
                Paper.id,
                Paper.key,
                Paper.kind,
                Paper.title,
                Paper.url,
                Paper.arxiv_id,
                Paper.doi,
                Paper.authors,
                Paper.wiki_url,
            )
            .join(Paper, Paper.id == SessionPaper.paper_id)
            .where(SessionPaper.session_id.in_(list(papers)))
            .order_by(SessionPaper.session_id, SessionPaper.position)
        )
        for sid, *paper in links.all():
            papers[sid].append(PaperInfo(*paper))
    # Rows unpacked as tuples, in _SESSION_COLUMNS' order (a column added there fails here, loudly):
    # reading 22 columns by name (``row.title``) from each of 500 rows cost ~8 ms of calendar.ics.
    infos = []
    latest: datetime | None = None
    for (
        sid,
        guild_id,
        title,
        description,
        starts_at,
        duration_minutes,
        timezone,
        presenter_id,
        presenter_name,
        signup_url,
        recording_url,
        notes_url,
        wiki_url,
        status,
        announcement_channel_id,
        announcement_message_id,
        thread_id,
        event_id,
        sequence,
        cancel_reason,
        created_by,
        updated_at,
    ) in rows:
        infos.append(
            SessionInfo(
                id=sid,
                guild_id=guild_id,
                title=title,
                description=description,
                starts_at=starts_at,
                ends_at=starts_at + timedelta(minutes=duration_minutes),
                duration_minutes=duration_minutes,
                timezone=timezone,
                presenter_id=presenter_id,
                presenter_name=presenter_name,
                papers=papers[sid],
                signup_url=signup_url,
                recording_url=recording_url,
                notes_url=notes_url,
                wiki_url=wiki_url,
                status=status,
                announcement_channel_id=announcement_channel_id,
                announcement_message_id=announcement_message_id,
                thread_id=thread_id,
                event_id=event_id,
                sequence=sequence,
                cancel_reason=cancel_reason,
                created_by=created_by,
            )
        )
        if latest is None or updated_at > latest:
            latest = updated_at
    return infos, latest


async def calendar_sessions(
    session: AsyncSession, guild_id: int, now: datetime, *, recent_days: int = 90, limit: int = 500
) -> tuple[list[SessionInfo], datetime | None]:
    """The feed's sessions: those of the last ``recent_days`` and every upcoming one (cancelled ones
    too, so calendars drop them), oldest first, at most ``limit``; and the latest change among them."""
    since = now - timedelta(days=recent_days)
    return await _feed_infos(
        session,
        select(*_SESSION_COLUMNS)
        .where(ClubSession.guild_id == guild_id, ClubSession.starts_at >= since)
        .order_by(ClubSession.starts_at, ClubSession.id)
        .limit(limit),
    )


async def personal_sessions(
    session: AsyncSession,
    guild_id: int,
    user_id: int,
    now: datetime,
    *,
    recent_days: int = 90,
    limit: int = 500,
) -> tuple[list[SessionInfo], datetime | None]:
    """The sessions this member asked to be reminded of (Remind me, /remind me), as :func:`calendar_sessions`."""
    since = now - timedelta(days=recent_days)
    return await _feed_infos(
        session,
        select(*_SESSION_COLUMNS)
        .join(SessionSubscription, SessionSubscription.session_id == ClubSession.id)
        .where(
            ClubSession.guild_id == guild_id,
            SessionSubscription.user_id == user_id,
            ClubSession.starts_at >= since,
        )
        .order_by(ClubSession.starts_at, ClubSession.id)
        .limit(limit),
    )


@dataclass(frozen=True)
class FeedEntry:
    session: SessionView
    updated_at: datetime
    published_at: datetime
    recap: bool  # the recording or notes are in


async def atom_entries(
    session: AsyncSession, site: SiteConfig, now: datetime, limit: int = 30, display: Display | None = None
) -> tuple[SiteView, list[FeedEntry]]:
    """The newest changes first: new sessions, and sessions whose recording or notes came in."""
    view, shown = await site_view(session, site, display)
    rows = list(
        await session.scalars(
            select(ClubSession)
            .where(ClubSession.guild_id == site.guild_id)
            .options(selectinload(ClubSession.papers))
            .order_by(ClubSession.updated_at.desc(), ClubSession.id.desc())
            .limit(limit)
        )
    )
    entries = []
    for row in rows:
        info = session_info(row)
        entries.append(
            FeedEntry(
                _info_view(info, shown, now),
                row.updated_at,
                row.created_at,
                bool(info.recording_url or info.notes_url or info.wiki_url),
            )
        )
    return view, entries


async def all_session_ids(session: AsyncSession, guild_id: int) -> list[int]:
    return list(
        await session.scalars(
            select(ClubSession.id).where(ClubSession.guild_id == guild_id).order_by(ClubSession.id)
        )
    )
