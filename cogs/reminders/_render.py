"""What /remind shows: the confirmation of a new reminder and the pages of /remind list."""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot import timeutil
from bot.replies import EMBED_DESCRIPTION_LIMIT, cut, one_line
from bot.services.reminders.queries import describe
from bot.services.reminders.requested import ReminderInfo, ReminderList, Subscription
from bot.timeutil import DisplayZone

LIST_PAGE_SIZE = 8
_STATUS_WORD = {"missed": "Missed", "failed": "Failed"}


def where(info: ReminderInfo) -> str:
    """Where a reminder goes, as Discord shows it."""
    if info.user_id is not None:
        return f"DM to <@{info.user_id}>"
    if info.channel_id is not None:
        return f"<#{info.channel_id}>"
    return "announcements channel"


def when(info: ReminderInfo, zones: Sequence[DisplayZone]) -> str:
    """A reminder's time in the club's zones."""
    return f"{timeutil.format_club_time(info.due_at, zones)} ({timeutil.discord_timestamp(info.due_at, 'R')})"


def added_text(info: ReminderInfo, zones: Sequence[DisplayZone], note: str | None) -> str:
    """The answer to /remind add."""
    lines = [
        f"⏰ Reminder **#{info.id}** will go out in {where(info)} on {when(info, zones)}",
        f"That is {timeutil.discord_timestamp(info.due_at, 'F')} in your own time zone.",
    ]
    if info.session_title:
        lines.append(f"It is tied to session #{info.session_id} and moves if the session moves.")
    if info.repeat:
        lines.append(f"It repeats {info.repeat} at the same local time.")
    if note:
        lines.append(f"Note: {note}.")
    lines.append(f"Cancel it with `/remind cancel reminder:{info.id}`.")
    return "\n".join(lines)


def cancelled_text(info: ReminderInfo) -> str:
    """The answer to /remind cancel."""
    return f"Cancelled reminder **#{info.id}** ({one_line(describe(info), 120)})."


def subscription_text(result: Subscription, zones: Sequence[DisplayZone]) -> str:
    """The answer to /remind me."""
    title = discord.utils.escape_markdown(one_line(result.session_title, 150))
    if not result.subscribed:
        return f"OK, no DM before **{title}**."
    first = "Moved your reminder" if result.changed_offset else "I'll DM you"
    return (
        f"{first}: {timeutil.format_offset(result.before)} before **{title}**, "
        f"at {timeutil.discord_timestamp(result.due_at, 'F')} ({timeutil.discord_timestamp(result.due_at, 'R')}).\n"
        f"The session: {timeutil.format_club_time(result.starts_at, zones)}.\n"
        "Run the same command again to turn it off."
    )


def _pending_line(info: ReminderInfo, zones: Sequence[DisplayZone]) -> str:
    extra = f" · repeats {info.repeat}" if info.repeat else ""
    retry = (
        f" · retrying ({info.attempts} tries so far)" if info.attempts and info.status == "pending" else ""
    )
    sending = " · sending now" if info.status == "sending" else ""
    text = one_line(describe(info), 90)
    return f"**#{info.id}** · {when(info, zones)} · {where(info)}{extra}{retry}{sending}\n└ {text}"


def _problem_line(info: ReminderInfo) -> str:
    word = _STATUS_WORD.get(info.status, info.status)
    reason = one_line(info.last_error or "no reason recorded", 160)
    return (
        f"**#{info.id}** · {word} · due {timeutil.discord_timestamp(info.due_at, 'f')} · {where(info)}\n"
        f"└ {one_line(describe(info), 70)} — {reason}"
    )


def list_embed(page: ReminderList, zones: Sequence[DisplayZone]) -> discord.Embed:
    """The /remind list page."""
    embed = discord.Embed(title=f"Reminders: {page.total_pending} pending", colour=discord.Colour.blurple())
    parts: list[str] = []
    if page.pending:
        parts.extend(_pending_line(info, zones) for info in page.pending)
    elif page.total_pending == 0:
        parts.append("No pending reminders. Schedule one with `/remind add`.")
    if page.problems:
        parts.append(f"\n**Missed or failed in the last week ({page.total_problems})**")
        parts.extend(_problem_line(info) for info in page.problems)
    embed.description = cut("\n".join(parts), EMBED_DESCRIPTION_LIMIT)
    return embed
