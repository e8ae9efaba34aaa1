"""/series show, list and presenters; /organize series add, skip, unskip, move, edit, end and open (organizers)."""

from __future__ import annotations

from functools import partial
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import timeutil
from bot.client import Interaction, PaperclubBot
from bot.errors import BadInput
from bot.layouts import escape_line
from bot.organize import organizer_group
from bot.paging import LayoutPage, send_page
from bot.papers import MAX_URL_LENGTH
from bot.permissions import ensure_organizer, organizer_begin, require_guild_id
from bot.replies import send_ephemeral, send_reply
from bot.services.config.guild import get_config
from bot.services.series import changes, rules
from bot.services.series.background import SeriesBackground
from bot.services.series.info import SeriesInfo
from bot.services.series.presenters import presenters
from bot.services.series.publishing import Followed, card, open_weeks
from bot.services.series.store import list_series
from bot.services.sessions import rules as session_rules
from bot.text import clamp_page, page_count, plural
from bot.transformers import timezone_autocomplete
from cogs.series import _render as render
from cogs.series._buttons import (
    AddSeriesModal,
    ClaimWeekSelect,
    Clock,
    DateText,
    Every,
    MoveWhen,
    Name,
    PresentButton,
    Reason,
    SeriesOption,
    WeekdayOption,
    WeekOption,
    Zone,
    present_button,
)
from cogs.sessions.buttons import announcement_buttons
from cogs.sessions.edit import HeldIn, checked_place

Url = app_commands.Range[str, 1, MAX_URL_LENGTH]
Duration = app_commands.Range[int, session_rules.MIN_DURATION, session_rules.MAX_DURATION]
Description = app_commands.Range[str, 1, session_rules.MAX_DESCRIPTION]

TIME_HELP = "Wall-clock time, e.g. 9:30am or 17:30 (stays that time all year in the zone)"
ZONE_HELP = "Zone the time is in: PT, ET, UK, CET, IST, UTC or an IANA name (default: the server's)"
PRESENTERS_PAGER = "presenters"

organize = organizer_group(
    "series", "Add a weekly series; skip, move or change its weeks; post the open weeks"
)


