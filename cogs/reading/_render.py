"""How /reading replies look. Nothing here sends; user text is escaped and cut for display only."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import discord
from discord.utils import escape_markdown

from bot.replies import EMBED_DESCRIPTION_LIMIT, EMBED_TITLE_LIMIT, cut, markdown_link, one_line
from bot.services.papers.store import PaperInfo
from bot.services.reading.hits import MARK_CLOSE, MARK_OPEN, SearchHit, SessionBrief
from bot.services.reading.lists import (
    AddOutcome,
    HistoryEntry,
    HistoryPage,
    ListPage,
    ListSummary,
    RemoveOutcome,
)
from bot.services.reading.search import SearchPage
from bot.timeutil import format_club_date

COLOUR = discord.Colour.teal()
HISTORY_PAGE_SIZE = 5
LISTS_PAGE_SIZE = 15
LIST_PAGE_SIZE = 10
SEARCH_PAGE_SIZE = 5
FIELD_NAME_BUDGET = 200
FIELD_VALUE_BUDGET = 900  # 5 fields x (200 + 900) + title and footer stays under Discord's 6000
SNIPPET_BUDGET = 220


def link(label: str, url: str | None, limit: int = 150) -> str:
    """The label as a masked link to ``url`` (bot.text.markdown_link), or escaped text without one."""
    if not url:
        return escape_markdown(one_line(label, limit)).replace("[", "\\[").replace("]", "\\]")
    return markdown_link(label, url, limit=limit)


def paper_link(paper: PaperInfo, limit: int = 150) -> str:
    return link(paper.title, paper.url, limit)


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


def day(dt: datetime, zone: str, now: datetime) -> str:
    """'17 March', with the year when it is not this year."""
    return format_club_date(dt, zone, now=now)


# ---------------------------------------------------------------- history


def presenter_text(entry: HistoryEntry) -> str | None:
    if entry.presenter_name:
        return escape_markdown(one_line(entry.presenter_name, 100))
    if entry.presenter_id:
        return f"<@{entry.presenter_id}>"
    return None


def history_field(entry: HistoryEntry, now: datetime) -> tuple[str, str]:
    name = cut(
        f"{day(entry.starts_at, entry.timezone, now)} — {one_line(entry.title, 200)}", FIELD_NAME_BUDGET
    )
    lines: list[str] = []
    if presenter := presenter_text(entry):
        lines.append(f"Presented by {presenter}")
    links = [
        link(label, url)
        for label, url in (
            ("Recording", entry.recording_url),
            ("Notes", entry.notes_url),
            ("Session page", entry.wiki_url),
        )
        if url
    ]
    links_line = " · ".join(links)
    if entry.papers:
        budget = FIELD_VALUE_BUDGET - sum(len(line) + 1 for line in lines) - len(links_line) - 10
        lines.append("📄 " + joined_within([paper_link(p) for p in entry.papers], max(budget, 60)))
    if links_line:
        lines.append(links_line)
    return name, cut("\n".join(lines) or "—", FIELD_VALUE_BUDGET)


def history_embed(history: HistoryPage, now: datetime) -> discord.Embed:
    embed = discord.Embed(title="Reading so far", colour=COLOUR)
    if not history.entries:
        embed.description = "No sessions have taken place yet."
        return embed
    count = f"{history.total} session" + ("s" if history.total != 1 else "")
    embed.description = f"{count}, newest first."
    for entry in history.entries:
        name, value = history_field(entry, now)
        embed.add_field(name=name, value=value, inline=False)
    return embed


# ---------------------------------------------------------------- lists


def lists_embed(lists: Sequence[ListSummary], total: int) -> discord.Embed:
    embed = discord.Embed(title="Reading lists", colour=COLOUR)
    if not lists:
        embed.description = "No reading lists yet. Organizers start one with `/reading add`."
        return embed
    lines = []
    for summary in lists:
        size = f"{summary.size} paper" + ("s" if summary.size != 1 else "")
        line = f"**{escape_markdown(summary.name)}** — {size}"
        if summary.description:
            line += f" · {escape_markdown(one_line(summary.description, 120))}"
        lines.append(line)
    embed.description = cut("\n".join(lines), EMBED_DESCRIPTION_LIMIT)
    if total > len(lists):
        embed.description = cut(embed.description + f"\n\n{total} lists in all.", EMBED_DESCRIPTION_LIMIT)
    return embed


def list_embed(page: ListPage) -> discord.Embed:
    summary = page.summary
    size = f"{summary.size} paper" + ("s" if summary.size != 1 else "")
    embed = discord.Embed(title=cut(summary.name, EMBED_TITLE_LIMIT), colour=COLOUR)
    lines = []
    if summary.description:
        lines += [escape_markdown(cut(summary.description, 400)), ""]
    lines.append(f"{size}:" if page.items else "No papers on this list.")
    for number, item in enumerate(page.items, page.first_number):
        line = f"{number}. {paper_link(item.paper)}"
        if item.note:
            line += f" — {escape_markdown(one_line(item.note, 180))}"
        lines.append(line)
    embed.description = cut("\n".join(lines), EMBED_DESCRIPTION_LIMIT)
    return embed


def add_message(outcome: AddOutcome) -> str:
    name, title = escape_markdown(outcome.list_name), escape_markdown(one_line(outcome.paper.title, 150))
    size = f"{outcome.size} paper" + ("s" if outcome.size != 1 else "")
    if outcome.already_there:
        extra = "; its note is updated" if outcome.note_changed else ""
        return f"**{title}** is already on **{name}**{extra} ({size})."
    new = " (a new list)" if outcome.created_list else ""
    return f"Added **{title}** to **{name}**{new}. It now has {size}."


def remove_message(outcome: RemoveOutcome) -> str:
    name, title = escape_markdown(outcome.list_name), escape_markdown(one_line(outcome.paper.title, 150))
    if outcome.list_removed:
        return f"Removed **{title}** from **{name}**; the list was empty and is gone."
    size = f"{outcome.size} paper" + ("s" if outcome.size != 1 else "")
    return f"Removed **{title}** from **{name}**. It now has {size}."


# ---------------------------------------------------------------- search


def snippet_text(snippet: str, limit: int = SNIPPET_BUDGET) -> str:
    """Escape a snippet's text and turn its match marks into bold, never leaving a mark open."""
    text = one_line(snippet, limit)
    parts: list[str] = []
    open_mark = False
    for chunk in _split_marks(text):
        if chunk == MARK_OPEN and not open_mark:
            parts.append("**")
            open_mark = True
        elif chunk == MARK_CLOSE and open_mark:
            parts.append("**")
            open_mark = False
        elif chunk not in (MARK_OPEN, MARK_CLOSE):
            parts.append(escape_markdown(chunk))
    if open_mark:
        parts.append("**")
    return "".join(parts).replace("****", "")


