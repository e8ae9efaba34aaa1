"""The announcement's buttons. Remind me and Add to calendar are PersistentButtons with the session id in
their custom_id, so they keep working after a restart (registered in the cog's cog_load)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import datetime
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
from bot.services.sessions.queries import toggle_subscription
from bot.services.sessions.store import get_session
from bot.timeutil import DisplayZone
from bot.views import PersistentButton, field
from cogs.sessions import _render as render
from cogs.sessions import announcement_buttons

IN_SERVER_ONLY = "This button works in a server, not in DMs."


class RemindMeButton(PersistentButton, prefix="session:remind"):
    """Toggles the presser's reminder for the session."""

    session_id: int = field(r"\d{1,10}", int)
    label = "Remind me"
    emoji = "⏰"
    style = discord.ButtonStyle.primary

    async def pressed(self, interaction: Interaction) -> None:
        guild_id = require_guild_id(interaction, IN_SERVER_ONLY)
        bot = interaction.client
        async with bot.session_factory() as session, session.begin():
            subscribed = await toggle_subscription(
                session, guild_id, self.session_id, interaction.user.id, now=bot.clock.now()
            )
            info = await get_session(session, guild_id, self.session_id)
        bot.dispatch(
            "session_subscription_changed", guild_id, self.session_id, interaction.user.id, subscribed
        )
        title = escape_markdown(one_line(info.title, 150))
        if subscribed:
            text = (
                f"I'll remind you before **{title}** ({timeutil.discord_timestamp(info.starts_at, 'F')}). "
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
        bot = interaction.client
        async with bot.session_factory() as session:
            info = await get_session(session, guild_id, self.session_id)
            data = await ics.session_calendar(session, info, bot.clock.now(), name=one_line(info.title, 100))
        await send_ephemeral(interaction, calendar_hint(info), file=ics_file(info, data))


def calendar_hint(info: SessionInfo) -> str:
    if info.is_cancelled:
        return "This session is cancelled; open the file to remove it from your calendar."
    if info.series_id is not None:
        return (
            "This week is part of a series: the file adds every week of it (skipped weeks left out, moved "
            "ones at their own time), and importing it again later updates them."
        )
    return "Open the file to add the session to your calendar (Google, Apple and Outlook read it)."


def ics_file(info: SessionInfo, data: bytes) -> discord.File:
    return discord.File(io.BytesIO(data), filename=ics.session_filename(info))


async def session_buttons(bot: PaperclubBot, info: SessionInfo, now: datetime) -> list[discord.ui.Item[Any]]:
    """Sign up (a link), Remind me, what other features add while the session is coming (a week of a
    series: I'll present), Add to calendar, and the links it keeps (the website's Session page); fewer once
    cancelled or over. Other features add theirs through :mod:`cogs.sessions.announcement_buttons`."""
    extras = announcement_buttons.of(bot)
    links = await extras.links(info)
    if info.has_ended(now):
        return links
    if info.is_cancelled:
        return [CalendarButton(info.id), *links]
    items: list[discord.ui.Item[Any]] = []
    if info.signup_url and (signup := link_button(info.signup_url, "Sign up")) is not None:
        items.append(signup)
    if not info.has_started(now):
        items.append(RemindMeButton(info.id))
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