class SeriesCog(commands.Cog):
    """/series and /organize series; starts the series' background work and tells it what it hears."""

    # guild_only as a decorator, as on a GroupCog: it sets the contexts it is synced with too (guild only).
    series = app_commands.guild_only(
        app_commands.Group(name="series", description="The club's weekly series")
    )

    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot
        self.context = render.series_of(bot)
        self.background = SeriesBackground(self.context, bot.background, bot.clock)
        super().__init__()

    async def cog_load(self) -> None:
        """Register the claim button, the /series presenters pages and the commands; add the daily job."""
        self.bot.add_dynamic_items(PresentButton, ClaimWeekSelect)
        announcement_buttons(self.bot).coming.append(present_button)
        self.bot.pagers.register(PRESENTERS_PAGER, self.presenters_page)
        self.organized = self.bot.organize.attach(organize, self)
        await self.background.start()

    async def cog_unload(self) -> None:
        """Take them back; stop the background work (awaited, before the bot disposes of the engine)."""
        await self.background.stop()
        self.bot.organize.detach(self.organized)
        self.bot.pagers.unregister(PRESENTERS_PAGER)
        announcement_buttons(self.bot).coming.remove(present_button)
        self.bot.remove_dynamic_items(PresentButton, ClaimWeekSelect)

    @commands.Cog.listener("on_guild_available")
    @commands.Cog.listener("on_guild_join")
    async def start_guild(self, guild: discord.Guild) -> None:
        """The server's horizon, once it is available or joined."""
        await self.background.start_guild(guild.id)

    @commands.Cog.listener()
    async def on_session_saved(self, guild_id: int, session_id: int) -> None:
        """A week's session changed: refresh the server's boards and nudges."""
        await self.background.session_changed(guild_id, session_id)

    @commands.Cog.listener()
    async def on_session_cancelled(self, guild_id: int, session_id: int) -> None:
        """A week's session cancelled (/organize session cancel): skip the week."""
        await self.background.session_changed(guild_id, session_id, cancelled=True)

    async def _reply(self, interaction: Interaction, lines: list[str], followed: Followed) -> None:
        """The organizer's answer to a change: the lines, what the change noted, and the series as it stands."""
        view = render.series_card(followed.card).view(note="\n".join([*lines, *followed.lines]))
        await send_ephemeral(interaction, view=view)

    @staticmethod
    def _shown(info: SeriesInfo) -> str:
        return f"**{escape_line(info.name, 80)}**"

    @organize.command(name="add", description="Add a weekly series; each week becomes a session")
    @app_commands.autocomplete(timezone=timezone_autocomplete)
    @app_commands.describe(
        name="What the series is called, each week's title (leave out name, day and time for a form)",
        day="The weekday it meets on",
        time=TIME_HELP,
        timezone=ZONE_HELP,
        every="1: every week (default), 2: every other week",
        first="The first date, e.g. 2026-12-03 (default: the next such day)",
        until="The last date it may meet on (default: no end)",
        duration="Length in minutes (default 60)",
        signup_url="The sign-up page for every week (https://…)",
        description="A few lines shown on the series and each week",
        channel="A voice or stage channel every week is held in (default: at the sign-up link)",
    )
    async def add(
        self,
        interaction: Interaction,
        name: Name | None = None,
        day: WeekdayOption | None = None,
        time: Clock | None = None,
        timezone: Zone | None = None,
        every: Every = 1,
        first: DateText | None = None,
        until: DateText | None = None,
        duration: Duration = 60,
        signup_url: Url | None = None,
        description: Description | None = None,
        channel: HeldIn | None = None,
    ) -> None:
        place = checked_place(interaction.guild, channel) if channel else None
        if name is None and day is None and time is None:
            config = await ensure_organizer(interaction)
            await interaction.response.send_modal(
                AddSeriesModal(config.timezone, partial(self.add_series, place=place), timezone=timezone)
            )
            return
        if name is None or day is None or time is None:
            raise BadInput("Give the series' name, day and time, or none of them for a form.")
        await self.add_series(
            interaction,
            name=name,
            day=day,
            time=time,
            zone=timezone,
            every=every,
            first=first,
            until=until,
            duration=duration,
            signup_url=signup_url,
            description=description,
            place=place,
        )

    async def add_series(self, interaction: Interaction, **values: Any) -> None:
        """/organize series add and its form: check the values (:func:`rules.new_series`), store, reply."""
        config, guild_id, now = await organizer_begin(interaction)
        draft = rules.new_series(default_zone=config.timezone, now=now, **values)
        followed = await changes.add(self.context, guild_id, draft, created_by=interaction.user.id, now=now)
        info, thread = followed.card.info, followed.thread_id
        weeks = plural(followed.made, "week")
        lines = [
            f"Added series #{info.id} {self._shown(info)}: {rules.rule_text(info.rule, config.display_zones, now)}, "
            f"from {timeutil.club_date(info.rule.anchor, info.rule.tz, now=now)}. The next {weeks} have their sessions and Discord events; "
            "announce one with `/organize session announce`, and post the open weeks for members to claim with "
            "`/organize series open`.",
            f"Nudges about open weeks go to <#{thread}>."
            if thread
            else "Nudges about open weeks need an announcements channel (`/setup announcements`) for their thread.",
        ]
        await self._reply(interaction, lines, followed)

    @organize.command(name="skip", description="Skip one week of a series, e.g. for a holiday")
    @app_commands.describe(
        series="The series",
        date="The week to skip, e.g. 2026-12-24",
        reason="Shown on the series and in the notice",
    )
    async def skip(
        self, interaction: Interaction, series: SeriesOption, date: WeekOption, reason: Reason | None = None
    ) -> None:
        config, guild_id, now = await organizer_begin(interaction)
        followed = await changes.skip(self.context, guild_id, series, date, reason, now=now)
        assert followed.day is not None
        because = f" ({escape_line(reason, 120)})" if reason else ""
        day = timeutil.club_date(followed.day, followed.card.info.rule.tz, now=now)
        await self._reply(interaction, [f"Skipped {day}{because}."], followed)

    @organize.command(name="unskip", description="Meet again on a skipped week")
    @app_commands.describe(series="The series", date="The skipped week, e.g. 2026-12-24")
    async def unskip(self, interaction: Interaction, series: SeriesOption, date: WeekOption) -> None:
        config, guild_id, now = await organizer_begin(interaction)
        followed = await changes.unskip(self.context, guild_id, series, date, now=now)
        assert followed.day is not None
        day = timeutil.club_date(followed.day, followed.card.info.rule.tz, now=now)
        await self._reply(interaction, [f"{day} is a week of the series again."], followed)

    @organize.command(name="move", description="Hold one week at another time or day")
    @app_commands.describe(
        series="The series",
        date="The week to move (its usual date), e.g. 2026-11-05",
        when="The new time: 8:00am (that day), next friday (at the series' time), or 2026-11-04 17:00",
    )
    async def move(
        self, interaction: Interaction, series: SeriesOption, date: WeekOption, when: MoveWhen
    ) -> None:
        config, guild_id, now = await organizer_begin(interaction)
        followed = await changes.move(self.context, guild_id, series, date, when, now=now)
        assert followed.day is not None
        assert followed.start is not None
        day = timeutil.club_date(followed.day, followed.card.info.rule.tz, now=now)
        moved = timeutil.format_club_time(followed.start, config.display_zones)
        await self._reply(interaction, [f"The week of {day} is now on {moved}."], followed)

    @organize.command(name="edit", description="Change a series' day, time, zone, every, until or length")
    @app_commands.autocomplete(timezone=timezone_autocomplete)
    @app_commands.describe(
        series="The series",
        day="New weekday",
        time=TIME_HELP,
        timezone="New zone for the time",
        every="1: every week, 2: every other week",
        until="New last date",
        duration="New length in minutes",
    )
    async def edit(
        self,
        interaction: Interaction,
        series: SeriesOption,
        day: WeekdayOption | None = None,
        time: Clock | None = None,
        timezone: Zone | None = None,
        every: Every | None = None,
        until: DateText | None = None,
        duration: Duration | None = None,
    ) -> None:
        config, guild_id, now = await organizer_begin(interaction)
        followed = await changes.edit(
            self.context,
            guild_id,
            series,
            day=day,
            time=time,
            zone=timezone,
            every=every,
            until=until,
            duration=duration,
            now=now,
        )
        info = followed.card.info
        if not followed.changed:
            lines = [f"Nothing changed in {self._shown(info)}."]
        else:
            lines = [
                f"Saved {self._shown(info)}: changed {', '.join(sorted(followed.changed))}. The weeks ahead follow "
                "(moved weeks keep their own time; past weeks never change)."
            ]
        await self._reply(interaction, lines, followed)

    @organize.command(name="end", description="End a series after a date, or now")
    @app_commands.describe(series="The series", after="Its last date, e.g. 2027-06-24 (default: end it now)")
    async def end(
        self, interaction: Interaction, series: SeriesOption, after: DateText | None = None
    ) -> None:
        config, guild_id, now = await organizer_begin(interaction)
        followed = await changes.end(self.context, guild_id, series, after, now=now)
        info = followed.card.info
        assert info.rule.until is not None
        lines = [
            f"{self._shown(info)} ends after {timeutil.club_date(info.rule.until, info.rule.tz, now=now)}."
            + (f" {plural(followed.dropped, 'coming week')} cancelled." if followed.dropped else "")
        ]
        await self._reply(interaction, lines, followed)

    @organize.command(name="open", description="Post (or update) the open weeks, each with a claim button")
    @app_commands.describe(
        series="The series",
        channel="Where to post it (default: where it was posted, else the announcements channel, else here)",
    )
    async def open(
        self, interaction: Interaction, series: SeriesOption, channel: discord.TextChannel | None = None
    ) -> None:
        _, guild_id, now = await organizer_begin(interaction)
        info, url, edited = await open_weeks(
            self.context,
            guild_id,
            series,
            channel_id=channel.id if channel else None,
            here_id=interaction.channel_id,
            organizer=interaction.user.id,
            now=now,
        )
        verb = "Updated the open weeks of" if edited else "Posted the open weeks of"
        await send_ephemeral(interaction, f"{verb} {self._shown(info)}: {url}")

    @series.command(name="show", description="A series' coming weeks: who presents, what is read")
    @app_commands.describe(series="The series", public="Post it for everyone (default: only you see it)")
    async def show(self, interaction: Interaction, series: SeriesOption, public: bool = False) -> None:
        guild_id = require_guild_id(interaction)
        shown = await card(self.context.store, guild_id, series, self.bot.clock.now())
        await send_reply(interaction, view=render.series_card(shown).view(), public=public)

    @series.command(name="list", description="Every series of this server")
    @app_commands.describe(public="Post the list for everyone (default: only you see it)")
    async def list_(self, interaction: Interaction, public: bool = False) -> None:
        guild_id = require_guild_id(interaction)
        async with self.context.store() as session:
            infos, config = await list_series(session, guild_id), await get_config(session, guild_id)
        view = render.list_card(infos, config.display_zones, self.bot.clock.now()).view()
        await send_reply(interaction, view=view, public=public)

    async def presenters_page(self, guild_id: int, arg: str, page: int) -> LayoutPage:
        """A page of /series presenters (``arg`` unused); its ◀ ▶ buttons call it again."""
        now = self.bot.clock.now()
        found = await presenters(self.context.store, guild_id, now)
        lines = render.presenter_lines(found, now)
        pages = page_count(len(lines), render.PRESENTERS_PAGE)
        page = clamp_page(page, pages)
        note = f"{len(found.stats)} presenters"
        return LayoutPage(render.presenters_card(lines, page), page, pages, note=note)

    @series.command(
        name="presenters", description="Who has presented, how often and when last; who offered to"
    )
    @app_commands.describe(public="Post it for everyone (default: only you see it)")
    async def presenters(self, interaction: Interaction, public: bool = False) -> None:
        guild_id = require_guild_id(interaction)
        await send_page(
            interaction, PRESENTERS_PAGER, "", await self.presenters_page(guild_id, "", 0), public=public
        )
