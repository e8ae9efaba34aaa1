"""What /remind answers: a new reminder, a cancelled one, Remind me, /organize reminder list's pages."""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot import timeutil
from bot.layouts import Card, escape_line
from bot.services.reminders.queries import ReminderList, describe
from bot.services.reminders.requested import ReminderInfo, Subscription
from bot.text import one_line
from bot.timeutil import DisplayZone

LIST_PAGE_SIZE = 8
ACCENT = discord.Colour.blurple()
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
    """The answer to /organize reminder add."""
    lines = [
        f"⏰ Reminder **#{info.number}** will go out in {where(info)} on {when(info, zones)}",
        f"That is {timeutil.discord_timestamp(info.due_at, 'F')} in your own time zone.",
    ]
    if info.session_title:
        lines.append(
            f"It is tied to **{escape_line(info.session_title, 150)}** and moves if the session moves."
        )
    if info.repeat:
        lines.append(f"It repeats {info.repeat} at the same local time.")
    if note:
        lines.append(f"Note: {note}.")
    lines.append(f"Cancel it with `/organize reminder cancel reminder:{info.number}`.")
    return "\n".join(lines)


def cancelled_text(info: ReminderInfo) -> str:
    """The answer to /organize reminder cancel."""
    return f"Cancelled reminder **#{info.number}** ({escape_line(describe(info), 120)})."


def subscription_text(result: Subscription, zones: Sequence[DisplayZone]) -> str:
    """The answer to /remind me."""
    title = escape_line(result.session_title, 150)
    if not result.subscribed and result.interested:
        return (
            f"OK, this no longer asks for a DM before **{title}**; you marked *Interested* on its Discord "
            "event, so one still comes until you unmark it."
        )
    if not result.subscribed:
        return f"OK, no DM before **{title}**."
    first = "Moved your reminder" if result.changed_offset else "I'll DM you"
    return (
        f"{first}: {timeutil.format_offset(result.before)} before **{title}**, "
        f"at {timeutil.discord_timestamp(result.due_at, 'F')} ({timeutil.discord_timestamp(result.due_at, 'R')}).\n"
        f"The session: {timeutil.format_club_time(result.starts_at, zones)}.\n"
        "Run the same command again to turn it off."
    )


def _label(info: ReminderInfo) -> str:
    return f"**#{info.number}**" if info.number is not None else "**Automatic**"


def _pending_line(info: ReminderInfo, zones: Sequence[DisplayZone]) -> str:
    extra = f" · repeats {info.repeat}" if info.repeat else ""
    retry = (
        f" · retrying ({info.attempts} tries so far)" if info.attempts and info.status == "pending" else ""
    )
    sending = " · sending now" if info.status == "sending" else ""
    text = escape_line(describe(info), 90)
    return f"{_label(info)} · {when(info, zones)} · {where(info)}{extra}{retry}{sending}\n└ {text}"


def _problem_line(info: ReminderInfo) -> str:
    word = _STATUS_WORD.get(info.status, info.status)
    reason = one_line(info.last_error or "no reason recorded", 160)  # ours: it may name a channel
    return (
        f"{_label(info)} · {word} · due {timeutil.discord_timestamp(info.due_at, 'f')} · {where(info)}\n"
        f"└ {escape_line(describe(info), 70)} — {reason}"
    )


def list_card(page: ReminderList) -> Card:
    """A page of /organize reminder list: pending reminders, then those missed or failed in the last week."""
    card = Card(accent=ACCENT).more("reminders", "reminders")
    below = []
    if page.total_pending == 0:
        below.append("No pending reminders. Schedule one with `/organize reminder add`.")
    if page.hidden:
        some = "1 automatic reminder" if page.hidden == 1 else f"{page.hidden:,} automatic reminders"
        below.append(
            f"-# Also {some} before sessions, to members who asked and to the organizers: "
            "`/organize reminder list automatic:True` shows them."
        )
    heading = "Reminders, automatic ones too" if page.automatic else "Reminders"
    card.heading(f"{heading}: {page.total_pending} pending", below="\n".join(below) or None)
    for info in page.pending:
        card.text(_pending_line(info, page.zones), group="reminders")
    if page.problems:
        card.text(f"**Missed or failed in the last week ({page.total_problems})**")
    for info in page.problems:
        card.text(_problem_line(info), group="reminders")
    return card
