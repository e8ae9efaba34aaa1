"""A paper's page on the site (``/<slug>/papers/<id>/``): the card /paper show gives on Discord as plain
values (bot.services.papers.queries), every link checked again, and the club's history without a
Discord user id: sessions (with what the paper was read against, each linked to its page), how many
members suggested it and offered to present it (never a declined or withdrawn suggestion), its lists."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final

from sqlalchemy.ext.asyncio import AsyncSession

from bot import timeutil
from bot.services.papers.card import count_parts, hub_top
from bot.services.papers.queries import PaperCard, card_of, paper_by_id
from bot.services.site.config import SiteConfig
from bot.services.site.views import Display, SiteView, http_link, site_view
from bot.sources.semantic_scholar import ATTRIBUTION_TEXT, ATTRIBUTION_URL

SHOWN_SUGGESTIONS: Final = ("open", "shortlisted", "accepted")
ABSTRACT_LIMIT: Final = 5000


@dataclass(frozen=True)
class ReadInView:
    """A session the paper was read in, as the page shows it."""

    session_id: int
    title: str
    date: str
    starts_at: datetime
    cancelled: bool
    presenter: str | None
    against: tuple[tuple[int, str], ...]  # (paper id, title), each linked to its page: roles as given
    together: tuple[tuple[int, str], ...] = ()  # read with it (no roles given)


@dataclass(frozen=True)
class PaperPageView:
    """What a paper's page shows."""

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
    sessions: tuple[ReadInView, ...]
    suggested: int  # how many members suggested it
    volunteers: int  # how many offered to present it
    lists: tuple[tuple[int, str], ...]  # (list id, name)


@dataclass(frozen=True)
class PaperPage:
    """The page's values: the site's header and the paper."""

    site: SiteView
    paper: PaperPageView


def _links(card: PaperCard) -> tuple[tuple[str, str], ...]:
    record, paper = card.record, card.paper
    wanted = (
        ("arXiv", card.arxiv_url),
        ("Link", paper.url if not card.arxiv_url else None),
        ("PDF", card.pdf_url),
        ("Code", record.code_url),
        ("Project", record.project_url),
        ("Hugging Face", record.hf_url),
        ("OpenReview", record.openreview_url),
        ("Wiki", paper.wiki_url),
    )
    seen: set[str] = set()
    out = []
    for label, url in wanted:
        safe = http_link(url)
        if safe and safe not in seen:
            seen.add(safe)
            out.append((label, safe))
    return tuple(out)


def page_view(card: PaperCard, abstract: str | None, display: Display, now: datetime) -> PaperPageView:
    """A card's values as the page shows them (dates in the guild's first zone)."""
    record, history = card.record, card.history
    facts = tuple(dict.fromkeys(str(p) for p in (record.year, record.venue, record.decision) if p))
    counts = count_parts(record)
    shown = [s for s in history.suggestions if s.status in SHOWN_SUGGESTIONS]
    attribution = None
    if record.from_scholar:
        attribution = (ATTRIBUTION_TEXT, http_link(record.s2_url) or ATTRIBUTION_URL)
    sessions = tuple(
        ReadInView(
            read.id,
            read.title,
            timeutil.club_date(read.starts_at, display.tz, now=now, weekday=False),
            read.starts_at,
            read.cancelled,
            read.presenter_name,
            read.against,
            read.together,
        )
        for read in history.sessions
    )
    return PaperPageView(
        id=card.paper.id,
        title=card.paper.title,
        authors=card.paper.authors,
        facts=facts,
        tldr=record.tldr,
        abstract=abstract[:ABSTRACT_LIMIT] if abstract else None,
        counts=tuple(counts),
        hub=tuple((kind, tuple(repos)) for kind, repos in hub_top(card.record)),
        links=_links(card),
        attribution=attribution,
        sessions=sessions,
        suggested=len({s.submitter_id for s in shown}),
        volunteers=len({v for s in shown for v in s.volunteer_ids}),
        lists=tuple((item.id, item.name) for item in history.lists),
    )


async def paper_page(
    session: AsyncSession, site: SiteConfig, paper_id: int, now: datetime, display: Display | None = None
) -> PaperPage | None:
    """The guild's paper's page (None: no such paper in this guild)."""
    row = await paper_by_id(session, site.guild_id, paper_id)
    if row is None:
        return None
    card = await card_of(session, site.guild_id, row)
    view, shown = await site_view(session, site, now, display)
    return PaperPage(view, page_view(card, row.abstract, shown, now))
