"""In-memory Discord world for the stand-in: users, guilds, roles, channels, messages.

Everything here is plain data plus Discord-shaped ``payload()`` serialisers. Nothing
talks to the network; :mod:`standin.rest` and :mod:`standin.gateway` do.
"""

from __future__ import annotations

import datetime as dt
import itertools
import time
from dataclasses import dataclass, field
from typing import Any

Json = dict[str, Any]

DISCORD_EPOCH_MS = 1420070400000

# Permission bits (https://discord.com/developers/docs/topics/permissions#permissions-bitwise-permission-flags)
CREATE_INSTANT_INVITE = 1 << 0
KICK_MEMBERS = 1 << 1
BAN_MEMBERS = 1 << 2
ADMINISTRATOR = 1 << 3
MANAGE_CHANNELS = 1 << 4
MANAGE_GUILD = 1 << 5
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
MENTION_EVERYONE = 1 << 17
USE_EXTERNAL_EMOJIS = 1 << 18
CONNECT = 1 << 20
SPEAK = 1 << 21
MUTE_MEMBERS = 1 << 22
MOVE_MEMBERS = 1 << 24
MANAGE_ROLES = 1 << 28
USE_APPLICATION_COMMANDS = 1 << 31
MANAGE_EVENTS = 1 << 33  # edit and delete the scheduled events of all users
MANAGE_THREADS = 1 << 34
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
SEND_MESSAGES_IN_THREADS = 1 << 38
CREATE_GUILD_EXPRESSIONS = 1 << 43
CREATE_EVENTS = 1 << 44  # create scheduled events, and edit and delete those the current user created
# Set a voice channel's status (PUT /channels/{id}/voice-status). Not yet in the permissions table: "The
# permission and endpoint are intentionally not documented yet because it is not considered stable", and
# "It's 1 << 48" (discord/discord-api-docs#8176; the endpoint: discord/discord-api-docs#6400).
SET_VOICE_CHANNEL_STATUS = 1 << 48
SEND_POLLS = 1 << 49
USE_EXTERNAL_APPS = 1 << 50
PIN_MESSAGES = 1 << 51  # split from MANAGE_MESSAGES; alone required to pin since 2026-02-23
BYPASS_SLOWMODE = 1 << 52
ALL_PERMISSIONS = (1 << 53) - 1

# The February 2026 splits (Discord change log, 24 November 2025, "Permission Changes Going into Effect
# February 2026 for PIN_MESSAGES, BYPASS_SLOWMODE, CREATE_GUILD_EXPRESSIONS, and CREATE_EVENTS"): from
# 23 February 2026 the old permission alone no longer grants the split-off ability, for bots too. The stand-in
# models today's rules only: creating a scheduled event needs CREATE_EVENTS (rest_events), pinning needs
# PIN_MESSAGES (rest_messages). BYPASS_SLOWMODE does not apply to bots; the stand-in has no custom emoji.

EVERYONE_PERMISSIONS = (
    CREATE_INSTANT_INVITE
    | ADD_REACTIONS
    | VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | USE_EXTERNAL_EMOJIS
    | CONNECT
    | SPEAK
    | USE_APPLICATION_COMMANDS
    | CREATE_PUBLIC_THREADS
    | CREATE_PRIVATE_THREADS
    | SEND_MESSAGES_IN_THREADS
    | SEND_POLLS
)
# The bot's own (managed) role when whoever installs it says nothing: no permissions, as for an invite
# without a permissions integer. The stand-in imports nothing of its users, so a bot's test harness passes
# what its invite grants (paperclub's bot.demo.botenv passes bot.permissions.REQUIRED_PERMISSIONS); the bot
# then holds exactly that plus what @everyone has, as on a real server.
DEFAULT_BOT_PERMISSIONS = 0

# Channel types
GUILD_TEXT = 0
DM = 1
GUILD_VOICE = 2
GUILD_CATEGORY = 4
GUILD_ANNOUNCEMENT = 5
ANNOUNCEMENT_THREAD = 10
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12
GUILD_STAGE_VOICE = 13
GUILD_FORUM = 15
VOICE_TYPES = (GUILD_VOICE, GUILD_STAGE_VOICE)
THREAD_TYPES = (ANNOUNCEMENT_THREAD, PUBLIC_THREAD, PRIVATE_THREAD)

