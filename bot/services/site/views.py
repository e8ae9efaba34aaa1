"""Plain values the pages and feeds show (no HTML), every link checked; recordings' players by parsed URL."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cached_property
from typing import Any, Final
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

from bot import timeutil
from bot.services.papers.card import arxiv_urls
from bot.services.papers.store import PaperInfo
from bot.services.sessions.info import CANCELLED, SessionInfo
from bot.services.site import queries
from bot.services.site.config import LiveSite, safe_link
from bot.services.site.sentences import Facts, Paragraph, one_paragraph, sentence
from bot.text import one_line
from db.models.sessions import AGAINST

SUMMARY_LIMIT: Final = 400


@dataclass(frozen=True)
class PaperView:
    """A paper as a page links it: its own page (``id``), its link, arXiv's pages, the wiki."""

    title: str
    url: str | None
    abs_url: str | None
    pdf_url: str | None
    wiki_url: str | None
    id: int | None = None  # its page, papers/<id>/
    against: bool = False  # read against the session's main papers, as the club said ("TMax vs T1")


@dataclass(frozen=True)
class SessionView:
    """A session as the pages show it (its time texts and player worked out on first read)."""

    id: int
    title: str
    starts_at: datetime
    ends_at: datetime
    duration: str
    presenter: str | None
    papers: tuple[PaperView, ...]
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
    now: datetime  # when the page is made (the year a date leaves out)
    date_only: bool = False  # the club gave its date only: no time is shown
    series_week: bool = False  # a week of a series (claimable while nobody presents)
    series_description: str | None = None  # the series' own description, which each week repeats
    channel_url: str | None = None  # held in a voice or stage channel of the server: its link
    channel_name: str | None = None  # and its name as last seen (None: not known, e.g. imported)

    @cached_property
    def when(self) -> str:
        """ "Thursday 5 November, 8:00 AM PT / 4:00 PM GMT" (a session dated only: "Thursday 16 October")."""
        if self.date_only:
            return timeutil.club_date(self.starts_at, self.display.tz, now=self.now)
        with_year = (
            self.now.astimezone(self.display.tz).year != self.starts_at.astimezone(self.display.tz).year
        )
        return timeutil.format_club_time(self.starts_at, self.display.zones, with_year=with_year)

    @cached_property
    def date(self) -> str:
        """ "16 October" (with the year when it is not this year)."""
        return timeutil.club_date(self.starts_at, self.display.tz, now=self.now, weekday=False)

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

    @property
    def open_week(self) -> bool:
        """A week of a series to come that nobody presents yet: members may claim it."""
        return self.series_week and not self.ended and not self.cancelled and not self.presenter

    @property
    def signup(self) -> str | None:
        """The sign-up link while it is still of use (not after the session, not when cancelled)."""
        return self.signup_url if not self.ended and not self.cancelled else None

    def _facts(self, paragraphs: list[str], invite: str | None) -> Facts:
        return Facts(
            presenter=self.presenter,
            papers=self.papers,
            paragraphs=paragraphs,
            open_week=self.open_week,
            no_paper_yet=self.series_week and not self.ended and not self.papers,
            invite=invite,
        )

    def line(self, invite: str | None = None) -> Paragraph:
        """The session in one line of a list (a week repeating its series' description leaves it out)."""
        text = self.description
        if self.series_week and text is not None and text == self.series_description:
            text = None
        summary = [one_line(text, SUMMARY_LIMIT)] if text else []
        return one_paragraph(sentence(self._facts(summary, invite)))

    def paragraphs(self, invite: str | None = None) -> tuple[Paragraph, ...]:
        """The session's page's text: the line's sentence, then the rest of the description."""
        parts = [" ".join(p.split()) for p in (self.description or "").split("\n\n") if p.strip()]
        return sentence(self._facts(parts, invite))


@dataclass(frozen=True)
class SiteView:
    """The site-wide values every page shows: slug, title, intro and about texts, zones, topics, invite."""

    slug: str
    title: str
    about: str | None  # Markdown (rendered safely by the templates' layer)
    zones: str  # "PT, GMT/BST and IST": the zones as the times name them
    topics: tuple[str, ...]
    intro: str | None = None  # Markdown
    invite: str | None = None  # the club's Discord invite


