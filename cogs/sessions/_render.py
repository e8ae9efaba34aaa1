"""How sessions look: the card (a Components V2 layout: the announcement and /session show), list pages,
the club page's one-line form, the cancellation notice, the recap post and the scheduled event's text.
Nothing here sends.

User text is cut to Discord's limits for display only (the store keeps it whole), escaped once in the
card's text (never inside a masked link: each paper's link is a button beside it) and sent with mentions
disabled, so a typed ``@everyone`` never pings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

import discord
from discord.utils import escape_markdown

from bot import timeutil
from bot.layouts import TEXT_LIMIT, Card, escape, escape_line, link_button
from bot.replies import (
    CONTENT_LIMIT,
    EMBED_DESCRIPTION_LIMIT,
    cut,
    markdown_link,
    one_line,
)
from bot.services.papers.card import fit_lines, short_lines
from bot.services.sessions.info import SessionInfo
from bot.sources.semantic_scholar import ATTRIBUTION_TEXT, ATTRIBUTION_URL
from bot.timeutil import DisplayZone

EVENT_NAME_LIMIT = 100
EVENT_DESCRIPTION_LIMIT = 1000
EVENT_LOCATION_LIMIT = 100
LIST_PAGE_SIZE = 10
CARD_FIXED_TEXT = 600  # the card's heading lines, footer and recording links, at most

SCHEDULED_COLOUR = discord.Colour.blurple()
CANCELLED_COLOUR = discord.Colour.dark_grey()
DONE_COLOUR = discord.Colour.green()


def club_time(info: SessionInfo, zones: Sequence[DisplayZone], now: datetime | None = None) -> str:
    """The club page's form; the year is added when it is not the current one. A session dated only: its
    date alone."""
    if info.date_only:
        return timeutil.club_date(info.starts_at, info.timezone, now=now or info.starts_at)
    with_year = now is not None and now.astimezone(info.starts_at.tzinfo).year != info.starts_at.year
    return timeutil.format_club_time(info.starts_at, zones, with_year=with_year)


def when_text(info: SessionInfo, zones: Sequence[DisplayZone], now: datetime | None = None) -> str:
    """Club time, then Discord's markup so each reader also sees their own time (not for a session dated
    only: it has no time)."""
    start = info.starts_at
    if info.date_only:
        return club_time(info, zones, now)
    return (
        f"{club_time(info, zones, now)}\n"
        f"{timeutil.discord_timestamp(start, 'F')} ({timeutil.discord_timestamp(start, 'R')})"
    )


def presenter_text(info: SessionInfo, *, mention: bool = True) -> str | None:
    """The member's mention (renders as their name; never pings inside an embed) or the guest's name."""
    if info.presenter_id is not None and mention:
        return f"<@{info.presenter_id}>"
    if info.presenter_name:
        return escape_line(info.presenter_name, 100)
    return None


def afterwards_text(info: SessionInfo) -> str | None:
    parts = [
        markdown_link(label, url)
        for label, url in (
            ("Recording", info.recording_url),
            ("Notes", info.notes_url),
            ("Wiki", info.wiki_url),
        )
        if url
    ]
    return " · ".join(parts) if parts else None


def session_card(
    info: SessionInfo,
    zones: Sequence[DisplayZone],
    *,
    now: datetime | None = None,
    buttons: Sequence[discord.ui.Item[Any]] = (),
) -> Card:
    """The session card (the announcement and /session show): the title as a heading, the club-time
    line, who and how long, the description, each paper with its link button beside it (and the short
    form of its card: TLDR, venue, citations, links, as many lines as its share of the space holds), the
    recording and notes, then ``buttons`` in a row."""
    over = now is not None and info.has_ended(now)
    colour = CANCELLED_COLOUR if info.is_cancelled else DONE_COLOUR if over else SCHEDULED_COLOUR
    card = Card(accent=colour)
    if info.is_cancelled:
        reason = f" — {escape_line(info.cancel_reason, 400)}" if info.cancel_reason else ""
        when = f"~~{club_time(info, zones, now)}~~\n**This session is cancelled**{reason}"
        title = f"Cancelled: {info.title}"
    else:
        when, title = when_text(info, zones, now), info.title
    facts = [f"**Presenter:** {cut(presenter, 200)}"] if (presenter := presenter_text(info)) else []
    facts.append(f"**Duration:** {timeutil.format_duration(info.duration_minutes)}")
    card.heading(title, below=f"{when}\n{' · '.join(facts)}")
    if info.description:
        card.text(escape(info.description, 1500))
    if info.papers:
        card.separator()
        card.more("papers", "papers")
        first_against = info.against_papers[0].id if info.against else None
        shown = [*info.main_papers, *info.against_papers]
        heads = []
        for paper in shown:
            line = f"**{escape_line(paper.title, 200)}**"
            if paper.id == first_against:
                line = f"-# read against\n{line}"
            if paper.wiki_url:
                line += " · " + markdown_link("wiki", paper.wiki_url)
            heads.append(line)
        # what the titles, the description and the card's fixed lines leave, shared among the papers
        room = (
            TEXT_LIMIT
            - CARD_FIXED_TEXT
            - len(escape(info.description, 1500))
            - len(title)
            - len("".join(heads))
        )
        share = max(0, room // len(shown))
        for paper, line in zip(shown, heads, strict=True):
            record = info.records.get(paper.id)
            extra = fit_lines(short_lines(replace(record, from_scholar=False)), share) if record else ""
            button = link_button(paper.url) or (link_button(record.code_url, "Code") if record else None)
            card.section(f"{line}\n{extra}" if extra else line, button, group="papers")
    after = afterwards_text(info)
    footer = f"-# Session #{info.id}"
    if any(r.from_scholar for r in info.records.values()):
        footer += " · " + markdown_link(ATTRIBUTION_TEXT, ATTRIBUTION_URL, preview=False)
    card.text(f"{after}\n{footer}" if after else footer)
    card.row(buttons)
    return card


def club_page_line(info: SessionInfo, zones: Sequence[DisplayZone], now: datetime | None = None) -> str:
    """'Thursday 5 November, 8:00 AM PT / 4:00 PM GMT / 9:30 PM IST — Title. Presenter presents A, B.'"""
    line = f"{club_time(info, zones, now)} — {one_line(info.title, 200)}."
    who = info.presenter_name or (f"<@{info.presenter_id}>" if info.presenter_id else None)
    papers = info.papers_text(80)
    if who and papers:
        line += f" {who} presents {papers}."
    elif who:
        line += f" {who} presents."
    elif papers:
        line += f" Reading {papers}."
    return line


def list_entry(info: SessionInfo, zones: Sequence[DisplayZone], now: datetime | None = None) -> str:
    """One session in /session list: id, club time, Discord time, title, presenter and sign-up."""
    head = (
        f"**#{info.id}** · {club_time(info, zones, now)} · {timeutil.discord_timestamp(info.starts_at, 'R')}"
    )
    title = escape_markdown(one_line(info.title, 150))
    extra = []
    presenter = presenter_text(info)
    if presenter:
        extra.append(f"with {one_line(presenter, 60)}")
    if info.papers:
        extra.append(f"{len(info.papers)} paper" + ("s" if len(info.papers) != 1 else ""))
    if info.signup_url:
        extra.append(markdown_link("sign up", info.signup_url))
    return f"{head}\n{title}" + (f" — {' · '.join(extra)}" if extra else "")


def list_embed(
    sessions: Sequence[SessionInfo],
    zones: Sequence[DisplayZone],
    *,
    total: int,
    now: datetime | None = None,
) -> discord.Embed:
    embed = discord.Embed(title="Upcoming sessions", colour=SCHEDULED_COLOUR)
    if not sessions:
        embed.description = "No sessions are scheduled yet. Organizers add them with `/session add`."
        return embed
    entries = [cut(list_entry(info, zones, now), 380) for info in sessions]
    embed.description = cut("\n\n".join(entries), EMBED_DESCRIPTION_LIMIT)
    embed.set_footer(text=f"{total} upcoming")
    return embed


def cancellation_notice(info: SessionInfo, zones: Sequence[DisplayZone], now: datetime | None = None) -> str:
    """Posted in the announcement's channel when an announced session is cancelled."""
    text = f"**Cancelled:** {escape_markdown(one_line(info.title, 200))} ({club_time(info, zones, now)})"
    if info.cancel_reason:
        text += f"\nReason: {escape_markdown(one_line(info.cancel_reason, 500))}"
    return cut(text, CONTENT_LIMIT)


