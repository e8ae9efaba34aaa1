"""/reading's cards (layouts): history, lists, a list, search; member text escaped once."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import discord

from bot.layouts import Card, escape_line, link_button, link_label
from bot.services.papers.store import PaperInfo
from bot.services.reading.history import HistoryEntry
from bot.services.reading.lists import AddOutcome, ListPage, ListSummary, RemoveOutcome
from bot.services.reading.search import MARK_CLOSE, MARK_OPEN, SearchHit, SearchPage, SessionBrief
from bot.text import Page, markdown_link, one_line, plural
from bot.timeutil import format_club_date

ACCENT = discord.Colour.teal()
HISTORY_PAGE_SIZE = 5
LISTS_PAGE_SIZE = 15
LIST_PAGE_SIZE = 10
SEARCH_PAGE_SIZE = 5
# Budgets counted after escaping, so a page's entries stay within Discord's 4,000 text characters.
ENTRY_BUDGET = 700
TITLE_SHOWN = 150
PAPER_TITLE_SHOWN = 120
PRESENTER_SHOWN = 100
NOTE_SHOWN = 150
HIT_TITLE_SHOWN = 120
HIT_SESSIONS_SHOWN = 200
HIT_LISTS_SHOWN = 150
SNIPPET_BUDGET = 160
# Stand-ins for the search marks (control characters, which escaping drops) while a snippet is escaped.
_OPEN, _CLOSE = "\ue000", "\ue001"

Button = discord.ui.Button[Any]


def joined_within(parts: Sequence[str], budget: int, separator: str = " · ") -> str:
    """Join as many parts as fit in `budget`, then say how many more there are (never cut silently)."""
    out: list[str] = []
    used = 0
    for index, part in enumerate(parts):
        rest = len(parts) - index
        tail = len(f"{separator}… and {rest} more")
        if used + len(separator) + len(part) + (tail if rest > 1 else 0) > budget:
            out.append(f"… and {rest} more")
            break
        out.append(part)
        used += len(separator) + len(part)
    return separator.join(out)


def escape_within(text: str | None, budget: int) -> str:
    """Member text on one line, escaped once, in at most ``budget`` characters (cut before escaping)."""
    limit = budget
    shown = escape_line(text, limit)
    while len(shown) > budget and limit > 1:
        limit = max(1, limit - max(1, (len(shown) - budget) // 2))
        shown = escape_line(text, limit)
    return shown


def presenter_text(entry: HistoryEntry) -> str | None:
    """The presenter's name (escaped), else a mention of them (which never pings), else None."""
    if entry.presenter_name:
        return escape_within(entry.presenter_name, PRESENTER_SHOWN)
    if entry.presenter_id:
        return f"<@{entry.presenter_id}>"
    return None


def paper_lines(paper: PaperInfo) -> list[str]:
    """A paper's possible lines, longest first: "📄 TMax · [arXiv](…)", then the title alone."""
    title = f"📄 {escape_within(paper.title, PAPER_TITLE_SHOWN) or '…'}"
    label = link_label(paper.url) if paper.url else ""
    link = markdown_link(label, paper.url)  # the label alone when there is no usable URL
    return [f"{title} · {link}", title] if paper.url and link != label else [title]


def history_links(entry: HistoryEntry) -> list[Button]:
    """The session page, the recording and the notes as link buttons with fixed labels."""
    links = ((entry.wiki_url, "Session page"), (entry.recording_url, "Recording"), (entry.notes_url, "Notes"))
    return [button for url, label in links if url and (button := link_button(url, label))]


def history_entry(entry: HistoryEntry, now: datetime) -> str:
    """One session: its date and title, its presenter, each paper a line (as many as its budget holds)."""
    title = escape_within(entry.title, TITLE_SHOWN)
    lines = [f"**{format_club_date(entry.starts_at, entry.timezone, now=now)} — {title}**"]
    if presenter := presenter_text(entry):
        lines.append(f"Presented by {presenter}")
    room = ENTRY_BUDGET - sum(len(line) + 1 for line in lines)
    for index, paper in enumerate(entry.papers):
        rest = len(entry.papers) - index
        more = f"-# … and {plural(rest, 'more paper')}"
        reserve = len(more) + 1 if rest > 1 else 0
        line = next((line for line in paper_lines(paper) if len(line) + 1 + reserve <= room), None)
        if line is None:
            lines.append(more)
            break
        lines.append(line)
        room -= len(line) + 1
    return "\n".join(lines)


def history_card(history: Page[HistoryEntry], now: datetime) -> Card:
    """/reading history: each session that took place, newest first, its links as buttons."""
    card = Card(accent=ACCENT)
    if not history.items:
        return card.heading("Reading so far", below="No sessions have taken place yet.")
    card.heading("Reading so far", below=f"{plural(history.total, 'session')}, newest first.")
    for entry in history.items:
        buttons = history_links(entry)
        card.section(history_entry(entry, now), buttons[0] if buttons else None)
        card.row(buttons[1:])
    return card


def lists_card(lists: Sequence[ListSummary], total: int) -> Card:
    """/reading lists: each list's name, size and description."""
    card = Card(accent=ACCENT)
    if not lists:
        return card.heading(
            "Reading lists", below="No reading lists yet. Organizers start one with `/organize reading add`."
        )
    card.heading("Reading lists", below=f"{plural(total, 'list')}:" if total > len(lists) else None)
    lines = []
    for summary in lists:
        line = f"**{escape_within(summary.name, 100)}** — {plural(summary.size, 'paper')}"
        if summary.description:
            line += f" · {escape_within(summary.description, 120)}"
        lines.append(line)
    return card.text("\n".join(lines))


