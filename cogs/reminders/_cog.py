"""/remind add, list, cancel, me — and the listeners that keep automatic session reminders planned.

Thin: read the interaction, call the service, render the reply. The runner (bot/services/reminders/runner.py)
sends through cogs/reminders/_transport.py, as a job of the bot's background core.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands
from sqlalchemy.exc import IntegrityError

from bot.client import Interaction, PaperclubBot
from bot.errors import BadInput, NotAllowed
from bot.hidden_channels import cannot_see, hidden_from_bot
from bot.paging import Page, clamp_page, page_count, send_page
from bot.permissions import ensure_organizer, guild_config_for, require_guild_id
from bot.replies import send_ephemeral
from bot.services.config.guild import get_config
from bot.services.reminders import plan, queries
from bot.services.reminders import requested as svc
from bot.services.reminders.runner import ReminderRunner
from bot.transformers import SessionOption
from cogs.reminders import _render as render
from cogs.reminders._options import Duration, Message, ReminderId, Repeat, When
from cogs.reminders._transport import DiscordTransport
from db.engine import read_only_session_factory

log = logging.getLogger("paperclub.reminders")

PAGER = "reminders"
PLAN_TRIES = 3
PostableChannel = discord.TextChannel | discord.Thread


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
    commands.GroupCog,
    group_name="remind",
    group_description="Reminders: schedule one, list them, cancel one, or get a DM before a session",
):
    """/remind and the automatic reminders of sessions; runs the reminder runner."""

    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot
        self.runner = ReminderRunner(
            session_factory=bot.session_factory,
            clock=bot.clock,
            transport=DiscordTransport(bot),
            grace=timedelta(minutes=bot.settings.reminder_grace_minutes),
            observer=bot.metrics,
        )
        self._planning: set[asyncio.Task[Any]] = set()
        self._readers = read_only_session_factory(bot.engine)  # /remind list only reads: no write lock
        super().__init__()

    # ------------------------------------------------------------------ lifecycle

    async def cog_load(self) -> None:
        """Plan the upcoming sessions' reminders and start the runner."""
        self.bot.pagers.register(PAGER, self.render_page, guard=ensure_organizer)
        now = self.bot.clock.now()
        async with self.bot.session_factory() as session:
            upcoming = await plan.upcoming_session_ids(session, now)
        await self.runner.start(self.bot.background)
        await self._plan(upcoming)

    async def cog_unload(self) -> None:
        """Stop the runner (a batch in flight may finish) and the planning events set off."""
        self.bot.pagers.unregister(PAGER)
        await self.runner.stop()
        # Cancelled and awaited before the bot disposes of the engine, as the series' refreshes are: a
        # plan still holding a store connection when the loop closes cannot hand it back. Nothing is lost:
        # cog_load plans every upcoming session again.
        pending = list(self._planning)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    async def settle(self) -> None:
        """Wait until planning triggered by events and the sends in flight are done (tests, demo)."""
        while self._planning:
            await asyncio.gather(*list(self._planning), return_exceptions=True)
        await self.bot.background.idle()

    # ------------------------------------------------------------------ planning from events

    async def _plan(self, sessions: Iterable[tuple[int, int]]) -> None:
        """(Re)plan the automatic reminders of these (guild, session) pairs, each in its own transaction."""
        days = self.bot.settings.presenter_dm_days
        for guild_id, session_id in sessions:
            for attempt in range(1, PLAN_TRIES + 1):
                try:
                    async with self.bot.session_factory() as session, session.begin():
                        await plan.plan_session(
                            session, guild_id, session_id, now=self.bot.clock.now(), presenter_dm_days=days
                        )
                    break
                except IntegrityError:  # another process planned the same slot at the same moment
                    if attempt == PLAN_TRIES:
                        raise
        await self.runner.rearm()

    async def _tracked(self, work: Any) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._planning.add(task)
        try:
            await work
        finally:
            if task is not None:
                self._planning.discard(task)

    @commands.Cog.listener()
    async def on_session_saved(self, guild_id: int, session_id: int) -> None:
        """Plan a saved session's reminders again."""
        await self._tracked(self._plan([(guild_id, session_id)]))

    @commands.Cog.listener()
    async def on_session_subscription_changed(
        self, guild_id: int, session_id: int, user_id: int, subscribed: bool
    ) -> None:
        """Plan the session's reminders again (Remind me)."""
        await self._tracked(self._plan([(guild_id, session_id)]))

    @commands.Cog.listener()
    async def on_session_cancelled(self, guild_id: int, session_id: int) -> None:
        """Cancel a cancelled session's reminders."""
        await self._tracked(self._cancel_session(session_id))

    async def _cancel_session(self, session_id: int) -> None:
        async with self.bot.session_factory() as session, session.begin():
            await plan.cancel_session_reminders(
                session, session_id, now=self.bot.clock.now(), reason="Its session was cancelled."
            )

    @commands.Cog.listener()
    async def on_guild_settings_changed(self, guild_id: int, fields: set[str]) -> None:
        """New reminder offsets: plan every upcoming session of the guild again."""
        if "reminder_offsets" in fields:
            await self._tracked(self._replan_guild(guild_id))

    async def _replan_guild(self, guild_id: int) -> None:
        async with self.bot.session_factory() as session:
            upcoming = await plan.upcoming_session_ids(session, self.bot.clock.now(), guild_id)
        await self._plan(upcoming)

    # ------------------------------------------------------------------ /remind list pages

    async def render_page(self, guild_id: int, arg: str, page: int) -> Page:
        """One page of /remind list."""
        now = self.bot.clock.now()
        async with self._readers() as session:
            config = await get_config(session, guild_id)
            first = await queries.list_reminders(session, guild_id, now=now, offset=0, limit=0)
            pages = page_count(first.total_pending + first.total_problems, render.LIST_PAGE_SIZE)
            page = clamp_page(page, pages)
            listing = await queries.list_reminders(
                session, guild_id, now=now, offset=page * render.LIST_PAGE_SIZE, limit=render.LIST_PAGE_SIZE
            )
        return Page(embed=render.list_embed(listing, config.display_zones), page=page, pages=pages)

    # ------------------------------------------------------------------ commands

    @app_commands.command(name="add", description="Schedule a reminder in a channel (organizers)")
    @app_commands.describe(
        when="When: 2026-12-03 09:00, tomorrow 9am, in 2 hours — or with a session, how long before: 1h, 2d",
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
        """/remind add."""
        config = await ensure_organizer(interaction)
        guild_id = require_guild_id(interaction)
        # Checking the channel may fetch the bot's member (REST), then two transactions: defer first.
        # Refusals after this still reach the organizer: send_ephemeral answers with a follow-up.
        await interaction.response.defer(ephemeral=True, thinking=True)
        target = channel or interaction.channel
        if not isinstance(target, discord.TextChannel | discord.Thread):
            raise BadInput("Pick a text channel or thread for the reminder with the `channel` option.")
        assert self.bot.user is not None
        await ensure_bot_can_post(target, self.bot.user.id)
        async with self.bot.session_factory() as db, db.begin():
            info, note = await svc.add_custom(
                db,
                guild_id=guild_id,
                channel_id=target.id,
                message=message,
                when=when,
                zone=config.timezone,
                now=self.bot.clock.now(),
                created_by=interaction.user.id,
                max_pending=self.bot.settings.max_pending_reminders,
                repeat=repeat,
                session_id=session,
            )
        await self.runner.rearm()
        await send_ephemeral(interaction, render.added_text(info, config.display_zones, note))

    @app_commands.command(
        name="list", description="Pending reminders, and those missed or failed this week (organizers)"
    )
    async def list_(self, interaction: Interaction) -> None:
        """/remind list."""
        await ensure_organizer(interaction)
        page = await self.render_page(require_guild_id(interaction), "", 0)
        await send_page(interaction, PAGER, "", page)

    @app_commands.command(name="cancel", description="Cancel a pending reminder (organizers)")
    @app_commands.describe(reminder="The reminder's number, as in /remind list")
    async def cancel(self, interaction: Interaction, reminder: ReminderId) -> None:
        """/remind cancel."""
        await ensure_organizer(interaction)
        async with self.bot.session_factory() as db, db.begin():
            info = await svc.cancel_reminder(
                db,
                require_guild_id(interaction),
                reminder,
                by_user=interaction.user.id,
                now=self.bot.clock.now(),
            )
        await send_ephemeral(interaction, render.cancelled_text(info))

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
        async with self.bot.session_factory() as db, db.begin():
            result, _ = await svc.toggle_personal(
                db,
                guild_id=guild_id,
                session_id=session,
                user_id=interaction.user.id,
                before=before,
                now=self.bot.clock.now(),
                max_pending=self.bot.settings.max_pending_reminders,
                presenter_dm_days=self.bot.settings.presenter_dm_days,
            )
        await self.runner.rearm()
        self.bot.dispatch(
            "session_subscription_changed", guild_id, session, interaction.user.id, result.subscribed
        )
        await send_ephemeral(interaction, render.subscription_text(result, config.display_zones))
