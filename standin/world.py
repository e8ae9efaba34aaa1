"""Building the stand-in's world (guilds, roles, channels, members, permissions); mixed into ``StandIn``."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass

from standin.gateway import Gateway
from standin.state import (
    DEFAULT_BOT_PERMISSIONS,
    DISCORD_EPOCH_MS,
    EVERYONE_PERMISSIONS,
    GUILD_FORUM,
    GUILD_TEXT,
    MANAGE_EVENTS,
    MANAGE_GUILD,
    Channel,
    Guild,
    Member,
    Message,
    Overwrite,
    Role,
    State,
    User,
)

MemberRef = Member | User | str | int
ChannelRef = Channel | str | int

SUGGESTION_TAGS = (
    "environment generation",
    "verifier soundness",
    "user simulators",
    "benchmark validity",
    "other",
)


@dataclass
class DefaultGuild:
    """The "Paper Club" guild from :meth:`StandIn.create_default_guild`."""

    guild: Guild
    announcements: Channel
    suggestions: Channel
    general: Channel
    organizers: Role
    readers: Role
    bot_role: Role
    organizer: Member
    admin: Member
    members: list[Member]
    bot: Member


class WorldBuilder:
    """World-building half of :class:`standin.server.StandIn`; every change is dispatched on the gateway."""

    state: State
    gateway: Gateway
    bot_permissions: int = DEFAULT_BOT_PERMISSIONS
    default_guild: DefaultGuild | None = None

    def _guild(self, guild: Guild | None = None) -> Guild:
        if guild is not None:
            return guild
        if self.default_guild is not None:
            return self.default_guild.guild
        return next(iter(self.state.guilds.values()))

    # -- lookups --------------------------------------------------------------------------------------------
    def channel(self, ref: ChannelRef, guild: Guild | None = None) -> Channel:
        """The channel ``ref`` names (a channel, id or name)."""
        if isinstance(ref, Channel):
            return ref
        if isinstance(ref, int):
            return self.state.channels[ref]
        return self._guild(guild).channel(ref)

    def member(self, ref: MemberRef, guild: Guild | None = None) -> Member:
        """The member ``ref`` names (a member, user, id or name)."""
        if isinstance(ref, Member):
            return ref
        the_guild = self._guild(guild)
        if isinstance(ref, User):
            return the_guild.members[ref.id]
        if isinstance(ref, int):
            return the_guild.members[ref]
        return the_guild.member(ref)

    def message(self, message_id: int) -> Message:
        """The message with ``message_id``."""
        return self.state.messages[message_id]

    # -- building the world ---------------------------------------------------------------------------------
    async def create_guild(self, name: str, *, owner: User | None = None) -> Guild:
        """Create a guild with its ``@everyone`` and bot roles, the owner and the bot as members."""
        state = self.state
        owner = owner or state.owner
        guild = Guild(id=state.ids.next(), name=name, owner_id=owner.id)
        state.guilds[guild.id] = guild
        guild.roles[guild.id] = Role(
            id=guild.id, guild_id=guild.id, name="@everyone", permissions=EVERYONE_PERMISSIONS
        )
        guild.members[owner.id] = Member(user=owner, guild_id=guild.id)
        self._install_bot(guild)
        await self.gateway.dispatch("GUILD_CREATE", guild.gateway_payload(state.bot_member(guild)))
        return guild

    def _install_bot(self, guild: Guild) -> None:
        """The bot a member of ``guild``, with its managed role holding the invite's permissions."""
        state = self.state
        role = Role(
            id=state.ids.next(),
            guild_id=guild.id,
            name=state.bot.username,
            permissions=self.bot_permissions,
            position=1,
            managed=True,
        )
        guild.roles[role.id] = role
        guild.members[state.bot.id] = Member(user=state.bot, guild_id=guild.id, roles=[role.id])

    async def create_guilds(
        self, count: int, *, channel: str | None = "reminders", name: str = "Club {n}"
    ) -> list[Guild]:
        """``count`` small guilds at once (the bot, the owner, a text channel ``channel``), cheaply: for
        tests and benches of many guilds and shards. Their ids are snowflakes of consecutive milliseconds
        a month back, so ``(guild_id >> 22) % num_shards`` deals them round-robin over any number of
        shards; their GUILD_CREATEs go to the sessions of the shards that own them (if any)."""
        state = self.state
        first_ms = int(time.time() * 1000) - DISCORD_EPOCH_MS - 30 * 86_400_000 - count
        while any(first_ms <= (g >> 22) < first_ms + count for g in state.guilds):  # clear of earlier batches
            first_ms -= count
        guilds = []
        for n in range(count):
            guild = Guild(id=(first_ms + n) << 22 | 1, name=name.format(n=n + 1), owner_id=state.owner.id)
            state.guilds[guild.id] = guild
            guild.roles[guild.id] = Role(
                id=guild.id, guild_id=guild.id, name="@everyone", permissions=EVERYONE_PERMISSIONS
            )
            guild.members[state.owner.id] = Member(user=state.owner, guild_id=guild.id)
            self._install_bot(guild)
            if channel is not None:
                state.add_channel(
                    Channel(id=state.ids.next(), type=GUILD_TEXT, name=channel, guild_id=guild.id)
                )
            guilds.append(guild)
        if self.gateway.sessions:
            for guild in guilds:
                await self.gateway.dispatch("GUILD_CREATE", guild.gateway_payload(state.bot_member(guild)))
        return guilds

    async def remove_bot(self, guild: Guild | None = None) -> None:
        """The bot removed from a guild (kicked, or its app taken off the server): its member and managed role
        go, and the gateway says GUILD_DELETE without ``unavailable`` ("If the unavailable field is not set,
        the user was removed from the guild": Gateway Events, Guild Delete). Its requests about the guild
        are then refused with Missing Access, and no event of the guild reaches it."""
        the_guild = self._guild(guild)
        role = self.bot_role(the_guild)
        del the_guild.members[self.state.bot.id]
        del the_guild.roles[role.id]
        await self.gateway.dispatch("GUILD_DELETE", {"id": str(the_guild.id)})

    async def add_bot(self, guild: Guild | None = None) -> None:
        """The bot added (back) to a guild by an invite: a new managed role with the invite's permissions,
        and GUILD_CREATE (Gateway Events, Guild Create: "when the current user joins a new Guild")."""
        the_guild = self._guild(guild)
        self._install_bot(the_guild)
        joined = the_guild.gateway_payload(self.state.bot_member(the_guild))
        # a join's GUILD_CREATE has no ``unavailable`` (it marks READY's lazy loading, an outage's end)
        del joined["unavailable"]
        await self.gateway.dispatch("GUILD_CREATE", joined)

    def bot_role(self, guild: Guild | None = None) -> Role:
        """The bot's managed role in a guild."""
        the_guild = self._guild(guild)
        return next(r for r in the_guild.roles.values() if r.managed and r.name == self.state.bot.username)

    async def create_role(
        self, guild: Guild, name: str, permissions: int = 0, *, mentionable: bool = False
    ) -> Role:
        """Create a role."""
        role = Role(
            id=self.state.ids.next(),
            guild_id=guild.id,
            name=name,
            permissions=permissions,
            position=len(guild.roles),
            mentionable=mentionable,
        )
        guild.roles[role.id] = role
        await self.gateway.dispatch("GUILD_ROLE_CREATE", {"guild_id": str(guild.id), "role": role.payload()})
        return role

    async def create_channel(
        self,
        guild: Guild,
        name: str,
        *,
        type: int = GUILD_TEXT,
        topic: str | None = None,
        tags: Iterable[str] = (),
        parent: Channel | None = None,
    ) -> Channel:
        """Create a channel (a forum with ``tags``, a thread with ``parent``)."""
        state = self.state
        channel = Channel(
            id=state.ids.next(),
            type=type,
            name=name,
            guild_id=guild.id,
            topic=topic,
            position=len(guild.channels),
            parent_id=parent.id if parent else None,
            available_tags=[
                {
                    "id": str(state.ids.next()),
                    "name": t,
                    "moderated": False,
                    "emoji_id": None,
                    "emoji_name": None,
                }
                for t in tags
            ],
        )
        async with self._visibility_kept(guild, told=channel):
            state.add_channel(channel)
            await self.gateway.dispatch("CHANNEL_CREATE", state.bot_view(channel))
        return channel

    async def create_member(
        self,
        guild: Guild,
        username: str,
        *,
        roles: Iterable[Role] = (),
        global_name: str | None = None,
        dms_closed: bool = False,
    ) -> Member:
        """Create a user and add them to a guild."""
        user = User(
            id=self.state.ids.next(), username=username, global_name=global_name, dms_closed=dms_closed
        )
        self.state.users[user.id] = user
        member = Member(user=user, guild_id=guild.id, roles=[r.id for r in roles])
        guild.members[user.id] = member
        await self.gateway.dispatch("GUILD_MEMBER_ADD", {**member.payload(), "guild_id": str(guild.id)})
        return member

    async def create_default_guild(self) -> DefaultGuild:
        """Create the paper club guild most tests use, with its roles, channels and members."""
        guild = await self.create_guild("Paper Club")
        organizers = await self.create_role(guild, "Organizers", MANAGE_EVENTS)
        readers = await self.create_role(guild, "Readers", 0, mentionable=True)
        world = DefaultGuild(
            guild=guild,
            announcements=await self.create_channel(guild, "announcements", topic="Paper club announcements"),
            suggestions=await self.create_channel(
                guild, "suggestions", type=GUILD_FORUM, tags=SUGGESTION_TAGS
            ),
            general=await self.create_channel(guild, "general"),
            organizers=organizers,
            readers=readers,
            bot_role=self.bot_role(guild),
            organizer=await self.create_member(guild, "olivia", roles=[organizers], global_name="Olivia"),
            admin=await self.create_member(guild, "adam", global_name="Adam"),
            members=[
                await self.create_member(guild, name, global_name=name.title())
                for name in ("rita", "sam", "tom")
            ],
            bot=guild.members[self.state.bot.id],
        )
        admin_role = await self.create_role(guild, "Admins", MANAGE_GUILD)
        await self.add_role(world.admin, admin_role)
        self.default_guild = world
        return world

    @contextlib.asynccontextmanager
    async def _visibility_kept(self, guild: Guild, *, told: Channel | None = None) -> AsyncIterator[None]:
        """After a change to roles, overwrites or channels: a CHANNEL_UPDATE for each channel the bot
        stopped or started being able to view (but ``told``, already dispatched), obfuscated or whole as it
        now is. Discord documents the revealing one ("the Gateway dispatches a Channel Update event
        containing the full, unobfuscated channel data", its category too when that was obfuscated); the
        hiding one is modelled alike, as the client must learn the channel's new view."""
        before = self.state.hidden_from_bot(guild)
        yield
        flipped = before ^ self.state.hidden_from_bot(guild)
        for channel_id in sorted(flipped - {told.id if told else 0}):
            if channel_id in guild.channels:
                await self.gateway.dispatch("CHANNEL_UPDATE", self.state.bot_view(guild.channels[channel_id]))

    async def set_role_permissions(self, role: Role, permissions: int) -> None:
        """Change a role's permissions."""
        async with self._visibility_kept(self.state.guilds[role.guild_id]):
            role.permissions = permissions
            await self.gateway.dispatch(
                "GUILD_ROLE_UPDATE", {"guild_id": str(role.guild_id), "role": role.payload()}
            )

    async def set_bot_permissions(self, permissions: int, guild: Guild | None = None) -> None:
        """Change the permissions of the bot's role."""
        await self.set_role_permissions(self.bot_role(guild), permissions)

    async def add_role(self, member: Member, role: Role) -> None:
        """Give a member a role."""
        async with self._visibility_kept(self.state.guilds[member.guild_id]):
            if role.id not in member.roles:
                member.roles.append(role.id)
            await self._member_update(member)

    async def remove_role(self, member: Member, role: Role) -> None:
        """Take a role from a member."""
        async with self._visibility_kept(self.state.guilds[member.guild_id]):
            member.roles = [r for r in member.roles if r != role.id]
            await self._member_update(member)

    async def _member_update(self, member: Member) -> None:
        await self.gateway.dispatch(
            "GUILD_MEMBER_UPDATE", {**member.payload(), "guild_id": str(member.guild_id)}
        )

    async def set_overwrite(
        self, channel: Channel, target: Role | Member, *, allow: int = 0, deny: int = 0
    ) -> None:
        """Set (or, with no allow or deny, remove) a channel overwrite for a role or member. The bot is sent
        the channel as it now sees it (obfuscated when it cannot view it)."""
        kind = 0 if isinstance(target, Role) else 1
        guild = self.state.guild_of(channel)
        assert guild is not None, "overwrites are for guild channels"
        async with self._visibility_kept(guild, told=channel):
            channel.overwrites = [o for o in channel.overwrites if o.id != target.id]
            if allow or deny:
                channel.overwrites.append(Overwrite(id=target.id, type=kind, allow=allow, deny=deny))
            await self.gateway.dispatch("CHANNEL_UPDATE", self.state.bot_view(channel))
