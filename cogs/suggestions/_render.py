"""What suggestions look like in Discord: the card embed, list pages and the ephemeral notices."""

from __future__ import annotations

from datetime import datetime

import discord
from discord.utils import escape_markdown

from bot import timeutil
from bot.layouts import Card, escape, lines
from bot.replies import (
    EMBED_FIELD_VALUE_LIMIT,
    EMBED_TITLE_LIMIT,
    cut,
    fit_embed,
    markdown_link,
    member_mention,
    one_line,
)
from bot.services.papers.card import fit_lines, short_lines
from bot.services.suggestions.actions import DuplicateNotice
from bot.services.suggestions.polls import PollResult
from bot.services.suggestions.queries import SuggestionCard, SuggestionSummary

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
REASON_LIMIT = 1000
ABSTRACT_LIMIT = 700


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def safe_title(title: str, limit: int = EMBED_TITLE_LIMIT) -> str:
    """A paper title for display: one line, markdown escaped, within ``limit``."""
    return cut(escape_markdown(one_line(title, limit)), limit)


def mentions(
    user_ids: tuple[int, ...], limit: int = EMBED_FIELD_VALUE_LIMIT, empty: str = "nobody yet"
) -> str:
    """'<@1>, <@2> and 3 more' within ``limit`` characters (mentions in embeds never ping)."""
    if not user_ids:
        return empty
    shown: list[str] = []
    for index, user_id in enumerate(user_ids):
        rest = len(user_ids) - index
        candidate = ", ".join([*shown, f"<@{user_id}>"])
        if len(candidate) + len(f" and {rest} more") > limit:
            return ", ".join(shown) + f" and {rest} more"
        shown.append(f"<@{user_id}>")
    return ", ".join(shown)


def post_link(guild_id: int, card: SuggestionCard) -> str | None:
    if card.channel_id is None or card.message_id is None:
        return None
    return f"https://discord.com/channels/{guild_id}/{card.channel_id}/{card.message_id}"


def status_line(card: SuggestionCard) -> str:
    text = STATUS_LABELS.get(card.status, card.status)
    if card.reviewed_by is not None and card.status in ("shortlisted", "accepted", "declined"):
        text += f" by <@{card.reviewed_by}>"
    return text


def card_embed(card: SuggestionCard, *, full: bool = False) -> discord.Embed:
    """The suggestion's post (and, with ``full``, /suggest show: every voter too)."""
    embed = discord.Embed(
        title=safe_title(card.paper.title),
        url=card.paper.url,
        colour=STATUS_COLOURS.get(card.status, discord.Colour.blurple()),
        timestamp=card.created_at,
    )
    parts = []
    if card.reason:
        parts.append(f"**Why:** {cut(card.reason, REASON_LIMIT)}")
    if card.abstract:
        parts.append("> " + cut(one_line(card.abstract, 4000), ABSTRACT_LIMIT * (2 if full else 1)))
    if parts:
        embed.description = "\n\n".join(parts)
    suggested_by = member_mention(card.submitter_id)
    if card.source_url:
        suggested_by += f" from [a message]({card.source_url})"
    embed.add_field(name="Suggested by", value=suggested_by)
    embed.add_field(name="Topic", value=escape_markdown(card.topic) if card.topic else "—")
    embed.add_field(name="Status", value=status_line(card))
    if card.paper.authors:
        embed.add_field(name="Authors", value=cut(escape_markdown(card.paper.authors), 300), inline=False)
    if card.published:
        embed.add_field(name="Published", value=card.published)
    embed.add_field(name="Votes", value=str(card.votes))
    paper_lines = short_lines(card.record) if card.record else []
    if paper_lines:
        embed.add_field(name="The paper", value=fit_lines(paper_lines, EMBED_FIELD_VALUE_LIMIT), inline=False)
    if card.review_note:
        embed.add_field(
            name="Organizers' note", value=cut(card.review_note, EMBED_FIELD_VALUE_LIMIT), inline=False
        )
    embed.add_field(
        name="Offered to present",
        value=mentions(card.volunteer_ids, empty="nobody yet — press **I'd present this**"),
        inline=False,
    )
    if full:
        embed.add_field(name="Voters", value=mentions(card.voter_ids, empty="no votes yet"), inline=False)
        if card.session_id is not None:
            embed.add_field(name="Session", value=f"Session #{card.session_id}")
    embed.set_footer(text=f"Suggestion #{card.id}")
    return fit_embed(embed)


