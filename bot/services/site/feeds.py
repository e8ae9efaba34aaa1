"""The site's feeds: ``calendar.ics`` (and each member's personal one) and an Atom feed of new sessions
and recaps.

The calendars come from the calendars' one .ics builder (:func:`bot.services.calendars.ics.
calendar_bytes`), so whatever it learns (series as RRULE/EXDATE) the feeds follow. Its DTSTAMP is the
latest change among the listed sessions, not the time of the request: the same sessions give the same
bytes, so the ETag holds and calendar apps polling the feed get 304s.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from xml.etree import ElementTree

from bot.services.calendars.ics import SeriesCalendar, calendar_bytes
from bot.services.sessions.info import SessionInfo
from bot.services.site.sentences import plain
from bot.services.site.views import FeedEntry, SiteView

#: DTSTAMP of an empty feed (nothing changed yet).
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
ATOM_NS = "http://www.w3.org/2005/Atom"
TAG_AUTHORITY = "paperclub.invalid,2026"


def ics_feed(
    sessions: Sequence[SessionInfo],
    changed: datetime | None,
    *,
    name: str,
    series: Sequence[SeriesCalendar] = (),
    base_url: str | None = None,
) -> bytes:
    """The club's feed: each series as one repeating VEVENT (RRULE, EXDATE for skipped weeks, RECURRENCE-ID
    overrides for moved or retitled ones), every other session as its own VEVENT. With the site's public
    address ``base_url`` (``https://…/<slug>/``), a session with one main paper links that paper's page."""
    home = base_url.rstrip("/") if base_url and base_url.startswith(("https://", "http://")) else None
    pages = (lambda paper_id: f"{home}/papers/{paper_id}/") if home else None
    return calendar_bytes(sessions, now=changed or EPOCH, name=name[:100], series=series, paper_page=pages)


def _iso(dt: datetime) -> str:
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def feed_id(slug: str) -> str:
    """Stable whatever host serves the feed (the bot, a static host, a new PUBLIC_URL)."""
    return f"tag:{TAG_AUTHORITY}:{slug}"


def _entry_text(entry: FeedEntry) -> str:
    s = entry.session
    lines = [("Cancelled: " if s.cancelled else "") + s.when]
    if said := plain(s.line()):
        lines.append(said)  # who presents what, once: "Hamish Ivison presents TMax, read against …"
    for label, url in (("Recording", s.recording_url), ("Notes", s.notes_url), ("Wiki", s.wiki_url)):
        if url:
            lines.append(f"{label}: {url}")
    return "\n".join(lines)


def atom_feed(site: SiteView, entries: Sequence[FeedEntry]) -> bytes:
    """An Atom 1.0 feed (RFC 4287). Links are relative to the feed's own address (``/<slug>/feed.atom``),
    so the same file works on the bot's server and on a static host. ElementTree escapes every text."""
    ElementTree.register_namespace("", ATOM_NS)

    def sub(
        parent: ElementTree.Element, tag: str, text: str | None = None, **attrs: str
    ) -> ElementTree.Element:
        element = ElementTree.SubElement(parent, f"{{{ATOM_NS}}}{tag}", attrs)
        if text is not None:
            element.text = text
        return element

    feed = ElementTree.Element(f"{{{ATOM_NS}}}feed")
    sub(feed, "title", f"{site.title}: sessions and recaps")
    sub(feed, "id", feed_id(site.slug))
    sub(feed, "link", rel="alternate", type="text/html", href="./")
    sub(feed, "link", rel="self", type="application/atom+xml", href="feed.atom")
    updated = max((e.updated_at for e in entries), default=EPOCH)
    sub(feed, "updated", _iso(updated))
    author = sub(feed, "author")
    sub(author, "name", site.title)
    sub(feed, "generator", "paperclub")
    for entry in entries:
        s = entry.session
        item = sub(feed, "entry")
        prefix = "Cancelled: " if s.cancelled else ("Recap: " if entry.recap else "")
        sub(item, "title", prefix + s.title)
        sub(item, "id", f"{feed_id(site.slug)}/sessions/{s.id}")
        sub(item, "link", rel="alternate", type="text/html", href=f"sessions/{s.id}/")
        sub(item, "published", _iso(entry.published_at))
        sub(item, "updated", _iso(entry.updated_at))
        sub(item, "summary", _entry_text(entry), type="text")
    return ElementTree.tostring(feed, encoding="utf-8", xml_declaration=True)