# Channel flags
# Channel obfuscation (Discord change log, 12 August 2026, "Channel Obfuscation for Users and Bots",
# discord/discord-api-docs#8454; mandatory for every bot since 16 November 2026, hikari-py/hikari#2784):
# "Over the Gateway, channels a bot can't view will still be dispatched, but with sensitive fields
# obfuscated. The channel's name becomes "___hidden___", other sensitive fields are nulled or reduced, a new
# CHANNEL_OBFUSCATED flag (1 << 17) is set on the channel's flags, and the permission_overwrites will
# contain a single permission overwrite denying VIEW_CHANNEL for the guild's @everyone role. Over HTTP,
# GET /guilds/{guild.id}/channels will omit those channels from the response entirely." The channel docs
# ("Obfuscated Channels"): "id, type, position, and parent_id will not be obfuscated"; viewing is having
# VIEW_CHANNEL ("or being connected to a voice channel": the stand-in has no voice); "Channel categories are
# viewable if any of their children channels are viewable"; interactions are "built through a separate path
# that does not apply obfuscation" (standin.interactions sends resolved channels whole).
CHANNEL_OBFUSCATED = 1 << 17
HIDDEN_NAME = "___hidden___"

# Message flags
EPHEMERAL = 1 << 6
LOADING = 1 << 7
IS_COMPONENTS_V2 = 1 << 15


def iso(moment: dt.datetime | None = None) -> str:
    """Discord's timestamp format (ISO 8601 with +00:00)."""
    return (moment or dt.datetime.now(dt.UTC)).isoformat()


class Snowflakes:
    """Monotonic snowflake ids whose timestamp part is the real time (so ``snowflake_time`` works)."""

    def __init__(self) -> None:
        self._last = 0
        self._increment = itertools.count()

    def next(self) -> int:
        """A new snowflake, greater than any before."""
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        candidate = (ms << 22) | (next(self._increment) & 0xFFF)
        if candidate <= self._last:
            candidate = self._last + 1
        self._last = candidate
        return candidate


@dataclass
class User:
    """A Discord user."""

    id: int
    username: str
    bot: bool = False
    global_name: str | None = None
    dms_closed: bool = False

    @property
    def mention(self) -> str:
        """The user's mention."""
        return f"<@{self.id}>"

    @property
    def display_name(self) -> str:
        """The global name, or the username."""
        return self.global_name or self.username

    def payload(self) -> Json:
        """The user as the API returns it."""
        return {
            "id": str(self.id),
            "username": self.username,
            "discriminator": "0",
            "global_name": self.global_name,
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
        }


