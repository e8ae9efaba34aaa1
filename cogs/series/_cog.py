"""/series: add, show, list, skip, unskip, move, edit, end, open — and /presenters. Thin: check who may, read
the options into a checked draft (bot.services.series.rules), write in one transaction (the store part in
bot.services.series.store), then follow on Discord (cogs/series/publishing.py) and reply.

Background work: the daily horizon job (:meth:`SeriesCog.run_horizons`, around
:func:`bot.services.series.horizon.extend_horizons`) runs from an APScheduler job started in ``cog_load``,
for each server when it becomes available (start-up, reconnect), and, with a FakeClock (tests, the demo),
whenever the clock moves to another day. Changes to a week made elsewhere (/session edit, /session cancel)
come in as ``session_saved`` / ``session_cancelled`` and refresh the open-weeks messages and nudges.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import discord
from apscheduler.jobstores.base import JobLookupError
from discord import app_commands
from discord.ext import commands
from discord.utils import escape_markdown

from bot import timeutil
from bot.client import Interaction, PaperclubBot
from bot.paging import Page, clamp_page, page_count, send_page
from bot.permissions import ensure_organizer, require_guild_id
from bot.replies import one_line, send_ephemeral, send_reply
from bot.services.series import horizon, rules
from bot.services.series import presenters as presenter_svc
from bot.services.series import store as svc
from bot.services.series.info import Changes, SeriesInfo, series_info, series_rule
from bot.services.sessions import rules as session_rules
from bot.services.setup.config import GuildConfig, get_config
from bot.transformers import timezone_autocomplete
from cogs.series import publishing, render
from cogs.series.buttons import PresentButton
from cogs.series.options import (
    Clock,
    DateText,
    Every,
    Name,
    Reason,
    SeriesOption,
    WeekdayOption,
    WeekOption,
    Zone,
)

log = logging.getLogger("paperclub.series")

Url = app_commands.Range[str, 1, 512]
Duration = app_commands.Range[int, session_rules.MIN_DURATION, session_rules.MAX_DURATION]
Description = app_commands.Range[str, 1, session_rules.MAX_DESCRIPTION]
PRESENTERS_PAGER = "presenters"
DAILY_AT = {"hour": 0, "minute": 17}  # UTC; any time works, the job is idempotent

TIME_HELP = "Wall-clock time, e.g. 9:30am or 17:30 (stays that time all year in the zone)"
ZONE_HELP = "Zone the time is in: PT, ET, UK, CET, IST, UTC or an IANA name (default: the server's)"


@app_commands.guild_only()
class SeriesCog(commands.GroupCog, group_name="series", group_description="The club's weekly series"):
    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot
        self.job_id = f"series:horizons:{id(self)}"
        self._tasks: set[asyncio.Task[Any]] = set()
        self._dirty: set[int] = set()
        self._refresher: asyncio.Task[None] | None = None
        self._last_day = bot.clock.now().date()
        self._ready: dict[int, asyncio.Event] = {}
        super().__init__()

    # ------------------------------------------------------------------ lifecycle

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(PresentButton)
        if self.bot.clock.announces_moves:
            self.bot.clock.on_change(self._on_clock)
        elif self.bot.start_background:
            self.bot.scheduler.add_job(
                self.run_horizons, "cron", **DAILY_AT, id=self.job_id, replace_existing=True
            )

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(PresentButton)
        self.bot.clock.remove_listener(self._on_clock)
        with contextlib.suppress(JobLookupError):
            self.bot.scheduler.remove_job(self.job_id)
        for task in list(self._tasks):
            task.cancel()

    def ready(self, guild_id: int) -> asyncio.Event:
        """Set once the server's first horizon run since start-up has finished (tests, the demo)."""
        return self._ready.setdefault(guild_id, asyncio.Event())

    async def settle(self) -> None:
        """Wait for the background work changes set off (refreshes, horizon runs)."""
        while self._tasks or (self._refresher is not None and not self._refresher.done()):
            pending = [*self._tasks, *([self._refresher] if self._refresher else [])]
            await asyncio.gather(*pending, return_exceptions=True)

    def _track(self, work: Any) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    @commands.Cog.listener()
    async def on_guild_available(self, guild: discord.Guild) -> None:
        await self._start_guild(guild.id)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self._start_guild(guild.id)

    async def _start_guild(self, guild_id: int) -> None:
        try:
            await self._track(self.run_horizons([guild_id]))
        finally:
            self.ready(guild_id).set()

    async def _on_clock(self, now: datetime) -> None:
        if now.date() != self._last_day:
            self._last_day = now.date()
            await self.run_horizons()

    async def run_horizons(self, guild_ids: Iterable[int] | None = None) -> horizon.Extended:
        """The daily job: each series of these servers (default: every server this process serves) gets
        its weeks up to the horizon, the organizers' thread is opened where missing, the nudges are planned,
        and the open-weeks messages are brought up to date."""
        wanted = list(guild_ids) if guild_ids is not None else [guild.id for guild in self.bot.guilds]
        now = self.bot.clock.now()
        async with self.bot.session_factory() as session:
            with_series = {info.guild_id for info in await svc.active_series(session, None, now)}
        for guild_id in wanted:
            if guild_id in with_series:
                await publishing.organizer_thread(self.bot, guild_id)
        try:
            extended = await horizon.extend_horizons(self.bot.session_factory, now, guild_ids=wanted)
        except Exception:  # a background job must not die; the next run tries again
            log.exception("series: the horizon job failed")
            return horizon.Extended()
        for guild_id, made in extended.made.items():
            if made:
                await self._publish(guild_id, Changes(saved=made))
        for guild_id in sorted(extended.guilds):
            await self._refresh_boards(guild_id)
        return extended

    async def _publish(self, guild_id: int, changes: Changes) -> list[str]:
        async with self.bot.session_factory() as session:
            config = await get_config(session, guild_id)
        return await publishing.publish(self.bot, guild_id, changes, config.display_zones)

    # ------------------------------------------------------------------ keeping boards and nudges in step

    async def refresh_guild(self, guild_id: int) -> None:
        """Plan the server's nudges and update its open-weeks messages (after any change to a week)."""
        try:
            await horizon.plan_guild_nudges(self.bot.session_factory, guild_id, self.bot.clock.now())
        except Exception:  # planned again on the next change or daily run
            log.exception("guild %s: could not plan the nudges", guild_id)
        await self._refresh_boards(guild_id)

    async def _refresh_boards(self, guild_id: int) -> None:
        async with self.bot.session_factory() as session:
            infos = await svc.list_series(session, guild_id)
        for info in infos:
            await publishing.refresh_board(self.bot, info)

    def _refresh_soon(self, guild_id: int) -> None:
        """Coalesce refreshes: one runs at a time, and a server changed meanwhile is refreshed once more."""
        self._dirty.add(guild_id)
        if self._refresher is None or self._refresher.done():
            self._refresher = asyncio.create_task(self._refresh_loop(), name="series-refresh")

    async def _refresh_loop(self) -> None:
        while self._dirty:
            await self.refresh_guild(self._dirty.pop())

    async def _is_week(self, guild_id: int, session_id: int) -> bool:
        async with self.bot.session_factory() as session:
            return await svc.week_of_session(session, guild_id, session_id) is not None

    @commands.Cog.listener()
    async def on_session_saved(self, guild_id: int, session_id: int) -> None:
        if await self._is_week(guild_id, session_id):
            self._refresh_soon(guild_id)

    @commands.Cog.listener()
    async def on_session_cancelled(self, guild_id: int, session_id: int) -> None:
        async with self.bot.session_factory() as session, session.begin():
            skipped = await svc.skip_for_cancelled(session, guild_id, session_id, self.bot.clock.now())
        if skipped or await self._is_week(guild_id, session_id):
            self._refresh_soon(guild_id)

    # ------------------------------------------------------------------ helpers

    async def _organizer_begin(self, interaction: Interaction) -> tuple[GuildConfig, int, datetime]:
        config = await ensure_organizer(interaction)
        guild_id = require_guild_id(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        return config, guild_id, self.bot.clock.now()

    async def _card(self, guild_id: int, info: SeriesInfo, config: GuildConfig) -> discord.Embed:
        now = self.bot.clock.now()
        async with self.bot.session_factory() as session:
            settings = await svc.get_settings(session, guild_id)
            fresh = await svc.get_series(session, guild_id, info.id)
            weeks = await svc.weeks_view(session, fresh, now, settings.horizon_weeks)
        return render.series_embed(fresh, weeks, config.display_zones, now, horizon=settings.horizon_weeks)

    async def _follow(
        self,
        interaction: Interaction,
        config: GuildConfig,
        info: SeriesInfo,
        changes: Changes,
        lines: list[str],
    ) -> None:
        """After a change: Discord follows, the boards and nudges too; the organizer gets the lines and the
        series card as it now stands."""
        warnings = await publishing.publish(self.bot, info.guild_id, changes, config.display_zones)
        await self.refresh_guild(info.guild_id)
        embed = await self._card(info.guild_id, info, config)
        await send_ephemeral(interaction, "\n".join([*lines, *changes.notes, *warnings]), embed=embed)

    @staticmethod
    def _shown(info: SeriesInfo) -> str:
        return f"**{escape_markdown(one_line(info.name, 80))}**"

    # ------------------------------------------------------------------ organizers

    @app_commands.command(
        name="add", description="Add a weekly series; each week becomes a session (organizers)"
    )
    @app_commands.autocomplete(timezone=timezone_autocomplete)
    @app_commands.describe(
        name="What the series is called (each week's title until it gets its own topic)",
        day="The weekday it meets on",
        time=TIME_HELP,
        timezone=ZONE_HELP,
        every="1: every week (default), 2: every other week",
        first="The first date, e.g. 2026-12-03 (default: the next such day)",
        until="The last date it may meet on (default: no end)",
        duration="Length in minutes (default 60)",
        signup_url="The sign-up page for every week (https://…)",
        description="A few lines shown on the series and each week",
    )
    async def add(
        self,
        interaction: Interaction,
        name: Name,
        day: WeekdayOption,
        time: Clock,
        timezone: Zone | None = None,
        every: Every = 1,
        first: DateText | None = None,
        until: DateText | None = None,
        duration: Duration = 60,
        signup_url: Url | None = None,
        description: Description | None = None,
    ) -> None:
        config, guild_id, now = await self._organizer_begin(interaction)
        draft = rules.new_series(
            name=name,
            day=day,
            time=time,
            zone=timezone,
            default_zone=config.timezone,
            every=every,
            first=first,
            until=until,
            duration=duration,
            signup_url=signup_url,
            description=description,
            now=now,
        )
        async with self.bot.session_factory() as session, session.begin():
            row = await svc.create_series(session, guild_id, draft, created_by=interaction.user.id, now=now)
            settings = await svc.get_settings(session, guild_id)
            made = await svc.fill_weeks(session, row, now, settings.horizon_weeks)
            info = series_info(row)
        thread = await publishing.organizer_thread(self.bot, guild_id, add_user=interaction.user.id)
        weeks = f"{len(made)} week{'s' if len(made) != 1 else ''}"
        lines = [
            f"Added series #{info.id} {self._shown(info)}: {rules.rule_text(info.rule, config.display_zones, now)}, "
            f"from {rules.long_date(info.rule.anchor)}. The next {weeks} have their sessions and Discord events; "
            "announce one with `/session announce`, and post the open weeks for members to claim with "
            "`/series open`.",
            f"Nudges about open weeks go to <#{thread}>."
            if thread
            else "Nudges about open weeks need an announcements channel (`/setup announcements`) for their thread.",
        ]
        await self._follow(interaction, config, info, Changes(saved=made), lines)

    @app_commands.command(
        name="skip", description="Skip one week of a series, e.g. for a holiday (organizers)"
    )
    @app_commands.describe(
        series="The series",
        date="The week to skip, e.g. 2026-12-24",
        reason="Shown on the series and in the notice",
    )
    async def skip(
        self, interaction: Interaction, series: SeriesOption, date: WeekOption, reason: Reason | None = None
    ) -> None:
        config, guild_id, now = await self._organizer_begin(interaction)
        async with self.bot.session_factory() as session, session.begin():
            row = await svc.load_series(session, guild_id, series)
            rule = series_rule(row)
            day = rules.parse_date(date, rule.tz, now)
            changes = await svc.skip_week(session, row, day, rules.clean_reason(reason), now)
            info = series_info(row)
        because = f" ({escape_markdown(one_line(reason, 120))})" if reason else ""
        await self._follow(interaction, config, info, changes, [f"Skipped {rules.long_date(day)}{because}."])

    @app_commands.command(name="unskip", description="Meet again on a skipped week (organizers)")
    @app_commands.describe(series="The series", date="The skipped week, e.g. 2026-12-24")
    async def unskip(self, interaction: Interaction, series: SeriesOption, date: WeekOption) -> None:
        config, guild_id, now = await self._organizer_begin(interaction)
        async with self.bot.session_factory() as session, session.begin():
            row = await svc.load_series(session, guild_id, series)
            day = rules.parse_date(date, series_rule(row).tz, now)
            settings = await svc.get_settings(session, guild_id)
            changes = await svc.unskip_week(session, row, day, now, settings.horizon_weeks)
            info = series_info(row)
        await self._follow(
            interaction, config, info, changes, [f"{rules.long_date(day)} is a week of the series again."]
        )

    @app_commands.command(name="move", description="Hold one week at another time or day (organizers)")
    @app_commands.describe(
        series="The series",
        date="The week to move (its usual date), e.g. 2026-11-05",
        when="The new time: 8:00am (that day), or a day and time like 2026-11-04 17:00",
    )
    async def move(
        self,
        interaction: Interaction,
        series: SeriesOption,
        date: WeekOption,
        when: app_commands.Range[str, 1, 100],
    ) -> None:
        config, guild_id, now = await self._organizer_begin(interaction)
        async with self.bot.session_factory() as session, session.begin():
            row = await svc.load_series(session, guild_id, series)
            rule = series_rule(row)
            day = rules.parse_date(date, rule.tz, now)
            changes, start = await svc.move_week(session, row, day, when, now)
            info = series_info(row)
        moved = timeutil.format_club_time(start, config.display_zones)
        await self._follow(
            interaction, config, info, changes, [f"The week of {rules.long_date(day)} is now on {moved}."]
        )

    @app_commands.command(
        name="edit", description="Change a series' day, time, zone, every, until or length (organizers)"
    )
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
        config, guild_id, now = await self._organizer_begin(interaction)
        async with self.bot.session_factory() as session, session.begin():
            row = await svc.load_series(session, guild_id, series)
            edit = rules.edit_rule(
                series_rule(row),
                row.duration_minutes,
                now=now,
                day=day,
                time=time,
                zone=timezone,
                every=every,
                until=until,
                duration=duration,
            )
            if not edit.changed:
                info = series_info(row)
                changes = Changes()
                lines = [f"Nothing changed in {self._shown(info)}."]
            else:
                settings = await svc.get_settings(session, guild_id)
                changes = await svc.edit_series(session, row, edit, now, settings.horizon_weeks)
                info = series_info(row)
                lines = [
                    f"Saved {self._shown(info)}: changed {', '.join(sorted(edit.changed))}. The weeks ahead follow "
                    "(moved weeks keep their own time; past weeks never change)."
                ]
        await self._follow(interaction, config, info, changes, lines)

    @app_commands.command(name="end", description="End a series after a date, or now (organizers)")
    @app_commands.describe(series="The series", after="Its last date, e.g. 2027-06-24 (default: end it now)")
    async def end(
        self, interaction: Interaction, series: SeriesOption, after: DateText | None = None
    ) -> None:
        config, guild_id, now = await self._organizer_begin(interaction)
        async with self.bot.session_factory() as session, session.begin():
            row = await svc.load_series(session, guild_id, series)
            last = rules.parse_date(after, series_rule(row).tz, now, what="date") if after else None
            changes = await svc.end_series(session, row, last, now)
            info = series_info(row)
        assert info.rule.until is not None
        dropped = len(changes.cancelled)
        lines = [
            f"{self._shown(info)} ends after {rules.long_date(info.rule.until)}."
            + (f" {dropped} coming week{'s' if dropped != 1 else ''} cancelled." if dropped else "")
        ]
        await self._follow(interaction, config, info, changes, lines)

    @app_commands.command(
        name="open", description="Post (or update) the open weeks, each with a claim button (organizers)"
    )
    @app_commands.describe(
        series="The series",
        channel="Where to post it (default: where it was posted, else the announcements channel, else here)",
    )
    async def open(
        self, interaction: Interaction, series: SeriesOption, channel: discord.TextChannel | None = None
    ) -> None:
        config, guild_id, _ = await self._organizer_begin(interaction)
        async with self.bot.session_factory() as session:
            info = await svc.get_series(session, guild_id, series)
        target: Any = channel
        if target is None and not info.board_message_id:
            target = (
                self.bot.get_channel(config.announcements_channel_id)
                if config.announcements_channel_id
                else None
            ) or interaction.channel
        url, edited = await publishing.post_board(self.bot, info, target)
        await publishing.organizer_thread(self.bot, guild_id, add_user=interaction.user.id)
        await self.refresh_guild(guild_id)  # the nudges now link it
        verb = "Updated the open weeks of" if edited else "Posted the open weeks of"
        await send_ephemeral(interaction, f"{verb} {self._shown(info)}: {url}")

    # ------------------------------------------------------------------ everyone

    @app_commands.command(name="show", description="A series' coming weeks: who presents, what is read")
    @app_commands.describe(series="The series", public="Post it for everyone (default: only you see it)")
    async def show(self, interaction: Interaction, series: SeriesOption, public: bool = False) -> None:
        guild_id = require_guild_id(interaction)
        now = self.bot.clock.now()
        async with self.bot.session_factory() as session:
            config = await get_config(session, guild_id)
            settings = await svc.get_settings(session, guild_id)
            info = await svc.get_series(session, guild_id, series)
            weeks = await svc.weeks_view(session, info, now, settings.horizon_weeks)
        embed = render.series_embed(info, weeks, config.display_zones, now, horizon=settings.horizon_weeks)
        await send_reply(interaction, embed=embed, view=render.board_view(weeks, now), public=public)

    @app_commands.command(name="list", description="Every series of this server")
    @app_commands.describe(public="Post the list for everyone (default: only you see it)")
    async def list_(self, interaction: Interaction, public: bool = False) -> None:
        guild_id = require_guild_id(interaction)
        async with self.bot.session_factory() as session:
            config = await get_config(session, guild_id)
            infos = await svc.list_series(session, guild_id)
        embed = render.list_embed(infos, config.display_zones, self.bot.clock.now())
        await send_reply(interaction, embed=embed, public=public)


@app_commands.guild_only()
class PresentersCog(commands.Cog):
    """/presenters: who has presented, how often, when last, and who offered to present on suggestions."""

    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot
        super().__init__()

    async def cog_load(self) -> None:
        self.bot.pagers.register(PRESENTERS_PAGER, self.render_page)

    async def cog_unload(self) -> None:
        self.bot.pagers.unregister(PRESENTERS_PAGER)

    async def render_page(self, guild_id: int, arg: str, page: int) -> Page:
        now = self.bot.clock.now()
        async with self.bot.session_factory() as session:
            config = await get_config(session, guild_id)
            stats = await presenter_svc.presenter_stats(session, guild_id, now)
            offers = await presenter_svc.presenter_offers(session, guild_id)
        lines = render.presenter_lines(stats, offers, now, config.timezone)
        pages = page_count(len(lines), render.PRESENTERS_PAGE)
        page = clamp_page(page, pages)
        return Page(render.presenters_embed(lines, page, pages), page, pages, note=f"{len(stats)} presenters")

    @app_commands.command(
        name="presenters", description="Who has presented, how often and when last; who offered to"
    )
    @app_commands.describe(public="Post it for everyone (default: only you see it)")
    async def presenters(self, interaction: Interaction, public: bool = False) -> None:
        guild_id = require_guild_id(interaction)
        await send_page(
            interaction, PRESENTERS_PAGER, "", await self.render_page(guild_id, "", 0), public=public
        )
