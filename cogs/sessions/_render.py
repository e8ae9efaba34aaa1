"""How sessions look: the card, /session list's pages, the cancellation notice and the recap post."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

import discord

from bot import timeutil
from bot.layouts import TEXT_LIMIT, Card, escape, escape_line, link_button
from bot.services.papers.card import fit_lines, short_lines
from bot.services.sessions.info import SessionInfo
from bot.sources.semantic_scholar import ATTRIBUTION_TEXT, ATTRIBUTION_URL
from bot.text import CONTENT_LIMIT, cut, markdown_link, plural
from bot.timeutil import DisplayZone

LIST_PAGE_SIZE = 10
EMPTY_LIST = "No sessions are scheduled yet. Organizers add them with `/organize session add`."
CARD_FIXED_TEXT = 600  # the card's heading lines, footer and recording links, at most

SCHEDULED_COLOUR = discord.Colour.blurple()
CANCELLED_COLOUR = discord.Colour.dark_grey()
DONE_COLOUR = discord.Colour.green()


def club_time(info: SessionInfo, zones: Sequence[DisplayZone], now: datetime | None = None) -> str:
    """The club page's form (the year when not the current one; a session dated only: its date alone)."""
    if info.date_only:
        return timeutil.club_date(info.starts_at, info.timezone, now=now or info.starts_at)
    with_year = now is not None and now.astimezone(info.starts_at.tzinfo).year != info.starts_at.year
    return timeutil.format_club_time(info.starts_at, zones, with_year=with_year)


def when_text(info: SessionInfo, zones: Sequence[DisplayZone], now: datetime | None = None) -> str:
    """Club time, then Discord's markup so each reader also sees their own (not for a session dated only)."""
    start = info.starts_at
    if info.date_only:
        return club_time(info, zones, now)
    return (
        f"{club_time(info, zones, now)}\n"
        f"{timeutil.discord_timestamp(start, 'F')} ({timeutil.discord_timestamp(start, 'R')})"
    )


def _links(info: SessionInfo) -> list[tuple[str, str]]:
    named = (("Recording", info.recording_url), ("Notes", info.notes_url), ("Wiki", info.wiki_url))
    return [(label, url) for label, url in named if url]


def session_card(
    info: SessionInfo,
    zones: Sequence[DisplayZone],
    *,
    now: datetime | None = None,
    buttons: Sequence[discord.ui.Item[Any]] = (),
) -> Card:
    """The session card: title, time, facts, description, papers and their short cards, links, ``buttons``."""
    over = now is not None and info.has_ended(now)
    colour = CANCELLED_COLOUR if info.is_cancelled else DONE_COLOUR if over else SCHEDULED_COLOUR
    card = Card(accent=colour)
    if info.is_cancelled:
        reason = f" — {escape_line(info.cancel_reason, 400)}" if info.cancel_reason else ""
        when = f"~~{club_time(info, zones, now)}~~\n**This session is cancelled**{reason}"
        title = f"Cancelled: {info.title}"
    else:
        when, title = when_text(info, zones, now), info.title
    facts = [f"**Where:** <#{info.channel_id}>"] if info.channel_id is not None else []
    if info.presenter_id is not None:  # a mention renders as the name and never pings in a card
        facts.append(f"**Presenter:** <@{info.presenter_id}>")
    elif info.presenter_name:
        facts.append(f"**Presenter:** {cut(escape_line(info.presenter_name, 100), 200)}")
    facts.append(f"**Duration:** {timeutil.format_duration(info.duration_minutes)}")
    if info.coming and not over and not info.is_cancelled:
        facts.append(f"**Coming:** {info.coming}")  # Remind me or Interested, each member once
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
    # No "Session #N" here: a public card says nothing a member cannot use.
    lines = [" · ".join(markdown_link(label, url) for label, url in _links(info))] if _links(info) else []
    if any(r.from_scholar for r in info.records.values()):
        lines.append("-# " + markdown_link(ATTRIBUTION_TEXT, ATTRIBUTION_URL, preview=False))
    if lines:
        card.text("\n".join(lines))
    card.row(buttons)
    return card


def list_entry(info: SessionInfo, zones: Sequence[DisplayZone], now: datetime | None = None) -> str:
    """One session in /session list: its title, club time and Discord time, presenter and sign-up."""
    head = (
        f"**{escape_line(info.title, 150)}**\n"
        f"{club_time(info, zones, now)} · {timeutil.discord_timestamp(info.starts_at, 'R')}"
    )
    extra = [f"in <#{info.channel_id}>"] if info.channel_id is not None else []
    if info.presenter_id:
        extra.append(f"with <@{info.presenter_id}>")
    elif info.presenter_name:
        extra.append(f"with {escape_line(info.presenter_name, 60)}")
    if info.papers:
        extra.append(plural(len(info.papers), "paper"))
    if info.signup_url:
        extra.append(markdown_link("sign up", info.signup_url))
    return head + (f"\n{' · '.join(extra)}" if extra else "")


def list_card(
    sessions: Sequence[SessionInfo], zones: Sequence[DisplayZone], *, total: int, pages: int, now: datetime
) -> Card:
    """A page of /session list: each upcoming session in a line or two (and how many, on a single page)."""
    card = Card(accent=SCHEDULED_COLOUR).heading("Upcoming sessions", below=None if sessions else EMPTY_LIST)
    card.more("sessions", "sessions")
    for info in sessions:
        card.text(cut(list_entry(info, zones, now), 380), group="sessions")
    if sessions and pages == 1:
        card.text(f"-# {total} upcoming")
    return card


def cancellation_notice(info: SessionInfo, zones: Sequence[DisplayZone], now: datetime | None = None) -> str:
    """Posted in the announcement's channel when an announced session is cancelled."""
    text = f"**Cancelled:** {escape_line(info.title, 200)} ({club_time(info, zones, now)})"
    if info.cancel_reason:
        text += f"\nReason: {escape_line(info.cancel_reason, 500)}"
    return cut(text, CONTENT_LIMIT)


def recap_post(info: SessionInfo) -> str:
    """Posted in the session's thread by /organize session recap."""
    lines = [
        f"**Recap of {escape_line(info.title, 200)}**",
        *(f"{label}: {url}" for label, url in _links(info)),
    ]
    return cut("\n".join(lines), CONTENT_LIMIT)