@dataclass
class Role:
    """A guild role."""

    id: int
    guild_id: int
    name: str
    permissions: int = 0
    position: int = 0
    mentionable: bool = False
    color: int = 0
    managed: bool = False

    @property
    def mention(self) -> str:
        """The role's mention (``@everyone`` for the guild's default role)."""
        return "@everyone" if self.id == self.guild_id else f"<@&{self.id}>"

    def payload(self) -> Json:
        """The role as the API returns it."""
        return {
            "id": str(self.id),
            "name": self.name,
            "color": self.color,
            "colors": {"primary_color": self.color, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": self.managed,
            "mentionable": self.mentionable,
            "flags": 0,
        }


@dataclass
class Member:
    """A user's membership of a guild."""

    user: User
    guild_id: int
    roles: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=iso)

    @property
    def id(self) -> int:
        """The member's user id."""
        return self.user.id

    @property
    def mention(self) -> str:
        """The member's mention."""
        return self.user.mention

    @property
    def display_name(self) -> str:
        """The nickname, or the user's display name."""
        return self.nick or self.user.display_name

    def payload(self, *, with_user: bool = True) -> Json:
        """The member as the API returns it."""
        data: Json = {
            "roles": [str(r) for r in self.roles],
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.payload()
        return data


@dataclass
class Overwrite:
    """A channel permission overwrite for a role or member."""

    id: int
    type: int  # 0 role, 1 member
    allow: int = 0
    deny: int = 0

    def payload(self) -> Json:
        """The overwrite as the API returns it."""
        return {"id": str(self.id), "type": self.type, "allow": str(self.allow), "deny": str(self.deny)}


@dataclass
class Channel:
    """A guild channel, thread or DM channel."""

    id: int
    type: int
    name: str | None = None
    guild_id: int | None = None
    position: int = 0
    topic: str | None = None
    parent_id: int | None = None
    overwrites: list[Overwrite] = field(default_factory=list)
    available_tags: list[Json] = field(default_factory=list)
    recipients: list[User] = field(default_factory=list)
    owner_id: int | None = None
    applied_tags: list[int] = field(default_factory=list)
    archived: bool = False
    locked: bool = False
    auto_archive_duration: int = 1440
    message_count: int = 0
    thread_members: set[int] = field(default_factory=set)
    last_message_id: int | None = None
    created_at: str = field(default_factory=iso)
    status: str | None = None  # a voice channel's status (PUT /channels/{id}/voice-status)

    @property
    def is_thread(self) -> bool:
        """Whether the channel is a thread."""
        return self.type in THREAD_TYPES

    @property
    def mention(self) -> str:
        """The channel's mention."""
        return f"<#{self.id}>"

    def tag_id(self, name: str) -> int:
        """The id of the forum tag called ``name``."""
        for tag in self.available_tags:
            if tag["name"] == name:
                return int(tag["id"])
        raise KeyError(name)

    def payload(self) -> Json:
        """The channel as the API returns it."""
        data: Json = {
            "id": str(self.id),
            "type": self.type,
            "flags": 0,
            "last_message_id": str(self.last_message_id) if self.last_message_id else None,
        }
        if self.type == DM:
            data["recipients"] = [u.payload() for u in self.recipients]
            return data
        data.update(
            {
                "guild_id": str(self.guild_id),
                "name": self.name,
                "position": self.position,
                "parent_id": str(self.parent_id) if self.parent_id else None,
                "nsfw": False,
                "rate_limit_per_user": 0,
            }
        )
        if self.is_thread:
            data.update(
                {
                    "owner_id": str(self.owner_id) if self.owner_id else None,
                    "message_count": self.message_count,
                    "total_message_sent": self.message_count,
                    "member_count": len(self.thread_members),
                    "applied_tags": [str(t) for t in self.applied_tags],
                    "thread_metadata": {
                        "archived": self.archived,
                        "auto_archive_duration": self.auto_archive_duration,
                        "archive_timestamp": self.created_at,
                        "locked": self.locked,
                        "invitable": True,
                        "create_timestamp": self.created_at,
                    },
                }
            )
            return data
        data["permission_overwrites"] = [o.payload() for o in self.overwrites]
        data["topic"] = self.topic
        if self.type in VOICE_TYPES:
            data.update({"bitrate": 64000, "user_limit": 0, "rtc_region": None, "video_quality_mode": 1})
            if self.type == GUILD_VOICE:
                data["status"] = self.status
        if self.type == GUILD_FORUM:
            data.update(
                {
                    "available_tags": self.available_tags,
                    "default_reaction_emoji": None,
                    "default_thread_rate_limit_per_user": 0,
                    "default_sort_order": None,
                    "default_forum_layout": 0,
                    "default_auto_archive_duration": 1440,
                }
            )
        return data

    def obfuscated_payload(self) -> Json:
        """The channel as the gateway sends it to someone who cannot view it: id, type, position, parent and
        guild kept; the name ``___hidden___``, the flag CHANNEL_OBFUSCATED, one overwrite denying View Channel
        to @everyone, the rest nulled or emptied (the change log's "nulled or reduced")."""
        data = self.payload()
        data.update(
            {
                "name": HIDDEN_NAME,
                "flags": CHANNEL_OBFUSCATED,
                "last_message_id": None,
                "topic": None,
                "nsfw": False,
                "rate_limit_per_user": 0,
                "permission_overwrites": [
                    Overwrite(id=int(self.guild_id or 0), type=0, deny=VIEW_CHANNEL).payload()
                ],
            }
        )
        if self.type == GUILD_FORUM:
            data.update({"available_tags": [], "default_reaction_emoji": None, "default_sort_order": None})
        if "status" in data:
            data["status"] = None
        return data


@dataclass
class Guild:
    """A guild with its roles, members, channels and scheduled events."""

    id: int
    name: str
    owner_id: int
    roles: dict[int, Role] = field(default_factory=dict)
    members: dict[int, Member] = field(default_factory=dict)
    channels: dict[int, Channel] = field(default_factory=dict)  # threads included
    scheduled_events: dict[int, Json] = field(default_factory=dict)

    @property
    def everyone(self) -> Role:
        """The guild's ``@everyone`` role."""
        return self.roles[self.id]

    def role(self, name: str) -> Role:
        """The role called ``name``."""
        for role in self.roles.values():
            if role.name == name:
                return role
        raise KeyError(name)

    def channel(self, name: str) -> Channel:
        """The channel called ``name`` (with or without ``#``)."""
        for channel in self.channels.values():
            if channel.name == name.lstrip("#"):
                return channel
        raise KeyError(name)

    def member(self, name: str) -> Member:
        """The member with ``name`` as username, nickname or global name."""
        for member in self.members.values():
            if name in (member.user.username, member.nick, member.user.global_name):
                return member
        raise KeyError(name)

    def payload(self) -> Json:
        """The guild as the API returns it."""
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 1,
            "explicit_content_filter": 0,
            "roles": [r.payload() for r in sorted(self.roles.values(), key=lambda r: r.position)],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "preferred_locale": "en-US",
            "public_updates_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "max_members": 500000,
        }

    def gateway_payload(self, viewer: Member) -> Json:
        """The guild as GUILD_CREATE sends it to ``viewer``, with channels (those it cannot view
        obfuscated), the active threads it can view ("All active threads in the guild that current user has
        permission to view", Guild Create), members and events."""
        data = self.payload()
        data.update(
            {
                "unavailable": False,
                "large": False,
                "member_count": len(self.members),
                "joined_at": iso(),
                "voice_states": [],
                "presences": [],
                "stage_instances": [],
                "members": [m.payload() for m in self.members.values()],
                "channels": [
                    channel_view(self, viewer, c) for c in self.channels.values() if not c.is_thread
                ],
                "threads": [
                    c.payload()
                    for c in self.channels.values()
                    if c.is_thread and not c.archived and can_view(self, viewer, c)
                ],
                "guild_scheduled_events": list(self.scheduled_events.values()),
                "soundboard_sounds": [],
            }
        )
        return data


