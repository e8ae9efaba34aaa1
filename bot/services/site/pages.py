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
from typing import Any, Final
from urllib.parse import quote

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from bot import timeutil
from bot.errors import BadInput
from bot.services.papers.store import PaperInfo, paper_info
from bot.services.reading import search as reading_search
from bot.services.reading.lists import list_summaries
from bot.services.sessions.info import CANCELLED, SessionInfo, session_info
from bot.services.sessions.queries import list_upcoming
from bot.services.setup.config import GuildConfig, get_config
from bot.services.site.config import SiteConfig
from bot.services.site.embeds import Embed, recording_embed
from bot.services.site.markdown import safe_link
from bot.text import cut, one_line
from db.models import ClubSession, Paper, SessionPaper, SessionSubscription
from db.models.reading import ReadingList, ReadingListItem
from db.models.suggestions import Suggestion, SuggestionVote

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
    id: int
    title: str
    when: str  # the club page's form: "Thursday 5 November, 8:00 AM PT / 4:00 PM GMT / 9:30 PM IST"
    date: str  # "16 October" (with the year when it is not this year)
    starts_at: datetime
    ends_at: datetime
    duration: str
    presenter: str | None
    papers: tuple[PaperView, ...]
    summary: str | None  # the description on one line (the club page's sentence)
    description: str | None
    signup_url: str | None
    recording_url: str | None
    recording: Embed | None
    notes_url: str | None
    wiki_url: str | None
    thread_url: str | None
    cancelled: bool
    cancel_reason: str | None
    started: bool
    ended: bool

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


def paper_view(info: PaperInfo) -> PaperView:
    abs_url = pdf_url = None
    if info.arxiv_id:
        quoted = quote(info.arxiv_id, safe="./")
        abs_url, pdf_url = f"https://arxiv.org/abs/{quoted}", f"https://arxiv.org/pdf/{quoted}"
    url = safe_link(info.url)
    if url is not None and not url.lower().startswith(("http://", "https://")):
        url = None
    return PaperView(info.title, url, abs_url, pdf_url, _http(info.wiki_url))


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


def session_view(info: SessionInfo, config: GuildConfig, now: datetime) -> SessionView:
    zones = config.display_zones
    tz = timeutil.resolve_timezone(zones[0].zone if zones else config.timezone)
    with_year = now.astimezone(tz).year != info.starts_at.astimezone(tz).year
    summary = one_line(info.description, SUMMARY_LIMIT) if info.description else None
    recording = _http(info.recording_url)
    return SessionView(
        id=info.id,
        title=info.title,
        when=timeutil.format_club_time(info.starts_at, zones, with_year=with_year),
        date=timeutil.format_club_date(info.starts_at, tz, now=now),
        starts_at=info.starts_at,
        ends_at=info.ends_at,
        duration=_duration(info.duration_minutes),
        presenter=info.presenter_name,  # a guest's or member's typed name; never the member's id
        papers=tuple(paper_view(p) for p in info.papers),
        summary=summary,
        description=info.description,
        signup_url=_http(info.signup_url),
        recording_url=recording,
        recording=recording_embed(recording),
        notes_url=_http(info.notes_url),
        wiki_url=_http(info.wiki_url),
        thread_url=(
            f"https://discord.com/channels/{info.guild_id}/{info.thread_id}" if info.thread_id else None
        ),
        cancelled=info.is_cancelled,
        cancel_reason=info.cancel_reason,
        started=info.has_started(now),
        ended=info.has_ended(now),
    )


def _topics(config: GuildConfig) -> tuple[str, ...]:
    return tuple(t for t in config.suggestion_topics if t.casefold() != "other")


async def site_view(session: AsyncSession, site: SiteConfig) -> tuple[SiteView, GuildConfig]:
    assert site.slug is not None
    config = await get_config(session, site.guild_id)
    labels = " / ".join(z.label or z.zone for z in config.display_zones)
    return SiteView(site.slug, site.title, site.about, labels, _topics(config)), config


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


async def _past_count(session: AsyncSession, guild_id: int, now: datetime) -> int:
    """Sessions that took place: all started ones less the cancelled, each counted from an index alone."""
    started = await session.scalar(
        select(func.count())
        .select_from(ClubSession)
        .where(ClubSession.guild_id == guild_id, ClubSession.starts_at <= now)
    )
    cancelled = await session.scalar(
        select(func.count())
        .select_from(ClubSession)
        .where(
            ClubSession.guild_id == guild_id, ClubSession.status == CANCELLED, ClubSession.starts_at <= now
        )
    )
    return int(started or 0) - int(cancelled or 0)


