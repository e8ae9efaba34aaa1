"""/remind me; /organize reminder add, list and cancel; the session events that plan automatic reminders."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands
from sqlalchemy.ext.asyncio import AsyncSession

from bot import timeutil
from bot.client import Interaction, PaperclubBot
from bot.errors import BadInput, NotAllowed
from bot.hidden_channels import cannot_see, hidden_from_bot
from bot.ids import parse_id
from bot.layouts import Card, escape_line
from bot.organize import organizer_group
from bot.paging import LayoutPage, send_page
from bot.permissions import (
    ensure_organizer,
    guild_config_for,
    member_is_organizer,
    organizer_begin,
    require_guild_id,
)
from bot.replies import send_ephemeral
from bot.services.config.guild import get_config
from bot.services.reminders import requested as svc
from bot.services.reminders.requested import ReminderInfo, ReminderList, Subscription, describe
from bot.services.reminders.runner import Reminders
from bot.text import one_line
from bot.timeutil import DisplayZone
from bot.transformers import IdTransformer, OptionTransformer, SessionOption, guild_choices
from bot.transformers import WhenTransformer as SharedWhenTransformer
from bot.when import pasted_instant
from cogs.reminders._transport import DiscordTransport

Repeat = Literal["none", "daily", "weekly", "monthly"]
Message = app_commands.Range[str, 1, svc.MAX_MESSAGE]


class WhenTransformer(SharedWhenTransformer):
    """A time as typed or pasted, or with a `session` a time before it ('1h'), previewed as it is read."""

    what = "reminder"
    max_days_ahead = svc.MAX_DAYS_AHEAD
    default_clock = svc.DEFAULT_CLOCK
    examples = "tomorrow 9am, 2026-12-03 09:00, or 1h with a session"

    async def preview(self, interaction: Interaction, text: str) -> str:
        """The autocomplete line: the time as the bot read it."""
        session_id = getattr(interaction.namespace, "session", None)
        if interaction.guild_id is None or session_id is None:
            return await super().preview(interaction, text)
        if pasted_instant(text, interaction.client.clock.now()) is not None:
            return await super().preview(interaction, text)  # an instant, before the session or not
        offset, number, title = timeutil.parse_offset(text), parse_id(session_id), None
        if number is not None:
            title = await svc.session_title(interaction.client, interaction.guild_id, number)
        return f"{timeutil.format_offset(offset)} before {one_line(title, 60) if title else 'the session'}"


class DurationTransformer(OptionTransformer):
    """A duration such as 1h, 30m, 2d or 1h30m."""

    maximum = timeutil.MAX_OFFSET_TEXT

    async def transform(self, interaction: Interaction, value: Any) -> timedelta:
        """The duration typed, checked."""
        return timeutil.parse_offset(str(value))


class ReminderIdTransformer(IdTransformer):
    """A pending reminder picked by number, with autocomplete (organizers only: it shows their text)."""

    noun = "reminder"

    async def autocomplete(  # type: ignore[override]
        self, interaction: Interaction, value: int | float | str
    ) -> list[app_commands.Choice[int]]:
        """The guild's pending reminders matching what is typed."""

        async def query(session: AsyncSession, guild_id: int) -> list[tuple[str, int]]:
            config = await get_config(session, guild_id)
            member = interaction.user
            if not isinstance(member, discord.Member) or not member_is_organizer(member, config):
                return []
            return await svc.cancel_choices(session, guild_id, current=str(value)[:100], zone=config.timezone)

        return await guild_choices(interaction, query)


When = app_commands.Transform[str, WhenTransformer]
Duration = app_commands.Transform[timedelta, DurationTransformer]
ReminderId = app_commands.Transform[int, ReminderIdTransformer]


LIST_PAGE_SIZE = 8
ACCENT = discord.Colour.blurple()


def where(info: ReminderInfo) -> str:
    """Where a reminder goes, as Discord shows it."""
    if info.user_id is not None:
        return f"DM to <@{info.user_id}>"
    if info.channel_id is not None:
        return f"<#{info.channel_id}>"
    return "announcements channel"