# ---------------------------------------------------------------- plain values


@dataclass(frozen=True)
class Display:
    """The guild's zones as the pages show them (the first one dates the sessions)."""

    zones: tuple[timeutil.DisplayZone, ...]
    tz: ZoneInfo


def iso(value: datetime) -> str:
    """``value`` in UTC as RFC 3339 to the second ("2026-11-05T16:00:00Z")."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def and_list(items: Sequence[str], *, serial: bool = False) -> str:
    """ "A", "A and B", "A, B and C" (``serial``: "A, B, and C")."""
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + ("," if serial else "") + " and " + items[-1]


def _paper(
    title: str,
    url: str | None,
    arxiv_id: str | None,
    wiki_url: str | None,
    paper_id: int | None = None,
    against: bool = False,
) -> PaperView:
    """A paper's links, each checked."""
    abs_url, pdf_url = arxiv_urls(arxiv_id)
    return PaperView(title, http_link(url), abs_url, pdf_url, http_link(wiki_url), paper_id, against)


def paper_view(info: PaperInfo, *, against: bool = False) -> PaperView:
    """A stored paper's view (with its page); ``against``: read against the session's main papers."""
    return _paper(info.title, info.url, info.arxiv_id, info.wiki_url, info.id, against)


def paper_of_row(row: Any) -> PaperView:
    """A row of :data:`queries.PAPER_COLUMNS` (``paper_…``, and ``paper_role`` by a session) as a view."""
    against = getattr(row, "paper_role", None) == AGAINST
    return _paper(
        row.paper_title, row.paper_url, row.paper_arxiv_id, row.paper_wiki_url, row.paper_id, against
    )


def http_link(url: str | None) -> str | None:
    """The safe form of ``url`` when it is an http(s) link, else None."""
    safe = safe_link(url)
    return safe if safe is not None and safe.lower().startswith(("http://", "https://")) else None


def _view(s: Any, papers: tuple[PaperView, ...], display: Display, now: datetime) -> SessionView:
    """``s``: a SessionInfo or a row of :data:`queries.SESSION_COLUMNS` (the same names)."""
    starts_at: datetime = s.starts_at
    ends_at = starts_at + timedelta(minutes=s.duration_minutes)
    return SessionView(
        id=s.id,
        title=s.title,
        starts_at=starts_at,
        ends_at=ends_at,
        duration=timeutil.format_duration(s.duration_minutes),
        presenter=s.presenter_name,  # a guest's or member's typed name; never the member's id
        papers=papers,
        description=s.description,
        signup_url=http_link(s.signup_url),
        recording_url=http_link(s.recording_url),
        notes_url=http_link(s.notes_url),
        wiki_url=http_link(s.wiki_url),
        thread_url=(f"https://discord.com/channels/{s.guild_id}/{s.thread_id}" if s.thread_id else None),
        cancelled=s.status == CANCELLED,
        cancel_reason=s.cancel_reason,
        started=starts_at <= now,
        ended=ends_at <= now,
        display=display,
        now=now,
        date_only=bool(s.date_only),
        series_week=getattr(s, "series_id", None) is not None,
        series_description=getattr(s, "series_description", None),
        channel_url=(f"https://discord.com/channels/{s.guild_id}/{s.channel_id}" if s.channel_id else None),
        channel_name=s.channel_name,
    )


def info_view(info: SessionInfo, display: Display, now: datetime) -> SessionView:
    """A session's view from its plain info."""
    papers = [*info.main_papers, *info.against_papers]
    return _view(info, tuple(paper_view(p, against=p.id in info.against) for p in papers), display, now)


def row_view(found: queries.SessionRow, display: Display, now: datetime) -> SessionView:
    """A session's view from a query row and its papers."""
    papers = [paper_of_row(r) for r in found.papers]
    ordered = [p for p in papers if not p.against] + [p for p in papers if p.against]
    return _view(found.row, tuple(ordered), display, now)