@dataclass
class Message:
    """A stored message. ``payload`` is exactly what REST returns; the properties are conveniences."""

    payload: Json
    ephemeral: bool = False
    files: dict[int, bytes] = field(default_factory=dict)
    edits: int = 0
    deleted: bool = False

    @property
    def id(self) -> int:
        """The message's id."""
        return int(self.payload["id"])

    @property
    def channel_id(self) -> int:
        """The id of the message's channel."""
        return int(self.payload["channel_id"])

    @property
    def author_id(self) -> int:
        """The id of the message's author."""
        return int(self.payload["author"]["id"])

    @property
    def content(self) -> str:
        """The message's content."""
        return str(self.payload.get("content") or "")

    @property
    def embeds(self) -> list[Json]:
        """The message's embeds."""
        return list(self.payload.get("embeds") or [])

    @property
    def components(self) -> list[Json]:
        """The message's components."""
        return list(self.payload.get("components") or [])

    @property
    def attachments(self) -> list[Json]:
        """The message's attachments."""
        return list(self.payload.get("attachments") or [])

    @property
    def poll(self) -> Json | None:
        """The message's poll, if it has one."""
        return self.payload.get("poll")

    @property
    def flags(self) -> int:
        """The message's flags."""
        return int(self.payload.get("flags") or 0)

    def walk_components(self) -> list[Json]:
        """Every component, depth first (rows, containers, sections and their children)."""
        out: list[Json] = []

        def walk(items: list[Json]) -> None:
            for item in items:
                out.append(item)
                walk(list(item.get("components") or []))
                if isinstance(item.get("accessory"), dict):
                    walk([item["accessory"]])
                if isinstance(item.get("component"), dict):
                    walk([item["component"]])

        walk(self.components)
        return out

    def component(self, custom_id: str) -> Json:
        """The component with ``custom_id``, anywhere in the message."""
        for item in self.walk_components():
            if item.get("custom_id") == custom_id:
                return item
        raise KeyError(f"no component with custom_id {custom_id!r} on message {self.id}")

    @property
    def buttons(self) -> list[Json]:
        """Every button, in rows, sections and containers alike."""
        return [c for c in self.walk_components() if c.get("type") == 2]

    @property
    def is_components_v2(self) -> bool:
        """Whether the message uses components v2."""
        return bool(self.flags & IS_COMPONENTS_V2)

    @property
    def text_displays(self) -> list[str]:
        """The content of each Text Display (a Components V2 message's text), in reading order."""
        return [str(c.get("content") or "") for c in self.walk_components() if c.get("type") == 10]

    @property
    def text(self) -> str:
        """What the message says: its text displays (Components V2) or its content."""
        return "\n".join(self.text_displays) if self.is_components_v2 else self.content

    def components_of_type(self, ctype: int) -> list[Json]:
        """Every component of one type (10 text display, 9 section, 17 container…), nested ones included."""
        return [c for c in self.walk_components() if c.get("type") == ctype]

    def file(self, filename: str) -> bytes:
        """The bytes of the attachment called ``filename``."""
        for attachment in self.attachments:
            if attachment["filename"] == filename:
                return self.files[int(attachment["id"])]
        raise KeyError(filename)


