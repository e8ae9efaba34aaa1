"""How series look (layout cards, member text escaped once), and the series' Discord side that posts them."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import discord

from bot import timeutil
from bot.client import PaperclubBot
from bot.errors import NotConfigured
from bot.hidden_channels import cannot_see, hidden_from_bot, usable
from bot.layouts import Card, escape, escape_line
from bot.replies import NO_MENTIONS
from bot.services.series import rules
from bot.services.series.info import SeriesCard, SeriesInfo, WeekInfo
from bot.services.series.presenters import Presenters
from bot.services.series.publishing import SeriesContext
from bot.services.sessions.events import Posted
from bot.text import cut, markdown_link, plural
from bot.timeutil import DisplayZone, format_long_date
from cogs.series._buttons import PresentButton
from cogs.sessions.publish import THREAD_ARCHIVE_MINUTES, find_channel, sessions_of

log = logging.getLogger("paperclub.series")
Postable = discord.TextChannel | discord.Thread
COLOUR = discord.Colour.blurple()
ENDED_COLOUR = discord.Colour.dark_grey()
BOARD_LIMIT = 25  # open weeks with a button: five rows of five on /series show
PRESENTERS_PAGE = 15


def _when(start: datetime, zones: Sequence[DisplayZone], now: datetime) -> str:
    first = start.astimezone(timeutil.resolve_timezone(zones[0].zone))
    with_year = first.year != now.astimezone(first.tzinfo).year
    return timeutil.format_club_time(start, zones, with_year=with_year)


def week_line(info: SeriesInfo, week: WeekInfo, zones: Sequence[DisplayZone], now: datetime) -> str:
    """One week of /series show: its time, presenter or open, papers (a skipped week with its reason)."""
    if week.is_skipped:
        day = timeutil.club_date(week.week_date, info.rule.tz, now=now)
        reason = f": {escape_line(week.skip_reason, 120)}" if week.skip_reason else ""
        return f"~~{day}~~ — **skipped**{reason}"
    club = week.session
    parts = [f"**{_when(week.starts_at, zones, now)}**"]
    if club is None:
        return f"{parts[0]} — being scheduled"
    if week.is_moved:
        parts.append(f"(moved from {timeutil.format_clock(week.regular_start.astimezone(info.rule.tz))})")
    if club.title != info.name:
        parts.append(f"“{escape_line(club.title, 80)}”")
    who = "🙋 **open**"
    if club.presenter_id is not None:
        who = f"🎤 <@{club.presenter_id}>"
    elif week.has_presenter:
        who = f"🎤 {escape_line(club.presenter_name, 60)}"
    papers = "📄 **no paper yet**"
    if club.papers:
        more = f" +{len(club.papers) - 3}" if len(club.papers) > 3 else ""
        papers = "📄 " + ", ".join(escape_line(p.title, 60) for p in club.papers[:3]) + more
    return f"{' '.join(parts)} — {who} · {papers}"


def header(info: SeriesInfo, zones: Sequence[DisplayZone], now: datetime) -> str:
    rule = info.rule
    text = f"{rules.rule_text(rule, zones, now)} ({rule.zone}) · {timeutil.format_duration(info.duration_minutes)}"
    if rule.until is not None:
        text += f" · {'ended' if info.has_ended(now) else 'until'} {format_long_date(rule.until)}"
    if info.channel_id is not None:
        text += f" · in <#{info.channel_id}>"
    if info.signup_url:
        text += " · " + markdown_link("sign up", info.signup_url)
    return text


def series_card(series: SeriesCard) -> Card:
    """A series: the name as a heading, the rule, the coming weeks, the claim buttons."""
    info, weeks, zones, now = series.info, series.weeks, series.zones, series.now
    ended = info.has_ended(now)
    card = Card(accent=ENDED_COLOUR if ended else COLOUR)
    card.heading(info.name, below=header(info, zones, now))
    if info.description:
        card.text(escape(info.description, 600))
    card.separator()
    if weeks:
        card.text(cut("\n".join(week_line(info, week, zones, now) for week in weeks), 3000))
    else:
        card.text("No coming weeks." if ended else "No weeks in the next few weeks.")
    buttons: list[discord.ui.Item[Any]] = [
        PresentButton(week.session.id, label=timeutil.short_date(week.week_date))
        for week in open_weeks(weeks, now)
        if week.session is not None
    ]
    n = len(buttons)
    count = plural(n, "week") if n else "no weeks"
    claim = " · press a date below to present that week" if buttons else ""
    card.text(f"-# The next {series.horizon} weeks · {count} open{claim}")
    card.row(buttons)
    return card


def list_card(infos: Sequence[SeriesInfo], zones: Sequence[DisplayZone], now: datetime) -> Card:
    """/series list: each series, its rule and its next date."""
    card = Card(accent=COLOUR)
    if not infos:
        return card.heading("Series", below="No series yet. Organizers add one with `/organize series add`.")
    lines = []
    for info in infos:
        upcoming = info.rule.next_date(now)
        state = (
            "ended" if info.has_ended(now) or upcoming is None else f"next {timeutil.short_date(upcoming)}"
        )
        lines.append(f"**{escape_line(info.name, 80)}** — {rules.rule_text(info.rule, zones, now)} · {state}")
    return card.heading("Series", below=cut("\n".join(lines), 3500))


def open_weeks(weeks: Sequence[WeekInfo], now: datetime) -> list[WeekInfo]:
    """The open weeks not yet begun, as many as have a button."""
    shown = [w for w in weeks if w.is_open and w.session is not None and not w.session.has_started(now)]
    return shown[:BOARD_LIMIT]


def board_card(series: SeriesCard) -> Card:
    """/organize series open: each open week a section with its I'll present button (as many as fit)."""
    info, weeks, zones, now = series.info, series.weeks, series.zones, series.now
    shown = open_weeks(weeks, now)
    if shown:
        below = "Want to lead a session? Press **I'll present** beside the week you'd like."
    elif info.has_ended(now):
        below = "This series has ended."
    else:
        below = "Every coming week has a presenter. Thank you!"
    card = Card(accent=COLOUR).heading(
        f"Open weeks · {info.name}", below=f"{rules.rule_text(info.rule, zones, now)}\n{below}"
    )
    card.more("weeks", "open weeks: `/series show` lists every week")
    for week in shown:
        assert week.session is not None
        title = f" “{escape(week.session.title, 60)}”" if week.session.title != info.name else ""
        paper = "" if week.has_paper else "\nno paper yet"
        card.section(
            f"**{_when(week.starts_at, zones, now)}**{title}{paper}",
            PresentButton(week.session.id),
            group="weeks",
        )
    return card