def site_view(live: LiveSite, now: datetime) -> tuple[SiteView, Display]:
    """The site's header and footer values, and its guild's zones (parsed once a page)."""
    site = live.site
    assert site.slug is not None
    zones = tuple(timeutil.parse_display_zones(live.display_zones))
    tz = timeutil.resolve_timezone(zones[0].zone if zones else live.timezone)
    topics = tuple(t for t in live.suggestion_topics.split(";") if t and t.casefold() != "other")
    names = and_list([timeutil.zone_names(zone, now.astimezone(tz).year) for zone in zones])
    invite = http_link(site.discord_invite)
    return SiteView(site.slug, site.title, site.about, names, topics, site.intro, invite), Display(zones, tz)


# ---------------------------------------------------------------- recordings: YouTube, Vimeo, Loom


_YOUTUBE_ID: Final = re.compile(r"[A-Za-z0-9_-]{11}")
_VIMEO_ID: Final = re.compile(r"[0-9]{1,12}")
_VIMEO_HASH: Final = re.compile(r"[0-9a-f]{6,20}")
_LOOM_ID: Final = re.compile(r"[0-9a-f]{32}")
YOUTUBE_HOSTS: Final = frozenset(
    {"youtube.com", "www.youtube.com", "m.youtube.com", "youtube-nocookie.com", "www.youtube-nocookie.com"}
)
VIMEO_HOSTS: Final = frozenset({"vimeo.com", "www.vimeo.com", "player.vimeo.com"})
LOOM_HOSTS: Final = frozenset({"loom.com", "www.loom.com"})
#: The frame sources the pages' Content-Security-Policy allows (exactly where embeds point).
FRAME_SOURCES: Final = (
    "https://www.youtube-nocookie.com",
    "https://player.vimeo.com",
    "https://www.loom.com",
)


@dataclass(frozen=True)
class Embed:
    """A recording's player the session page may embed."""

    provider: str  # "YouTube", "Vimeo" or "Loom"
    src: str  # the player's address, built from the parsed id only


def _youtube(host: str, parts: list[str], query: str) -> str | None:
    video: str | None = None
    if host == "youtu.be":
        video = parts[0] if len(parts) == 1 else None
    elif host in YOUTUBE_HOSTS:
        if parts == ["watch"]:
            values = parse_qs(query).get("v", [])
            video = values[0] if len(values) == 1 else None
        elif len(parts) == 2 and parts[0] in ("embed", "shorts", "live", "v"):
            video = parts[1]
    if video is None or not _YOUTUBE_ID.fullmatch(video):
        return None
    return f"https://www.youtube-nocookie.com/embed/{video}"


def _vimeo(host: str, parts: list[str], query: str) -> str | None:
    if host == "player.vimeo.com":
        parts = parts[1:] if parts[:1] == ["video"] else []
    if not parts or len(parts) > 2 or not _VIMEO_ID.fullmatch(parts[0]):
        return None
    src = f"https://player.vimeo.com/video/{parts[0]}"
    hashes = parse_qs(query).get("h", [])
    secret = parts[1] if len(parts) == 2 else (hashes[0] if len(hashes) == 1 else None)
    if secret is not None:
        if not _VIMEO_HASH.fullmatch(secret):
            return None
        src += f"?h={secret}"
    return src


def _loom(host: str, parts: list[str], query: str) -> str | None:
    if len(parts) != 2 or parts[0] not in ("share", "embed") or not _LOOM_ID.fullmatch(parts[1]):
        return None
    return f"https://www.loom.com/embed/{parts[1]}"


def recording_embed(url: str | None) -> Embed | None:
    """The player to embed for a recording link, or None (then the page shows a plain link)."""
    if not url:
        return None
    try:
        address = urlsplit(url.strip())
        port = address.port
    except ValueError:
        return None
    if address.scheme not in ("http", "https") or port not in (None, 80, 443):
        return None
    if address.username is not None or address.password is not None:
        return None
    host = (address.hostname or "").lower()
    for provider, hosts, parse in (
        ("YouTube", YOUTUBE_HOSTS | {"youtu.be"}, _youtube),
        ("Vimeo", VIMEO_HOSTS, _vimeo),
        ("Loom", LOOM_HOSTS, _loom),
    ):
        if host in hosts:
            src = parse(host, [p for p in address.path.split("/") if p], address.query)
            return Embed(provider, src) if src else None
    return None