def recap_post(info: SessionInfo) -> str:
    """Posted in the session's thread by /session recap."""
    lines = [f"**Recap of {escape_markdown(one_line(info.title, 200))}**"]
    for label, url in (("Recording", info.recording_url), ("Notes", info.notes_url), ("Wiki", info.wiki_url)):
        if url:
            lines.append(f"{label}: {url}")
    return cut("\n".join(lines), CONTENT_LIMIT)


def thread_name(info: SessionInfo) -> str:
    return cut(one_line(info.title, 200), 100)


def event_name(info: SessionInfo) -> str:
    return cut(one_line(info.title, 200), EVENT_NAME_LIMIT)


def event_location(info: SessionInfo) -> str:
    """The sign-up link, or 'Video call' (also when the link is too long for the field)."""
    if info.signup_url and len(info.signup_url) <= EVENT_LOCATION_LIMIT:
        return info.signup_url
    return "Video call"


def event_description(info: SessionInfo, zones: Sequence[DisplayZone]) -> str:
    """Plain text (events render little markdown): time line, presenter, papers, sign-up, description."""
    lines = [timeutil.format_club_time(info.starts_at, zones)]
    if info.presenter_name:
        lines.append(f"Presenter: {one_line(info.presenter_name, 100)}")
    if info.papers:
        lines.append("Papers: " + "; ".join(one_line(p.title, 120) for p in info.main_papers))
        if info.against:
            lines.append("Read against: " + "; ".join(one_line(p.title, 120) for p in info.against_papers))
    if info.signup_url:
        lines.append(f"Sign up: {info.signup_url}")
    if info.description:
        lines.extend(["", info.description])
    return cut("\n".join(lines), EVENT_DESCRIPTION_LIMIT)