def presenter_lines(presenters: Presenters, now: datetime) -> list[str]:
    """Who presented (how often, when last, when next), then who offered to present suggested papers."""
    lines: list[str] = ["**Who presents**"] if presenters.stats else []
    for stat in presenters.stats:
        who = f"<@{stat.user_id}>" if stat.user_id is not None else escape_line(stat.name, 60)
        parts = [plural(stat.count, "time") if stat.count else "not yet"]
        if stat.last is not None:
            parts.append(f"last {timeutil.format_club_date(stat.last, presenters.zone, now=now)}")
        if stat.next is not None:
            parts.append(f"next {timeutil.discord_timestamp(stat.next, 'D')}")
        lines.append(f"{who} — {', '.join(parts)}")
    if presenters.offers:
        lines.extend(["", "**Offered to present (on suggestions)**"])
    for offer in presenters.offers:
        lines.append(
            f"<@{offer.user_id}> — “{escape_line(offer.paper, 80)}” (suggestion #{offer.suggestion_id})"
        )
    return lines


def presenters_card(lines: Sequence[str], page: int) -> Card:
    """A page of /series presenters."""
    card = Card(accent=COLOUR)
    if not lines:
        return card.heading(
            "Presenters",
            below="Nobody has presented yet. Open weeks of a series have an **I'll present** button.",
        )
    chunk = lines[page * PRESENTERS_PAGE : (page + 1) * PRESENTERS_PAGE]
    return card.heading("Presenters").text(cut("\n".join(chunk), 3500))


def series_of(bot: PaperclubBot) -> SeriesContext:
    """The series' flows' context on this bot."""
    return SeriesContext(sessions_of(bot), DiscordSeries(bot))