def _split_marks(text: str) -> list[str]:
    out: list[str] = []
    current: list[str] = []
    for ch in text:
        if ch in (MARK_OPEN, MARK_CLOSE):
            out += ["".join(current), ch]
            current = []
        else:
            current.append(ch)
    out.append("".join(current))
    return [c for c in out if c]


def _plain(snippet: str) -> str:
    return " ".join(snippet.replace(MARK_OPEN, "").replace(MARK_CLOSE, "").split()).strip("…. ")


def _sessions_text(briefs: Sequence[SessionBrief], now: datetime) -> str:
    def one(brief: SessionBrief) -> str:
        when = day(brief.starts_at, brief.timezone, now)
        return f"{when} (coming)" if brief.starts_at > now else when

    return joined_within([one(b) for b in briefs], 300, ", ")


def hit_text(hit: SearchHit, now: datetime) -> str:
    snippet = snippet_text(hit.snippet) if _plain(hit.snippet) != " ".join(hit.title.split()) else ""
    if hit.kind == "paper":
        head = f"📄 **{link(hit.title, hit.url)}**"
        where = []
        if hit.read_in:
            where.append("read " + _sessions_text(hit.read_in, now))
        else:
            where.append("not read in a session yet")
        if hit.on_lists:
            where.append(
                "on " + joined_within([f"**{escape_markdown(n)}**" for n in hit.on_lists], 200, ", ")
            )
        head += " — " + "; ".join(where)
    elif hit.kind == "session":
        assert hit.starts_at is not None
        assert hit.timezone is not None
        when = day(hit.starts_at, hit.timezone, now)
        coming = " (coming)" if hit.starts_at > now else ""
        head = f"🗓️ **{when} — {escape_markdown(one_line(hit.title, 150))}**{coming}"
        if hit.presenter:
            head += f", presented by {escape_markdown(one_line(hit.presenter, 80))}"
    else:
        size = f"{hit.list_size} paper" + ("s" if hit.list_size != 1 else "")
        head = f"📚 **{escape_markdown(hit.title)}** — a reading list ({size})"
    return f"{head}\n> {snippet}" if snippet else head


def search_embed(result: SearchPage, now: datetime) -> discord.Embed:
    title = cut(f"Search: {one_line(result.query, 200)}", EMBED_TITLE_LIMIT)
    embed = discord.Embed(title=title, colour=COLOUR)
    if result.only_common_words:
        embed.description = "Those words are too common to search for; add a more specific word."
        return embed
    if not result.hits:
        embed.description = "Nothing found. Try fewer or different words, a paper's title or a list's name."
        return embed
    count = f"Over {result.total}" if result.more_than_total else str(result.total)
    header = f"{count} result" + ("s" if result.total != 1 else "")
    if result.more_than_total:
        header += f" (the {result.total} newest shown, ranked)"
    if result.any_word:
        header += " matching some of the words (none has them all)"
    body = [header + ":"] + [hit_text(hit, now) for hit in result.hits]
    if result.more_than_total and result.page == result.pages - 1:
        body.append(f"These are the {result.total} newest matches, ranked; add words to narrow the search.")
    embed.description = cut("\n\n".join(body), EMBED_DESCRIPTION_LIMIT)
    return embed