def list_card(page: ListPage) -> Card:
    """/reading show: the list's description, then each paper with its note and its link beside it."""
    summary = page.summary
    below = [escape_within(summary.description, 400)] if summary.description else []
    below.append(f"{plural(summary.size, 'paper')}:" if page.items else "No papers on this list.")
    card = Card(accent=ACCENT).heading(summary.name, below="\n".join(below))
    for number, item in enumerate(page.items, page.first_number):
        title = escape_within(item.paper.title, TITLE_SHOWN) or "…"
        line = f"{number}. **{title}**"
        if item.note:
            line += f" — {escape_within(item.note, NOTE_SHOWN)}"
        card.section(line, link_button(item.paper.url))
    return card


def gone_card(title: str, text: str) -> Card:
    """A page whose list or saved search is gone."""
    return Card(accent=ACCENT).heading(title, below=text)


def add_message(outcome: AddOutcome) -> str:
    """/organize reading add's answer."""
    name, title = escape_line(outcome.list_name, 100), escape_line(outcome.paper.title, 150)
    size = plural(outcome.size, "paper")
    if outcome.already_there:
        extra = "; its note is updated" if outcome.note_changed else ""
        return f"**{title}** is already on **{name}**{extra} ({size})."
    new = " (a new list)" if outcome.created_list else ""
    return f"Added **{title}** to **{name}**{new}. It now has {size}."


def remove_message(outcome: RemoveOutcome) -> str:
    """/organize reading remove's answer."""
    name, title = escape_line(outcome.list_name, 100), escape_line(outcome.paper.title, 150)
    if outcome.list_removed:
        return f"Removed **{title}** from **{name}**; the list was empty and is gone."
    return f"Removed **{title}** from **{name}**. It now has {plural(outcome.size, 'paper')}."


def snippet_text(snippet: str, limit: int = SNIPPET_BUDGET) -> str:
    """A snippet escaped once as a whole, its match marks turned into bold (never left open)."""
    text = one_line(snippet.replace(_OPEN, "").replace(_CLOSE, ""), limit + 2)
    escaped = escape_within(text.replace(MARK_OPEN, _OPEN).replace(MARK_CLOSE, _CLOSE), limit)
    parts: list[str] = []
    open_mark = False
    for ch in escaped:
        if ch == _OPEN and not open_mark:
            parts.append("**")
            open_mark = True
        elif ch == _CLOSE and open_mark:
            parts.append("**")
            open_mark = False
        elif ch not in (_OPEN, _CLOSE):
            parts.append(ch)
    if open_mark:
        parts.append("**")
    return "".join(parts).replace("****", "")


def _plain(snippet: str) -> str:
    return " ".join(snippet.replace(MARK_OPEN, "").replace(MARK_CLOSE, "").split()).strip("…. ")


def _sessions_text(briefs: Sequence[SessionBrief], now: datetime) -> str:
    def one(brief: SessionBrief) -> str:
        when = format_club_date(brief.starts_at, brief.timezone, now=now)
        return f"{when} (coming)" if brief.starts_at > now else when

    return joined_within([one(b) for b in briefs], HIT_SESSIONS_SHOWN, ", ")


def hit_text(hit: SearchHit, now: datetime) -> str:
    """One search hit: what it is, where it was read or listed, and the matching words in bold."""
    snippet = snippet_text(hit.snippet) if _plain(hit.snippet) != " ".join(hit.title.split()) else ""
    if hit.kind == "paper":
        head = f"📄 **{escape_within(hit.title, HIT_TITLE_SHOWN) or '…'}**"
        where = ["read " + _sessions_text(hit.read_in, now) if hit.read_in else "not read in a session yet"]
        if hit.on_lists:
            names = [f"**{escape_within(n, 100)}**" for n in hit.on_lists]
            where.append("on " + joined_within(names, HIT_LISTS_SHOWN, ", "))
        head += " — " + "; ".join(where)
    elif hit.kind == "session":
        assert hit.starts_at is not None
        assert hit.timezone is not None
        when = format_club_date(hit.starts_at, hit.timezone, now=now)
        coming = " (coming)" if hit.starts_at > now else ""
        head = f"🗓️ **{when} — {escape_within(hit.title, HIT_TITLE_SHOWN)}**{coming}"
        if hit.presenter:
            head += f", presented by {escape_within(hit.presenter, 80)}"
    else:
        head = (
            f"📚 **{escape_within(hit.title, 100)}** — a reading list ({plural(hit.list_size or 0, 'paper')})"
        )
    return f"{head}\n> {snippet}" if snippet else head


def search_card(result: SearchPage, now: datetime) -> Card:
    """/reading search: how many results, then each hit (a paper with its link beside it)."""
    card = Card(accent=ACCENT)
    title = f"Search: {result.query}"
    if result.only_common_words:
        return card.heading(
            title, below="Those words are too common to search for; add a more specific word."
        )
    if not result.hits:
        return card.heading(
            title, below="Nothing found. Try fewer or different words, a paper's title or a list's name."
        )
    count = f"Over {result.total}" if result.more_than_total else str(result.total)
    header = f"{count} result" + ("s" if result.total != 1 else "")
    if result.more_than_total:
        header += f" (the {result.total} newest shown, ranked)"
    if result.any_word:
        header += " matching some of the words (none has them all)"
    card.heading(title, below=header + ":")
    for hit in result.hits:
        button = link_button(hit.url) if hit.kind == "paper" else None
        card.section(hit_text(hit, now), button)
    if result.more_than_total and result.page == result.pages - 1:
        card.text(f"-# These are the {result.total} newest matches, ranked; add words to narrow the search.")
    return card