def member_permissions(guild: Guild, member: Member, channel: Channel | None = None) -> int:
    """Discord's permission algorithm: base (roles) then channel overwrites; threads use the parent."""
    if member.id == guild.owner_id:
        return ALL_PERMISSIONS
    perms = guild.everyone.permissions
    for role_id in member.roles:
        role = guild.roles.get(role_id)
        if role is not None:
            perms |= role.permissions
    if perms & ADMINISTRATOR:
        return ALL_PERMISSIONS
    if channel is None:
        return perms
    if channel.is_thread and channel.parent_id in guild.channels:
        channel = guild.channels[channel.parent_id]
    by_id = {o.id: o for o in channel.overwrites}
    everyone = by_id.get(guild.id)
    if everyone is not None:
        perms = (perms & ~everyone.deny) | everyone.allow
    allow = deny = 0
    for role_id in member.roles:
        overwrite = by_id.get(role_id)
        if overwrite is not None and overwrite.type == 0:
            allow |= overwrite.allow
            deny |= overwrite.deny
    perms = (perms & ~deny) | allow
    own = by_id.get(member.id)
    if own is not None and own.type == 1:
        perms = (perms & ~own.deny) | own.allow
    return perms


def can_view(guild: Guild, member: Member, channel: Channel) -> bool:
    """Whether ``member`` can view ``channel``: View Channel there (a thread: in its parent); a category also
    when any channel in it is viewable."""
    if member_permissions(guild, member, channel) & VIEW_CHANNEL:
        return True
    return channel.type == GUILD_CATEGORY and any(
        child.parent_id == channel.id and not child.is_thread and can_view(guild, member, child)
        for child in guild.channels.values()
    )


def channel_view(guild: Guild, member: Member, channel: Channel) -> Json:
    """The channel as the gateway sends it to ``member``: whole, or obfuscated when it cannot view it."""
    return channel.payload() if can_view(guild, member, channel) else channel.obfuscated_payload()