def due_text(info: ReminderInfo, zones: Sequence[DisplayZone]) -> str:
    """A reminder's time in the club's zones."""
    return f"{timeutil.format_club_time(info.due_at, zones)} ({timeutil.discord_timestamp(info.due_at, 'R')})"


def added_text(info: ReminderInfo, zones: Sequence[DisplayZone], note: str | None) -> str:
    """The answer to /organize reminder add."""
    lines = [
        f"⏰ Reminder **#{info.number}** will go out in {where(info)} on {due_text(info, zones)}",
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
    return f"{_label(info)} · {due_text(info, zones)} · {where(info)}{extra}{retry}{sending}\n└ {text}"


def _problem_line(info: ReminderInfo) -> str:
    reason = one_line(info.last_error or "no reason recorded", 160)  # ours: it may name a channel
    return (
        f"{_label(info)} · {info.status.capitalize()} · due {timeutil.discord_timestamp(info.due_at, 'f')} · {where(info)}\n"
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


PAGER = "reminders"
ALL = "all"  # /organize reminder list's pages with the automatic reminders
PostableChannel = discord.TextChannel | discord.Thread

organize = organizer_group("reminder", "Schedule reminders in a channel, list them, cancel one")


async def ensure_bot_can_post(channel: discord.TextChannel | discord.Thread, bot_user_id: int) -> None:
    """Refuse, with the permission to grant, a channel the bot cannot post in (checked when scheduling)."""
    guild = channel.guild
    me = guild.me or await guild.fetch_member(bot_user_id)
    if hidden_from_bot(channel):
        raise NotAllowed(f"{cannot_see(channel.id)}, or pick another channel.")
    perms = channel.permissions_for(me)
    send_ok = perms.send_messages_in_threads if isinstance(channel, discord.Thread) else perms.send_messages
    missing = [
        name for name, ok in (("View Channel", perms.view_channel), ("Send Messages", send_ok)) if not ok
    ]
    if missing:
        raise NotAllowed(
            f"I can't post in {channel.mention}: give me {' and '.join(missing)} there "
            "(Edit Channel → Permissions), or pick another channel."
        )


@app_commands.guild_only()
class RemindersCog(
    commands.GroupCog, group_name="remind", group_description="Reminders: get a DM before a session"
):
    """/remind, and the session events that plan the automatic reminders: each one call into the service."""

    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot
        self.reminders = Reminders(bot, DiscordTransport(bot))
        super().__init__()

    async def cog_load(self) -> None:
        """Register /organize reminder list's pager, start the runner and plan the upcoming sessions."""
        self.bot.pagers.register(PAGER, self.render_page, guard=ensure_organizer)
        self.organized = self.bot.organize.attach(organize, self)
        await self.reminders.start()

    async def cog_unload(self) -> None:
        """Stop them (a batch in flight may finish)."""
        self.bot.organize.detach(self.organized)
        self.bot.pagers.unregister(PAGER)
        await self.reminders.stop()

    async def settle(self) -> None:
        """Wait until the planning events set off and the sends it made due are done (tests, demo)."""
        await self.reminders.settle()

    @commands.Cog.listener("on_session_saved")
    @commands.Cog.listener("on_session_subscription_changed")
    @commands.Cog.listener("on_session_presenter_notes")
    async def plan_again(self, guild_id: int, session_id: int | None, *_: object) -> None:
        """Plan the session's reminders again (None: every upcoming session of the guild's)."""
        if session_id is None:
            await self.reminders.plan_guild(guild_id)
        else:
            await self.reminders.plan_session(guild_id, session_id)

    @commands.Cog.listener()
    async def on_session_recorded(self, guild_id: int, session_id: int) -> None:
        """The recording was added: one DM to each member reminded of the session."""
        await self.reminders.recording_up(guild_id, session_id)

    @commands.Cog.listener()
    async def on_session_cancelled(self, guild_id: int, session_id: int) -> None:
        """Cancel a cancelled session's reminders."""
        await self.reminders.cancel_session(session_id)

    @commands.Cog.listener()
    async def on_guild_settings_changed(self, guild_id: int, fields: set[str]) -> None:
        """New reminder offsets: plan every upcoming session of the guild again."""
        if "reminder_offsets" in fields:
            await self.reminders.plan_guild(guild_id)

    async def render_page(self, guild_id: int, arg: str, page: int) -> LayoutPage:
        """A page of /organize reminder list (``arg`` "all": the automatic reminders too)."""
        found = await self.reminders.page(
            guild_id, page, LIST_PAGE_SIZE, self.bot.clock.now(), automatic=arg == ALL
        )
        return LayoutPage(list_card(found), found.page, found.pages)

    @organize.command(name="add", description="Schedule a reminder in a channel")
    @app_commands.describe(
        when="When: next thursday 5pm, tomorrow (9 AM), in 2 hours; with a session, how long before: 1h, 2d",
        message="What to say (mentions in it never ping), up to 1,800 characters",
        channel="Where to post it (default: this channel)",
        session="Tie it to a session: `when` is then a time before the session, and it moves with it",
        repeat="Repeat it daily, weekly or monthly at the same local time (default: none)",
    )
    async def add(
        self,
        interaction: Interaction,
        when: When,
        message: Message,
        channel: PostableChannel | None = None,
        session: SessionOption | None = None,
        repeat: Repeat = "none",
    ) -> None:
        """/organize reminder add (deferred first: checking the channel may fetch the bot's member)."""
        config, guild_id, now = await organizer_begin(interaction)
        target = channel or interaction.channel
        if not isinstance(target, discord.TextChannel | discord.Thread):
            raise BadInput("Pick a text channel or thread for the reminder with the `channel` option.")
        assert self.bot.user is not None
        await ensure_bot_can_post(target, self.bot.user.id)
        asked = svc.CustomReminder(
            guild_id, target.id, message, when, config.timezone, interaction.user.id, repeat, session
        )
        info, note = await self.reminders.add(asked, now)
        await send_ephemeral(interaction, added_text(info, config.display_zones, note))

    @organize.command(name="list", description="Pending reminders, and those missed or failed this week")
    @app_commands.describe(
        automatic="Also show the automatic ones: before sessions, members' DMs, nudges (default: no)"
    )
    async def list_(self, interaction: Interaction, automatic: bool = False) -> None:
        """/organize reminder list: the organizers' reminders (and the automatic ones, if asked)."""
        await ensure_organizer(interaction)
        arg = ALL if automatic else ""
        page = await self.render_page(require_guild_id(interaction), arg, 0)
        await send_page(interaction, PAGER, arg, page)

    @organize.command(name="cancel", description="Cancel a pending reminder")
    @app_commands.describe(reminder="The reminder's number, as in /organize reminder list")
    async def cancel(self, interaction: Interaction, reminder: ReminderId) -> None:
        """/organize reminder cancel."""
        await ensure_organizer(interaction)
        info = await self.reminders.cancel(
            require_guild_id(interaction), reminder, by_user=interaction.user.id, now=self.bot.clock.now()
        )
        await send_ephemeral(
            interaction, f"Cancelled reminder **#{info.number}** ({escape_line(describe(info), 120)})."
        )

    @app_commands.command(name="me", description="Get a DM before a session; the same again turns it off")
    @app_commands.describe(
        session="The session to be reminded of",
        before="How long before it starts, e.g. 1h, 30m, 1d (default 1h)",
    )
    async def me(
        self, interaction: Interaction, session: SessionOption, before: Duration | None = None
    ) -> None:
        """/remind me: a DM before a session, or not any more."""
        guild_id = require_guild_id(interaction)
        config = await guild_config_for(interaction)
        result = await self.reminders.toggle_me(
            guild_id=guild_id,
            session_id=session,
            user_id=interaction.user.id,
            before=before,
            now=self.bot.clock.now(),
        )
        self.bot.dispatch(
            "session_subscription_changed", guild_id, session, interaction.user.id, result.subscribed
        )
        await send_ephemeral(interaction, subscription_text(result, config.display_zones))
