"""What suggestions look like in Discord: the post and the list as layout cards, the replies and the DMs."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

import discord

from bot.layouts import Card, escape, escape_line, lines, link_button
from bot.replies import member_mention
from bot.services.papers.card import fit_lines, short_lines
from bot.services.suggestions.actions import DuplicateNotice, Suggested
from bot.services.suggestions.polls import PollResult
from bot.services.suggestions.queries import SortOrder, StatusFilter, SuggestionCard, SuggestionSummary
from bot.text import Page, cut, plural
from bot.timeutil import club_date

STATUS_LABELS = {
    "open": "🗳️ Open",
    "shortlisted": "⭐ Shortlisted",
    "accepted": "✅ Accepted",
    "declined": "✖️ Declined",
    "withdrawn": "↩️ Withdrawn",
}
STATUS_COLOURS = {
    "open": discord.Colour.blurple(),
    "shortlisted": discord.Colour.gold(),
    "accepted": discord.Colour.green(),
    "declined": discord.Colour.dark_grey(),
    "withdrawn": discord.Colour.light_grey(),
}
LIST_HEADINGS = {"active": "Paper suggestions", "all": "All paper suggestions"}
REASON_LIMIT = 1000
ABSTRACT_LIMIT = 700
TITLE_SHOWN = 150
POLL_ANSWER_LIMIT = 55  # Discord: a poll answer's text is at most 55 characters
POLL_QUESTION = "Which paper should the club read next?"


def mentions(user_ids: Sequence[int], limit: int, empty: str) -> str:
    """'<@1>, <@2> and 3 more' within ``limit`` characters."""
    if not user_ids:
        return empty
    shown: list[str] = []
    for index, user_id in enumerate(user_ids):
        rest = len(user_ids) - index
        if len(", ".join([*shown, f"<@{user_id}>"])) + len(f" and {rest} more") > limit:
            return ", ".join(shown) + f" and {rest} more"
        shown.append(f"<@{user_id}>")
    return ", ".join(shown)


def status_line(card: SuggestionCard) -> str:
    """'⭐ Shortlisted by @Olivia'."""
    text = STATUS_LABELS.get(card.status, card.status)
    if card.reviewed_by is not None and card.status in ("shortlisted", "accepted", "declined"):
        text += f" by <@{card.reviewed_by}>"
    return text


def published_on(card: SuggestionCard, now: datetime) -> str | None:
    """arXiv's date for the paper in the club's style ('17 June 2024'; no year when it is this year's)."""
    if not card.published:
        return None
    try:
        day = date.fromisoformat(card.published[:10])
    except ValueError:
        return escape_line(card.published, 40)
    return club_date(day, card.zone, now=now, weekday=False)


def post_card(card: SuggestionCard, now: datetime, *, full: bool = False) -> Card:
    """The suggestion's post (``full``: /suggest show, with who voted too)."""
    layout = Card(accent=STATUS_COLOURS.get(card.status, discord.Colour.blurple()))
    layout.heading(card.paper.title)
    if card.reason:
        layout.text(f"**Why:** {escape(card.reason, REASON_LIMIT)}")
    if card.abstract:
        layout.text("> " + escape_line(card.abstract, ABSTRACT_LIMIT * (2 if full else 1)))
    suggested = member_mention(card.submitter_id)
    if card.source_url:
        suggested += f" from [a message]({card.source_url})"
    suggested += f" on {club_date(card.created_at, card.zone, now=now)}"
    published = published_on(card, now)
    facts = [
        f"**Suggested by:** {suggested}",
        f"**Topic:** {escape_line(card.topic, 50) if card.topic else '—'}",
        f"**Status:** {status_line(card)}",
        f"**Authors:** {escape_line(card.paper.authors, 300)}" if card.paper.authors else None,
        f"**Published:** {published}" if published else None,
    ]
    layout.text(lines(facts))
    paper_lines = short_lines(card.record) if card.record else []
    if paper_lines:
        layout.text("**The paper**\n" + fit_lines(paper_lines, 1500))
    if card.review_note:
        layout.text(f"**Organizers' note:** {escape(card.review_note, 500)}")
    offered = mentions(card.volunteer_ids, 1000, "nobody yet — press **I'd present this**")
    layout.text(f"**Offered to present:** {offered}")
    if full:
        layout.text(f"**Voted for it:** {mentions(card.voter_ids, 1000, 'nobody yet')}")
        if card.session_id is not None:
            layout.text("A session was made from it.")
    return layout


def show_view(card: SuggestionCard, now: datetime) -> discord.ui.LayoutView:
    """/suggest show: the full card, with a link to the post."""
    layout = post_card(card, now, full=True)
    post = link_button(card.post_url, "Post") if card.post_url else None
    paper = link_button(card.paper.url)
    layout.row([button for button in (post, paper) if button is not None])
    return layout.view()


def list_heading(status: StatusFilter, topic: str | None, sort: SortOrder) -> str:
    """'Paper suggestions · user simulators · most voted first'."""
    heading = LIST_HEADINGS.get(status) or f"{STATUS_LABELS[status].split(' ', 1)[1]} suggestions"
    if topic:
        heading += f" · {topic}"
    return heading + (" · newest first" if sort == "newest" else " · most voted first")


def summary_text(item: SuggestionSummary) -> str:
    """One suggestion of the list: its title, then status, votes, presenters, topic and who suggested it."""
    facts = [STATUS_LABELS.get(item.status, item.status), f"👍 {item.votes}"]
    if item.volunteers:
        facts.append(f"🎤 {item.volunteers}")
    if item.topic:
        facts.append(escape_line(item.topic, 50))
    facts.append(member_mention(item.submitter_id))
    return f"**{escape_line(item.title, TITLE_SHOWN)}**\n{' · '.join(facts)}"


def list_card(page: Page[SuggestionSummary], heading: str) -> Card:
    """A page of /suggest list: each suggestion with its paper's link beside it."""
    below = (
        plural(page.total, "suggestion")
        if page.items
        else "No suggestions here yet. Suggest a paper with `/suggest paper`."
    )
    card = Card(accent=discord.Colour.blurple()).heading(heading, below=below)
    for item in page.items:
        card.section(summary_text(item), link_button(item.url))
    return card


def choice_name(item: SuggestionSummary) -> str:
    """An autocomplete choice: 'Title (shortlisted, 5 votes)', at most 100 characters."""
    tail = f" ({item.status}, {plural(item.votes, 'vote')})"
    return " ".join(item.title.split())[: 100 - len(tail)] + tail


def suggested_text(result: Suggested, volunteered: bool, now: datetime) -> str:
    """/suggest's answer: what happened, and where the post is (never the post again)."""
    if result.duplicate is not None:
        return duplicate_text(result.duplicate, result.zone, now)
    assert result.card is not None
    card = result.card
    title = f"**{escape_line(card.paper.title, TITLE_SHOWN)}**"
    if result.not_posted is not None:
        said = escape_line(result.not_posted, 120)
        text = (
            f"Thanks! {title} is saved, but I could not post it in <#{result.channel_id}> (Discord said: {said}); "
            "an organizer should check my permissions there. Members find it in `/suggest list`."
        )
    else:
        text = f"Thanks! {title} is saved and posted for members to vote on: {card.post_url}"
    if volunteered:
        text += "\nYou offered to present it; press **I'd present this** on the post to take that back."
    if result.arxiv_down:
        text += "\narXiv did not answer just now, so I saved what you gave; its details follow by themselves."
    return text


def duplicate_text(notice: DuplicateNotice, zone: str, now: datetime) -> str:
    """Where the paper already stands, and what became of the member's suggestion."""
    standing = notice.standing
    title = f"**{escape_line(standing.paper_title, TITLE_SHOWN)}**"
    if standing.read_at is not None:
        session = escape_line(standing.read_session_title or "", 80)
        return f"The club already read {title}: {session}, on {club_date(standing.read_at, zone, now=now)}. Nothing new was saved."
    if standing.suggestion_id is not None and standing.suggested_at is not None:
        when = club_date(standing.suggested_at, zone, now=now)
        post = f" Its post: {standing.post_url}" if standing.post_url else ""
        offered = " Your offer to present it was added." if notice.volunteered else ""
        if notice.own:
            return f"You already suggested {title} on {when} ({plural(notice.votes, 'vote')}).{offered}{post}"
        head = f"{title} was already suggested by {member_mention(standing.submitter_id)} on {when}"
        if notice.vote_added:
            return f"{head}, so your vote went to it ({plural(notice.votes, 'vote')} now).{offered}{post}"
        return f"{head}; you had already voted for it ({plural(notice.votes, 'vote')}).{offered}{post}"
    if standing.scheduled_at is not None:
        session = escape_line(standing.scheduled_session_title or "", 80)
        when = club_date(standing.scheduled_at, zone, now=now)
        return f"{title} is already on the programme: {session}, on {when}. Nothing new was saved."
    return f"{title} is already on the club's list."


def reviewed_text(card: SuggestionCard, told: bool | None) -> str:
    """The organizer's answer to /organize suggestions review."""
    text = f"**{escape_line(card.paper.title, TITLE_SHOWN)}** is now {STATUS_LABELS[card.status].lower()}."
    if told is not None:
        who = member_mention(card.submitter_id)
        text += f"\n{who} was told by DM." if told else f"\nI could not DM {who} (DMs closed)."
    if card.status == "accepted" and card.session_id is None:
        text += "\nMake a session from it now, or later with the button:"
    return text


def thread_note(card: SuggestionCard, reviewer_id: int) -> str:
    """The review, as a line in a forum post's thread."""
    note = f": {escape(card.review_note, 500)}" if card.review_note else "."
    return f"{STATUS_LABELS[card.status]} by <@{reviewer_id}>{note}"


def submitter_dm(card: SuggestionCard, guild_name: str, *, withdrawn: bool = False) -> str:
    """The submitter's DM after a review, or when an organizer withdrew the suggestion."""
    text = f"Your paper suggestion **{escape_line(card.paper.title, 200)}** in **{escape_line(guild_name, 100)}** "
    if withdrawn:
        return text + "was withdrawn by an organizer."
    verb = {"shortlisted": "shortlisted", "accepted": "accepted 🎉", "declined": "declined"}[card.status]
    text += f"was {verb} by the organizers."
    if card.review_note:
        text += f"\nTheir note: {escape(card.review_note, 500)}"
    return text + (f"\n{card.post_url}" if card.post_url else "")


def poll_answer(option: SuggestionSummary) -> str:
    """A poll's answer: the paper's title on one line, within Discord's 55 characters."""
    return cut(" ".join(option.title.split()), POLL_ANSWER_LIMIT)


def poll_text(options: Sequence[SuggestionSummary], hours: int) -> str:
    """The line above the poll, and each paper with its votes so far."""
    head = f"🗳️ Vote for the paper the club reads next (poll open for {hours} h):"
    return "\n".join([head, *(f"• {escape_line(o.title, 120)} — 👍 {o.votes}" for o in options)])


def poll_result_message(result: PollResult) -> str:
    """The result under an ended poll."""
    if result.total_votes == 0 or not result.winners:
        return "📊 The paper poll has ended with no votes; nothing was picked."
    ranked = [
        f"{i}. {escape_line(o.title, 80)} — {plural(o.votes, 'vote')}"
        for i, o in enumerate(result.options, start=1)
    ]
    if result.winner is not None:
        head = f"📊 The paper poll has ended: **{escape_line(result.winner.title, TITLE_SHOWN)}** wins"
    else:
        head = "📊 The paper poll has ended in a tie between " + " and ".join(
            f"**{escape_line(w.title, 60)}**" for w in result.winners
        )
    return cut(f"{head} ({plural(result.total_votes, 'vote')} in all).\n" + "\n".join(ranked), 2000)