def post_card(card: SuggestionCard) -> Card:
    """The suggestion's post as a layout card: the title as a heading, why, the abstract, who suggested it
    (and from which message), topic, status, authors, the paper's short card, the organizers' note, who
    offered to present; each member or source text escaped once (the link is the post's button)."""
    layout = Card(accent=STATUS_COLOURS.get(card.status, discord.Colour.blurple()))
    layout.heading(card.paper.title)
    if card.reason:
        layout.text(f"**Why:** {escape(card.reason, REASON_LIMIT)}")
    if card.abstract:
        layout.text("> " + escape(one_line(card.abstract, 4000), ABSTRACT_LIMIT))
    suggested_by = member_mention(card.submitter_id)
    if card.source_url:
        suggested_by += f" from [a message]({card.source_url})"
    facts = [
        f"**Suggested by:** {suggested_by}",
        f"**Topic:** {escape(card.topic, 50) if card.topic else '—'}",
        f"**Status:** {status_line(card)}",
        f"**Authors:** {escape(card.paper.authors, 300)}" if card.paper.authors else None,
        f"**Published:** {card.published}" if card.published else None,
        f"**Votes:** {card.votes}",
    ]
    layout.text(lines(facts))
    paper_lines = short_lines(card.record) if card.record else []
    if paper_lines:
        layout.text("**The paper**\n" + fit_lines(paper_lines, 1500))
    if card.review_note:
        layout.text(f"**Organizers' note:** {escape(card.review_note, 500)}")
    offered = mentions(card.volunteer_ids, limit=1000, empty="nobody yet — press **I'd present this**")
    layout.text(f"**Offered to present:** {offered}")
    layout.text(f"-# Suggestion #{card.id} · {timeutil.discord_timestamp(card.created_at, 'D')}")
    return layout


def summary_line(item: SuggestionSummary) -> str:
    linked = (
        markdown_link(item.title, item.url, limit=90) if item.url else f"**{safe_title(item.title, 90)}**"
    )
    presenters = f" · 🎤 {item.volunteers}" if item.volunteers else ""
    topic = f" · {escape_markdown(item.topic)}" if item.topic else ""
    return (
        f"`#{item.id}` {linked}\n"
        f"{STATUS_LABELS.get(item.status, item.status)} · 👍 {item.votes}{presenters}{topic} · {member_mention(item.submitter_id)}"
    )


def list_embed(items: list[SuggestionSummary], total: int, heading: str) -> discord.Embed:
    embed = discord.Embed(title=heading, colour=discord.Colour.blurple())
    if not items:
        embed.description = "No suggestions here yet. Suggest a paper with `/suggest paper`."
    else:
        embed.description = cut("\n\n".join(summary_line(item) for item in items), 4000)
    embed.set_footer(text=plural(total, "suggestion"))
    return embed


def choice_name(item: SuggestionSummary) -> str:
    """An autocomplete choice: '#12 · Title (shortlisted, 5 votes)', at most 100 characters."""
    tail = f" ({item.status}, {plural(item.votes, 'vote')})"
    return f"#{item.id} · {one_line(item.title, 100 - len(tail) - len(str(item.id)) - 4)}{tail}"[:100]


def duplicate_message(notice: DuplicateNotice, guild_id: int, zone: str, now: datetime) -> str:
    """Tell the member where the paper already stands."""
    standing = notice.standing
    title = f"**{safe_title(standing.paper_title, 150)}**"
    if standing.read_at is not None:
        session = escape_markdown(one_line(standing.read_session_title or "", 80))
        when = timeutil.format_club_date(standing.read_at, zone, now=now)
        return f"The club already read {title}: on {when} ({session}). Nothing new was added."
    if standing.suggestion_id is not None and standing.suggested_at is not None:
        when = timeutil.format_club_date(standing.suggested_at, zone, now=now)
        where = f"suggestion #{standing.suggestion_id}"
        if notice.own:
            offered = " Your offer to present it was added." if notice.volunteered else ""
            return (
                f"You already suggested {title} on {when} ({where}, {plural(notice.votes, 'vote')}).{offered}"
            )
        head = f"{title} was already suggested by {member_mention(standing.submitter_id)} on {when} ({where})"
        offered = " Your offer to present it was added." if notice.volunteered else ""
        if notice.vote_added:
            return f"{head} — your vote was added ({plural(notice.votes, 'vote')} now).{offered}"
        return f"{head} — you had already voted for it ({plural(notice.votes, 'vote')}).{offered}"
    if standing.scheduled_at is not None:
        session = escape_markdown(one_line(standing.scheduled_session_title or "", 80))
        when = timeutil.format_club_date(standing.scheduled_at, zone, now=now)
        return f"{title} is already on the programme: {session} on {when}. Nothing new was added."
    return f"{title} is already on the club's list."


def poll_result_message(result: PollResult) -> str:
    if result.total_votes == 0 or not result.winners:
        return "📊 The paper poll has ended with no votes; nothing was picked."
    lines = [
        f"{i}. {safe_title(o.title, 80)} (#{o.suggestion_id}) — {plural(o.votes, 'vote')}"
        for i, o in enumerate(result.options, start=1)
    ]
    if result.winner is not None:
        head = f"📊 The paper poll has ended: **{safe_title(result.winner.title, 150)}** wins"
    else:
        head = "📊 The paper poll has ended in a tie between " + " and ".join(
            f"**{safe_title(w.title, 60)}**" for w in result.winners
        )
    return cut(f"{head} ({plural(result.total_votes, 'vote')} in all).\n" + "\n".join(lines), 2000)
