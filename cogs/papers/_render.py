"""The paper card as a Components V2 layout: source and member text escaped, links on buttons."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import discord

from bot.layouts import Card, escape, escape_line, link_button, link_label
from bot.replies import member_mention
from bot.services.papers.card import count_parts, hub_top, where_parts
from bot.services.papers.queries import PaperCard, PaperHistory, SessionRead
from bot.services.site.views import and_list
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


def session_line(read: SessionRead, now: datetime) -> str:
    """ "<date> — **title**, with **A**, read against **B**" (roles only where given; struck when cancelled)."""
    title = f"**{escape_line(read.title, 150)}**"
    line = f"{club_date(read.starts_at, read.timezone, now=now)} — {title}"
    if read.cancelled:
        line = f"~~{line}~~ (cancelled)"
    for words, papers in (("with", read.together), ("read against", read.against)):
        named = [f"**{escape_line(t, 100)}**" for _, t in papers]
        if named:
            line += f", {words} {and_list(named)}"
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
    seen: set[str] = set()
    buttons = []
    for label, url in [*card.links, ("Club page", page_url)]:
        if not url or url in seen:
            continue
        if (button := link_button(url, link_label(url) if label == "Link" else label)) is not None:
            seen.add(url)
            buttons.append(button)
    return buttons


def paper_view(card: PaperCard, *, now: datetime, page_url: str | None = None) -> discord.ui.LayoutView:
    """The full card: heading (title, authors), facts, counts, the Hub's most liked, TLDR, history, links."""
    paper, record, history = card.paper, card.record, card.history
    authors = escape_line(paper.authors, AUTHORS_SHOWN) if paper.authors else None
    built = Card(accent=ACCENT).heading(paper.title, below=authors)
    # Hub repos by name only: their pages are a click away on the paper's Hugging Face page
    hub = [
        f"{kind}: {', '.join(escape_line(name, 100) for name, _ in repos)}" for kind, repos in hub_top(record)
    ]
    top = [
        " · ".join(escape_line(part, ABOUT_SHOWN) for part in where_parts(record)),
        " · ".join(count_parts(record)),
        " · ".join(hub),
        f"**TLDR:** {escape(record.tldr, TLDR_SHOWN)}" if record.tldr else "",
    ]
    if any(top):
        built.text("\n".join(line for line in top if line))
    built.separator()
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
    return built.view()