class DiscordSeries:
    """What the series' flows do on Discord (bot.services.series.publishing.SeriesOnDiscord)."""

    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot

    def guild_ids(self) -> list[int]:
        """The servers this process serves."""
        return [guild.id for guild in self.bot.guilds]

    async def is_thread(self, thread_id: int) -> bool:
        """Whether the thread is still there."""
        return isinstance(await find_channel(self.bot, thread_id), discord.Thread)

    async def can_open_thread(self, channel_id: int) -> bool:
        """A text channel the bot can see (one hidden from it is logged once)."""
        channel = await find_channel(self.bot, channel_id)
        return isinstance(channel, discord.TextChannel) and usable(channel, "the organizers' thread")

    async def open_thread(self, channel_id: int, name: str, intro: str) -> int | None:
        """A public thread (a private one needs Create Private Threads, which the bot is not given)."""
        channel = await find_channel(self.bot, channel_id)
        try:
            thread = await channel.create_thread(
                name=name,
                type=discord.ChannelType.public_thread,
                auto_archive_duration=THREAD_ARCHIVE_MINUTES,
            )
        except discord.HTTPException as error:
            log.warning("channel %s: could not open the organizers' thread: %s", channel_id, error)
            return None
        try:
            await thread.send(intro, allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as error:
            log.warning("thread %s: could not post its intro: %s", thread.id, error)
        return int(thread.id)

    async def add_to_thread(self, thread_id: int, user_id: int) -> None:
        """Add the member, best effort."""
        thread = await find_channel(self.bot, thread_id)
        if isinstance(thread, discord.Thread):
            try:
                await thread.add_user(discord.Object(id=user_id))
            except discord.HTTPException as error:
                log.info("could not add %s to the organizers' thread %s: %s", user_id, thread_id, error)

    async def check_board_channel(self, channel_id: int) -> None:
        """NotConfigured unless it is a text channel or thread the bot can see."""
        channel = await find_channel(self.bot, channel_id)
        if not isinstance(channel, Postable):
            raise NotConfigured("Pick a text channel for the open weeks with the `channel` option.")
        if hidden_from_bot(channel):
            raise NotConfigured(f"Not posted: {cannot_see(channel.id)}, or pick another `channel`.")

    async def post_board(self, card: SeriesCard, channel_id: int) -> Posted:
        """Post the open weeks."""
        channel = await find_channel(self.bot, channel_id)
        try:
            message = await channel.send(view=board_card(card).view(), allowed_mentions=NO_MENTIONS)
        except discord.Forbidden:
            raise NotConfigured(
                f"I can't post in {channel.mention}: give the bot View Channel and Send Messages there."
            ) from None
        return Posted(message.id, message.jump_url)

    async def edit_board(self, card: SeriesCard) -> bool:
        """Edit the posted open weeks (an old embed post becomes a layout in the same edit); False: deleted."""
        info = card.info
        channel = await find_channel(self.bot, info.board_channel_id or 0)
        try:
            await channel.get_partial_message(info.board_message_id or 0).edit(
                content=None, embeds=[], view=board_card(card).view(), allowed_mentions=NO_MENTIONS
            )
        except discord.NotFound:
            return False
        return True

    async def refresh_board(self, card: SeriesCard) -> bool:
        """Edit the posted open weeks, best effort (a channel gone or hidden is left alone)."""
        info = card.info
        channel = await find_channel(self.bot, info.board_channel_id or 0)
        if not isinstance(channel, Postable) or not usable(
            channel, f"updating the open weeks of series {info.id}"
        ):
            return True
        try:
            return await self.edit_board(card)
        except discord.HTTPException as error:
            log.warning("series %s: could not update the open-weeks message: %s", info.id, error)
            return True

    async def delete_board(self, info: SeriesInfo) -> None:
        """Delete the old open-weeks message, best effort."""
        channel = await find_channel(self.bot, info.board_channel_id or 0)
        if isinstance(channel, Postable):
            try:
                await channel.get_partial_message(info.board_message_id or 0).delete()
            except discord.HTTPException as error:
                log.info("series %s: the old open-weeks message stays: %s", info.id, error)
