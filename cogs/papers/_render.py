"""The paper card as a Components V2 layout (bot.layouts): every source and member text escaped once,
links on buttons with fixed labels, members shown as mentions that never ping (allowed_mentions none)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import discord

from bot.layouts import Card, escape, escape_line, link_button, link_label
from bot.replies import member_mention
from bot.services.papers.card import count_parts, hub_top, where_parts
from bot.services.papers.queries import PaperCard, PaperHistory, SessionRead
from bot.sources.semantic_scholar import ATTRIBUTION_TEXT, ATTRIBUTION_URL
from bot.text import markdown_link
from bot.timeutil import club_date

ACCENT = discord.Colour.teal()
AUTHORS_SHOWN = 300
TLDR_SHOWN = 600
ABOUT_SHOWN = 120
SESSIONS_SHOWN = 10
SUGGESTIONS_SHOWN = 5
LISTS_SHOWN = 10


def facts_line(card: PaperCard) -> str | None:
    """Venue · decision · year, each said once and escaped."""
    return " · ".join(escape_line(part, ABOUT_SHOWN) for part in where_parts(card.record)) or None


def counts_line(card: PaperCard) -> str | None:
    """Citations and what Hugging Face links to it."""
    return " · ".join(count_parts(card.record)) or None


def hub_line(card: PaperCard) -> str | None:
    """The most liked models, data sets and Spaces by name (escaped; their pages are a click away on the
    paper's Hugging Face page, so no link is made of a name a source chose)."""
    kinds = hub_top(card.record)
    shown = [f"{kind}: {', '.join(escape_line(name, 100) for name, _ in repos)}" for kind, repos in kinds]
    return " · ".join(shown) or None


def session_line(read: SessionRead, now: datetime) -> str:
    """ "<the club's date> — **title**, with **A**, read against **B** and **C**" (roles only where given;
    struck through when cancelled)."""
    title = f"**{escape_line(read.title, 150)}**"
    line = f"{club_date(read.starts_at, read.timezone, now=now)} — {title}"
    if read.cancelled:
        line = f"~~{line}~~ (cancelled)"
    for words, titles in (("with", read.together_titles()), ("read against", read.against_titles())):
        named = [f"**{escape_line(t, 100)}**" for t in titles]
        if named:
            line += f", {words} " + (
                ", ".join(named[:-1]) + " and " + named[-1] if len(named) > 1 else named[0]
            )
    if read.presenter_name:
        line += f" · presented by {escape_line(read.presenter_name, 100)}"
    return line


def history_lines(history: PaperHistory) -> list[str]:
    """Who suggested it and who offered to present it, and the lists it is on."""
    lines: list[str] = []
    shown = history.suggestions[:SUGGESTIONS_SHOWN]
    if shown:
        who = ", ".join(dict.fromkeys(member_mention(s.submitter_id) for s in shown))
        lines.append(f"**Suggested by** {who}")
        volunteers = dict.fromkeys(f"<@{v}>" for s in shown for v in s.volunteer_ids)
        if volunteers:
            lines.append("**Offered to present:** " + ", ".join(volunteers))
    if history.lists:
        names = [f"**{escape_line(item.name, 80)}**" for item in history.lists[:LISTS_SHOWN]]
        more = len(history.lists) - len(names)
        lines.append(
            "**On the reading lists:** " + ", ".join(names) + (f" and {more} more" if more > 0 else "")
        )
    return lines


def link_buttons(card: PaperCard, page_url: str | None) -> list[discord.ui.Button[Any]]:
    """arXiv, PDF, code, project, Hugging Face, OpenReview, the wiki and the club's page for the paper."""
    record = card.record
    other = card.paper.url if card.paper.url and not card.arxiv_url else None
    wanted = [
        (card.arxiv_url, "arXiv"),
        (other, link_label(other) if other else None),
        (card.pdf_url, "PDF"),
        (record.code_url, "Code"),
        (record.project_url, "Project"),
        (record.hf_url, "Hugging Face"),
        (record.openreview_url, "OpenReview"),
        (card.paper.wiki_url, "Wiki"),
        (page_url, "Club page"),
    ]
    seen: set[str] = set()
    buttons = []
    for url, label in wanted:
        if url and url not in seen and (button := link_button(url, label)) is not None:
            seen.add(url)
            buttons.append(button)
    return buttons


def paper_card(card: PaperCard, *, now: datetime, page_url: str | None = None) -> Card:
    """The full card: heading (title, authors), facts, TLDR, counts, the club's history, links."""
    paper, record = card.paper, card.record
    authors = escape_line(paper.authors, AUTHORS_SHOWN) if paper.authors else None
    built = Card(accent=ACCENT).heading(paper.title, below=authors)
    top = [line for line in (facts_line(card), counts_line(card), hub_line(card)) if line]
    if record.tldr:
        top.append(f"**TLDR:** {escape(record.tldr, TLDR_SHOWN)}")
    if top:
        built.text("\n".join(top))
    built.separator()
    history = card.history
    if history.sessions:
        built.more("sessions", "sessions")
        built.text("**Read in the club**")
        for read in history.sessions[:SESSIONS_SHOWN]:
            built.text(session_line(read, now), group="sessions")
    extra = history_lines(history)
    if extra:
        built.text("\n".join(extra))
    if history.empty:
        built.text("Not read, suggested or listed here yet.")
    if record.from_scholar:
        built.text("-# " + markdown_link(ATTRIBUTION_TEXT, record.s2_url or ATTRIBUTION_URL, preview=False))
    built.row(link_buttons(card, page_url))
    return built


def paper_view(card: PaperCard, *, now: datetime, page_url: str | None = None) -> discord.ui.LayoutView:
    """The card as a message's layout."""
    return paper_card(card, now=now, page_url=page_url).view()
