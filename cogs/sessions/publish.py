"""The Discord side of a session (its event and posts), the flows' context, the coming count on its post."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any, Final

import discord

from bot.client import PaperclubBot
from bot.errors import NotConfigured, NotFound
from bot.hidden_channels import cannot_see, hidden_from_bot, usable
from bot.permissions import VOICE_STATUS_PERMISSIONS, missing_permissions
from bot.replies import NO_MENTIONS
from bot.services.sessions import publish, queries
from bot.services.sessions.events import EventFields, EventRefused, Posted, SessionsContext, Zones
from bot.services.sessions.info import SessionInfo
from cogs.sessions import _render as render
from cogs.sessions.buttons import announcement_view

log = logging.getLogger("paperclub.sessions")
EVENT_USERS_PAGE = 100  # Discord: "limit: number of users to return (up to maximum 100)"
# A message sent unarchives the thread (docs: Threads), so a week's archive still lets a later post land.
THREAD_ARCHIVE_MINUTES: Final = 10080
GRANT_CREATE_EVENTS: Final = (
    "I could not create or update the session's Discord event: grant the bot **Create Events** "
    "(Server Settings → Roles → the bot's role). The session itself is saved."
)
# a count edited at most once per EDIT_EVERY (the channel message bucket: discord-api-docs rate-limits.md)
EDIT_EVERY: Final = timedelta(seconds=10)
COUNTS_JOB: Final = "sessions.counts"  # makes the deferred edits
INTEREST_EVENT: Final = "scheduled_event_interest"  # (guild_id, event_id, user_id, interested)
_GATEWAY = {"GUILD_SCHEDULED_EVENT_USER_ADD": True, "GUILD_SCHEDULED_EVENT_USER_REMOVE": False}
GONE_CHANNEL: Final = (
    "The session's voice or stage channel is gone or hidden from the bot: pick another with "
    "`/organize session edit channel:`. The session itself is saved."
)


def _event_kwargs(guild: discord.Guild, fields: EventFields) -> dict[str, Any]:
    """The event as discord.py takes it: a link (EXTERNAL) event at its location, or one in its channel."""
    kwargs: dict[str, Any] = {
        "name": fields.name,
        "description": fields.description,
        "start_time": fields.start,
        "end_time": fields.end,
        "privacy_level": discord.PrivacyLevel.guild_only,
    }
    if fields.channel_id is None:
        return {**kwargs, "entity_type": discord.EntityType.external, "location": fields.location}
    channel = guild.get_channel(fields.channel_id)
    if not isinstance(channel, discord.VoiceChannel | discord.StageChannel) or hidden_from_bot(channel):
        raise EventRefused(GONE_CHANNEL)
    stage = isinstance(channel, discord.StageChannel)
    kind = discord.EntityType.stage_instance if stage else discord.EntityType.voice
    return {**kwargs, "entity_type": kind, "channel": channel}


async def find_channel(bot: PaperclubBot, channel_id: int) -> Any:
    """The channel or thread by id, from the cache or Discord (None: gone, or not the bot's to see)."""
    found = bot.get_channel(channel_id)
    if found is None:
        try:
            found = await bot.fetch_channel(channel_id)
        except (discord.NotFound, discord.Forbidden):
            return None
    return found


def sessions_of(bot: PaperclubBot) -> SessionsContext:
    """The sessions' flows' context on this bot."""
    return SessionsContext.on(bot, bot.arxiv, DiscordSessions(bot))


class DiscordSessions:
    """What the sessions' flows do on Discord (bot.services.sessions.events.SessionsOnDiscord)."""

    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot

    def dispatch(self, event: str, /, *args: object) -> None:
        """Dispatch ``event`` on the bot."""
        self.bot.dispatch(event, *args)

    # The bot only touches events it created, so it needs Create Events ("Guild Scheduled Event Permissions").

    @contextmanager
    def _guild(self, guild_id: int) -> Iterator[discord.Guild]:
        guild = self.bot.get_guild(guild_id)
        if guild is None:
            raise EventRefused(None)
        try:
            yield guild
        except discord.Forbidden:
            raise EventRefused(GRANT_CREATE_EVENTS) from None
        except discord.HTTPException as error:
            log.warning("guild %s: a scheduled event failed: %s", guild_id, error)
            raise EventRefused(
                f"Discord did not accept the event ({error.status}); the session itself is saved."
            ) from None

    async def _event(self, guild: discord.Guild, event_id: int) -> discord.ScheduledEvent | None:
        try:
            return guild.get_scheduled_event(event_id) or await guild.fetch_scheduled_event(event_id)
        except discord.NotFound:
            return None

    async def event_status(self, guild_id: int, event_id: int) -> str | None:
        """The event's status (None: gone)."""
        with self._guild(guild_id) as guild:
            event = await self._event(guild, event_id)
            return event.status.name if event is not None else None

    async def create_event(self, guild_id: int, fields: EventFields) -> tuple[int, str]:
        """Create an external event (its id and status)."""
        with self._guild(guild_id) as guild:
            event = await guild.create_scheduled_event(**_event_kwargs(guild, fields))
            return event.id, event.status.name

    async def edit_event(self, guild_id: int, event_id: int, fields: EventFields) -> None:
        """Change the event to ``fields``."""
        with self._guild(guild_id) as guild:
            if (event := await self._event(guild, event_id)) is not None:
                await event.edit(**_event_kwargs(guild, fields))

    async def cancel_event(self, guild_id: int, event_id: int) -> None:
        """Cancel the event."""
        with self._guild(guild_id) as guild:
            if (event := await self._event(guild, event_id)) is not None:
                await event.cancel()

    async def event_users(self, guild_id: int, event_id: int) -> set[int] | None:
        """Who marked Interested, by pages ("Get Guild Scheduled Event Users"); None: gone or refused."""
        users: set[int] = set()
        after: int | None = None
        try:
            while True:
                page = await self.bot.http.get_scheduled_event_users(
                    guild_id, event_id, limit=EVENT_USERS_PAGE, with_member=False, after=after
                )
                ids = [int(item["user"]["id"]) for item in page]
                users.update(ids)
                if len(ids) < EVENT_USERS_PAGE:
                    return users
                after = max(ids)
        except discord.HTTPException as error:
            log.info("guild %s: event %s's users unread (%s)", guild_id, event_id, error.status)
            return None

    async def start_event(self, guild_id: int, event_id: int) -> None:
        """Set the event active."""
        await self._set_status(guild_id, event_id, discord.EventStatus.active)

    async def complete_event(self, guild_id: int, event_id: int) -> None:
        """Set the event completed."""
        await self._set_status(guild_id, event_id, discord.EventStatus.ended)

    async def _set_status(self, guild_id: int, event_id: int, status: discord.EventStatus) -> None:
        """Modify Guild Scheduled Event with only its status."""
        with self._guild(guild_id):
            await self.bot.http.edit_scheduled_event(guild_id, event_id, status=status.value)

    async def set_voice_status(self, guild_id: int, channel_id: int, status: str | None) -> None:
        """Set or clear the voice channel's status where the bot may (not a stage's); best effort."""
        channel = self.bot.get_channel(channel_id)
        if not isinstance(channel, discord.VoiceChannel) or not usable(channel, "voice status"):
            return
        missing = missing_permissions(channel.permissions_for(channel.guild.me), VOICE_STATUS_PERMISSIONS)
        if missing:
            log.info("guild %s: no voice channel status (missing %s)", guild_id, ", ".join(missing))
            return
        try:
            await channel.edit(status=status)
        except discord.HTTPException as error:
            log.warning("guild %s: the voice channel status was refused: %s", guild_id, error)

    async def _best_effort(
        self,
        channel_id: int | None,
        kind: type[Any],
        work: str,
        missing: str,
        failed: str,
        send: Callable[[Any], Awaitable[object]],
    ) -> str | None:
        """``send`` in the channel (of ``kind``); a warning when it is gone, hidden or refused."""
        channel = await find_channel(self.bot, channel_id) if channel_id else None
        if not isinstance(channel, kind):
            return missing
        if not usable(channel, work):
            return f"{cannot_see(channel.id)}. Not done: {work}."
        try:
            await send(channel)
        except discord.HTTPException as error:
            log.warning("%s failed: %s", work, error)
            return failed
        return None

    async def _postable(self, channel_id: int) -> discord.TextChannel:
        """The text channel, or NotConfigured (gone, not text, hidden from the bot)."""
        channel = await find_channel(self.bot, channel_id)
        if not isinstance(channel, discord.TextChannel):
            raise NotConfigured(f"I can't post in <#{channel_id}>; pick a text channel I can see.")
        if hidden_from_bot(channel):
            raise NotConfigured(f"Not announced: {cannot_see(channel.id)}, or pick another `channel`.")
        return channel

    async def post_card(self, info: SessionInfo, zones: Zones, now: datetime, channel_id: int) -> Posted:
        """Post the card with its buttons."""
        channel = await self._postable(channel_id)
        view = await announcement_view(self.bot, info, zones, now)
        try:
            message = await channel.send(view=view, allowed_mentions=NO_MENTIONS)
        except discord.Forbidden:
            raise NotConfigured(
                f"I can't post in {channel.mention}: give the bot View Channel, Send Messages and Embed Links there."
            ) from None
        return Posted(message.id, message.jump_url)

    async def edit_card(self, info: SessionInfo, zones: Zones, now: datetime) -> Posted | None:
        """Edit the posted announcement (None: deleted)."""
        assert info.announcement_channel_id
        assert info.announcement_message_id
        channel = await self._postable(info.announcement_channel_id)
        view = await announcement_view(self.bot, info, zones, now)
        try:
            # Discord refuses the IS_COMPONENTS_V2 flag unless content and embeds are cleared (Edit Message).
            message = await channel.get_partial_message(info.announcement_message_id).edit(
                content=None, embeds=[], view=view, allowed_mentions=NO_MENTIONS
            )
        except discord.NotFound:
            return None
        return Posted(message.id, message.jump_url)

    async def refresh_card(self, info: SessionInfo, zones: Zones, now: datetime) -> str | None:
        """Edit the posted announcement, best effort."""
        return await self._best_effort(
            info.announcement_channel_id,
            discord.TextChannel,
            f"updating the announcement of session #{info.id}",
            "I could not find the announcement's channel any more.",
            "I could not update the announcement message.",
            lambda _: self.edit_card(info, zones, now),
        )

    async def delete_card(self, info: SessionInfo) -> None:
        """Delete the posted announcement, best effort."""
        assert info.announcement_channel_id
        assert info.announcement_message_id
        channel = await find_channel(self.bot, info.announcement_channel_id)
        if isinstance(channel, discord.TextChannel) and usable(
            channel, f"deleting the old announcement of session #{info.id}"
        ):
            try:
                await channel.get_partial_message(info.announcement_message_id).delete()
            except discord.HTTPException as error:
                log.info("old announcement of session %s not deleted: %s", info.id, error)

    async def open_thread(self, channel_id: int, message_id: int, name: str) -> int | None:
        """Open a public thread on the message."""
        channel = await find_channel(self.bot, channel_id)
        try:
            thread = await channel.get_partial_message(message_id).create_thread(
                name=name, auto_archive_duration=THREAD_ARCHIVE_MINUTES
            )
        except discord.HTTPException as error:
            log.warning("could not open a thread on message %s: %s", message_id, error)
            return None
        return int(thread.id)

    async def add_to_thread(self, thread_id: int, user_id: int) -> str | None:
        """Add the member (the presenter) to the thread."""
        thread = await find_channel(self.bot, thread_id)
        if not isinstance(thread, discord.Thread):
            return None
        try:
            await thread.add_user(discord.Object(id=user_id))
        except discord.HTTPException as error:
            log.warning("could not add %s to thread %s: %s", user_id, thread_id, error)
            return "I could not add the presenter to the discussion thread."
        return None

    async def post_cancellation(self, info: SessionInfo, zones: Zones, now: datetime) -> str | None:
        """Reply to the announcement with the cancellation notice."""
        assert info.announcement_channel_id
        assert info.announcement_message_id
        reference = discord.MessageReference(
            message_id=info.announcement_message_id,
            channel_id=info.announcement_channel_id,
            fail_if_not_exists=False,
        )
        notice = render.cancellation_notice(info, zones, now)
        return await self._best_effort(
            info.announcement_channel_id,
            discord.TextChannel,
            f"posting the cancellation of session #{info.id}",
            "I could not find the announcement's channel to post the cancellation.",
            "I could not post the cancellation notice.",
            lambda channel: channel.send(notice, reference=reference, allowed_mentions=NO_MENTIONS),
        )

    async def post_recap(self, info: SessionInfo) -> str | None:
        """Post the recording and notes in the thread."""
        return await self._best_effort(
            info.thread_id,
            discord.Thread,
            f"posting the recap of session #{info.id}",
            "I could not find the session's thread to post the recap.",
            "I could not post the recap in the thread.",
            lambda thread: thread.send(render.recap_post(info), allowed_mentions=NO_MENTIONS),
        )


def hear_interest(bot: PaperclubBot) -> Callable[[], None]:
    """Dispatch :data:`INTEREST_EVENT` for each Interested mark (discord.py drops uncached users); the undo."""
    parsers: dict[str, Callable[[Any], None]] = bot._connection.parsers
    originals = {name: parsers[name] for name in _GATEWAY}

    def wrap(name: str, interested: bool) -> Callable[[Any], None]:
        def parse(data: Any) -> None:
            ids = (data["guild_id"], data["guild_scheduled_event_id"], data["user_id"])
            bot.dispatch(INTEREST_EVENT, *map(int, ids), interested)
            originals[name](data)

        return parse

    for name, interested in _GATEWAY.items():
        parsers[name] = wrap(name, interested)
    return lambda: parsers.update(originals)


class ComingCounts:
    """Coalesces the announcement edits that show a session's count (per process)."""

    def __init__(self, bot: PaperclubBot, context: SessionsContext) -> None:
        self.bot, self.context = bot, context
        self._next_edit: dict[int, datetime] = {}  # session id -> earliest time of its next edit
        self._waiting: dict[int, int] = {}  # session id -> guild id, changed since its last edit

    async def changed(self, guild_id: int, session_id: int) -> None:
        """The session's count may have changed: edit now, or once its quiet time is up."""
        now = self.bot.clock.now()
        due = self._next_edit.get(session_id)
        if due is None or due <= now:
            await self._edit(guild_id, session_id, now)
            return
        self._waiting[session_id] = guild_id
        self.bot.background.wake(COUNTS_JOB, due)

    async def run_due(self, _fired: datetime | None = None) -> None:
        """Make the deferred edits whose quiet time is up; wake again for the rest."""
        now = self.bot.clock.now()
        for session_id, guild_id in list(self._waiting.items()):
            if self._next_edit.get(session_id, now) <= now:
                del self._waiting[session_id]
                await self._edit(guild_id, session_id, now)
        if self._waiting:
            self.bot.background.wake(COUNTS_JOB, min(self._next_edit[s] for s in self._waiting))
        for session_id, due in list(self._next_edit.items()):
            if due <= now and session_id not in self._waiting:
                del self._next_edit[session_id]  # nothing held: forget it

    async def _edit(self, guild_id: int, session_id: int, now: datetime) -> None:
        self._next_edit[session_id] = now + EDIT_EVERY
        try:
            info, zones = await queries.session_with_zones(self.context.store, guild_id, session_id)
        except NotFound:
            return
        if not info.is_announced or info.has_started(now):
            return
        if warning := await publish.refresh(self.context, info, zones, now):
            log.info("session %s's count: %s", session_id, warning)