class State:
    """The whole world. Owned by :class:`standin.server.StandIn`."""

    def __init__(self, bot_name: str = "PaperClub") -> None:
        self.ids = Snowflakes()
        self.bot = User(id=self.ids.next(), username=bot_name, bot=True)
        self.application_id = self.bot.id
        self.application_flags = 1 << 23  # GATEWAY_MESSAGE_CONTENT_LIMITED
        self.owner = User(id=self.ids.next(), username="clubowner", global_name="Club Owner")
        self.users: dict[int, User] = {self.bot.id: self.bot, self.owner.id: self.owner}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, Message] = {}
        self.channel_messages: dict[int, list[int]] = {}
        self.commands: dict[int | None, list[Json]] = {None: []}
        self.dm_channels: dict[int, int] = {}  # user id -> DM channel id
        self.nonces: dict[tuple[int, str], tuple[float, int]] = {}  # (channel, nonce) -> (when, message id)
        self.poll_votes: dict[int, dict[int, set[int]]] = {}  # message -> answer -> user ids
        self.event_users: dict[int, set[int]] = {}  # scheduled event -> interested user ids
        self.uploads: dict[int, bytes] = {}  # attachment id -> bytes of files members upload in modals

    # -- lookups ---------------------------------------------------------------------------------------------
    def guild_of(self, channel: Channel) -> Guild | None:
        """The guild a channel belongs to, or None for a DM."""
        return self.guilds.get(channel.guild_id) if channel.guild_id else None

    def bot_member(self, guild: Guild) -> Member:
        """The bot's member in ``guild``."""
        return guild.members[self.bot.id]

    def bot_view(self, channel: Channel) -> Json:
        """``channel`` as the gateway sends it to the bot (obfuscated when the bot cannot view it; whole in a
        guild the bot is not in, where the gateway sends it nothing)."""
        guild = self.guild_of(channel)
        if guild is None or self.bot.id not in guild.members:
            return channel.payload()
        return channel_view(guild, self.bot_member(guild), channel)

    def bot_can_view(self, channel: Channel) -> bool:
        """Whether the bot can view ``channel`` (a DM: yes)."""
        guild = self.guild_of(channel)
        return guild is None or can_view(guild, self.bot_member(guild), channel)

    def hidden_from_bot(self, guild: Guild) -> set[int]:
        """The ids of the guild's channels (threads aside) the bot cannot view (none of a guild it is not in:
        it is told nothing of it, and learns it all again when it joins)."""
        member = guild.members.get(self.bot.id)
        if member is None:
            return set()
        return {c.id for c in guild.channels.values() if not c.is_thread and not can_view(guild, member, c)}

    def add_channel(self, channel: Channel) -> Channel:
        """Add a channel to the world (and its guild)."""
        self.channels[channel.id] = channel
        self.channel_messages.setdefault(channel.id, [])
        if channel.guild_id is not None:
            self.guilds[channel.guild_id].channels[channel.id] = channel
        return channel

    def add_message(self, message: Message) -> Message:
        """Add a message to its channel."""
        self.messages[message.id] = message
        self.channel_messages.setdefault(message.channel_id, []).append(message.id)
        channel = self.channels.get(message.channel_id)
        if channel is not None and not message.ephemeral:
            channel.last_message_id = message.id
            if channel.is_thread:
                channel.message_count += 1
        return message

    def messages_in(self, channel_id: int, *, include_ephemeral: bool = False) -> list[Message]:
        """The channel's messages, without deleted ones and (unless asked) ephemeral ones."""
        found = (self.messages[i] for i in self.channel_messages.get(channel_id, []))
        return [m for m in found if not m.deleted and (include_ephemeral or not m.ephemeral)]

    def dm_channel(self, user: User) -> Channel:
        """The DM channel with ``user``, opened when there is none."""
        channel_id = self.dm_channels.get(user.id)
        if channel_id is None:
            channel = self.add_channel(Channel(id=self.ids.next(), type=DM, recipients=[user]))
            self.dm_channels[user.id] = channel.id
            return channel
        return self.channels[channel_id]

    def all_commands(self) -> list[Json]:
        """Every synced application command, global and per guild."""
        return [c for cmds in self.commands.values() for c in cmds]