async def _shortlist(session: AsyncSession, guild_id: int) -> tuple[ShortlistItem, ...]:
    votes = (
        select(func.count())
        .select_from(SuggestionVote)
        .where(SuggestionVote.suggestion_id == Suggestion.id)
        .correlate(Suggestion)
        .scalar_subquery()
        .label("votes")
    )
    rows = await session.execute(
        select(Suggestion.topic, Suggestion.reason, Paper, votes)
        .join(Paper, Paper.id == Suggestion.paper_id)
        .where(Suggestion.guild_id == guild_id, Suggestion.status == "shortlisted")
        .order_by(votes.desc(), Suggestion.created_at, Suggestion.id)
        .limit(SHORTLIST_COUNT)
    )
    return tuple(
        ShortlistItem(paper_view(paper_info(paper)), topic, one_line(reason, 300) if reason else None, int(n))
        for topic, reason, paper, n in rows
    )


async def home_page(session: AsyncSession, site: SiteConfig, now: datetime) -> HomePage:
    view, config = await site_view(session, site)
    upcoming = await list_upcoming(session, site.guild_id, now, limit=NEXT_COUNT)
    shown = {info.id for info in upcoming}
    recent = [
        i for i in await _past_sessions(session, site.guild_id, now, limit=RECENT_COUNT) if i.id not in shown
    ]
    lists = tuple(
        ListView(s.id, s.name, s.description, s.size) for s in await list_summaries(session, site.guild_id)
    )
    return HomePage(
        site=view,
        upcoming=tuple(session_view(i, config, now) for i in upcoming),
        recent=tuple(session_view(i, config, now) for i in recent),
        past_total=await _past_count(session, site.guild_id, now),
        lists=lists,
        shortlist=await _shortlist(session, site.guild_id),
    )


async def session_page(
    session: AsyncSession, site: SiteConfig, session_id: int, now: datetime
) -> SessionPage | None:
    row = await session.scalar(
        select(ClubSession)
        .where(ClubSession.id == session_id, ClubSession.guild_id == site.guild_id)
        .options(selectinload(ClubSession.papers))
    )
    if row is None:
        return None
    view, config = await site_view(session, site)
    return SessionPage(view, session_view(session_info(row), config, now))


async def list_page(session: AsyncSession, site: SiteConfig, list_id: int) -> ListPage | None:
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
    view, _ = await site_view(session, site)
    return ListPage(
        view,
        ListView(row.id, row.name, row.description, len(items)),
        tuple(ListItemView(paper_view(paper_info(item.paper)), item.note) for item in items),
    )


async def archive_page(
    session: AsyncSession, site: SiteConfig, page: int, now: datetime
) -> ArchivePage | None:
    """Every session that took place, newest first, :data:`ARCHIVE_PAGE` a page (None past the last)."""
    total = await _past_count(session, site.guild_id, now)
    pages = max(1, -(-total // ARCHIVE_PAGE))
    if not 1 <= page <= pages:
        return None
    view, config = await site_view(session, site)
    infos = await _past_sessions(
        session, site.guild_id, now, limit=ARCHIVE_PAGE, offset=(page - 1) * ARCHIVE_PAGE
    )
    return ArchivePage(view, tuple(session_view(i, config, now) for i in infos), page, pages, total)


async def search_page(
    session: AsyncSession, site: SiteConfig, query: str, page: int, now: datetime
) -> SearchPage:
    """The reading feature's full-text search over sessions, papers and lists (page is 1-based)."""
    view, config = await site_view(session, site)
    if not query.strip():
        return SearchPage(view, "", (), 0, 1, 1)
    try:
        found = await reading_search.search(
            session, site.guild_id, query, page=max(page, 1) - 1, per_page=SEARCH_PAGE
        )
    except BadInput as error:
        return SearchPage(view, cut(query, 200), (), 0, 1, 1, problem=error.user_message)
    zones = config.display_zones
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
    infos = [
        SessionInfo(
            id=row.id,
            guild_id=row.guild_id,
            title=row.title,
            description=row.description,
            starts_at=row.starts_at,
            ends_at=row.starts_at + timedelta(minutes=row.duration_minutes),
            duration_minutes=row.duration_minutes,
            timezone=row.timezone,
            presenter_id=row.presenter_id,
            presenter_name=row.presenter_name,
            papers=papers[row.id],
            signup_url=row.signup_url,
            recording_url=row.recording_url,
            notes_url=row.notes_url,
            wiki_url=row.wiki_url,
            status=row.status,
            announcement_channel_id=row.announcement_channel_id,
            announcement_message_id=row.announcement_message_id,
            thread_id=row.thread_id,
            event_id=row.event_id,
            sequence=row.sequence,
            cancel_reason=row.cancel_reason,
            created_by=row.created_by,
        )
        for row in rows
    ]
    return infos, max((row.updated_at for row in rows), default=None)


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
    session: AsyncSession, site: SiteConfig, now: datetime, limit: int = 30
) -> tuple[SiteView, list[FeedEntry]]:
    """The newest changes first: new sessions, and sessions whose recording or notes came in."""
    view, config = await site_view(session, site)
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
                session_view(info, config, now),
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
