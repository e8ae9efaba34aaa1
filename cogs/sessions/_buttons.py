"""The announcement's buttons and the card they sit on. Remind me and Add to calendar are PersistentButtons with
the session id in their custom_id, so they keep working after a restart (registered in the cog's cog_load)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

import discord
from discord.utils import escape_markdown

from bot import timeutil
from bot.client import Interaction, PaperclubBot
from bot.layouts import link_button
from bot.permissions import require_guild_id
from bot.replies import one_line, send_ephemeral
from bot.services.calendars import ics
from bot.services.sessions.info import SessionInfo
from bot.services.sessions.queries import DEFAULT_REMIND_BEFORE_MINUTES
from bot.services.sessions.reads import remind_me
from bot.timeutil import DisplayZone
from bot.views import PersistentButton, field
from cogs.sessions import _render as render
from cogs.sessions import announcement_buttons
from cogs.sessions._context import sessions_context
from cogs.sessions._members import AskButton, KeepOutButton
from cogs.sessions.recap_form import RecapFormButton

IN_SERVER_ONLY = "This button works in a server, not in DMs."


class RemindMeButton(PersistentButton, prefix="session:remind"):
    """Toggles the presser's reminder for the session."""

    session_id: int = field(r"\d{1,10}", int)
    label = "Remind me"
    emoji = "⏰"
    style = discord.ButtonStyle.primary

    async def pressed(self, interaction: Interaction) -> None:
        guild_id = require_guild_id(interaction, IN_SERVER_ONLY)
        now = interaction.client.clock.now()
        reminded, info = await remind_me(
            sessions_context(interaction), guild_id, self.session_id, interaction.user.id, now
        )
        title = escape_markdown(one_line(info.title, 150))
        if reminded.interested and not reminded.asked:
            text = (
                f"OK. You marked *Interested* on the Discord event of **{title}**, so I'll still DM you "
                "before it (once) until you unmark it."
            )
        elif reminded.asked:
            dm_at = info.starts_at - timedelta(minutes=DEFAULT_REMIND_BEFORE_MINUTES)
            text = (
                f"I'll remind you by DM an hour before **{title}**: {timeutil.discord_timestamp(dm_at, 'F')}. "
                "Press **Remind me** again to stop."
            )
        else:
            text = f"OK, no reminder for **{title}**."
        await send_ephemeral(interaction, text)


class CalendarButton(PersistentButton, prefix="session:ics"):
    """Sends the presser the session's .ics file."""

    session_id: int = field(r"\d{1,10}", int)
    label = "Add to calendar"
    emoji = "📅"

    async def pressed(self, interaction: Interaction) -> None:
        guild_id = require_guild_id(interaction, IN_SERVER_ONLY)
        now = interaction.client.clock.now()
        info, data = await ics.session_calendar(
            sessions_context(interaction).store, guild_id, self.session_id, now
        )
        file = discord.File(io.BytesIO(data), filename=ics.session_filename(info))
        await send_ephemeral(interaction, calendar_hint(info), file=file)


def calendar_hint(info: SessionInfo) -> str:
    """What the calendar file holds, for the presser."""
    if info.is_cancelled:
        return "This session is cancelled; open the file to remove it from your calendar."
    if info.series_id is not None:
        return (
            "This week is part of a series: the file adds every week of it (skipped weeks left out, moved "
            "ones at their own time), and importing it again later updates them."
        )
    return "Open the file to add the session to your calendar (Google, Apple and Outlook read it)."


async def session_buttons(bot: PaperclubBot, info: SessionInfo, now: datetime) -> list[discord.ui.Item[Any]]:
    """Sign up, Remind me, other features' buttons (:mod:`cogs.sessions.announcement_buttons`), Add to
    calendar and the links a session keeps; fewer once cancelled or over."""
    extras = announcement_buttons.of(bot)
    links = await extras.links(info)
    if info.has_ended(now):
        return [RecapFormButton(info.id), *links] if not info.is_cancelled else links
    if info.is_cancelled:
        return [CalendarButton(info.id), *links]
    items: list[discord.ui.Item[Any]] = []
    if info.signup_url and (signup := link_button(info.signup_url, "Sign up")) is not None:
        items.append(signup)
    if not info.has_started(now):
        items.append(RemindMeButton(info.id))
        items.append(KeepOutButton(info.id))
        if info.presenter_id is not None or info.presenter_name:
            items.append(AskButton(info.id))
        items.extend(extras.coming(info))
    return [*items, CalendarButton(info.id), *links]


async def announcement_view(
    bot: PaperclubBot,
    info: SessionInfo,
    zones: Sequence[DisplayZone],
    now: datetime,
    *,
    note: str | None = None,
) -> discord.ui.LayoutView:
    """The session's card with its buttons, as a whole message's layout (``note`` above it)."""
    buttons = await session_buttons(bot, info, now)
    return render.session_card(info, zones, now=now, buttons=buttons).view(note=note)
