"""``StandIn``: a local Discord (REST v10 + gateway) for tests and demos, plus the API that drives it.

    async with StandIn() as standin:
        world = await standin.create_default_guild()
        apply_api_base(standin.base_url)
        ...  # start a discord.py client with any token
        result = await standin.invoke("setup show", member=world.admin)
        reply = await result.response()
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from bot.sandbox import rest, rest_interactions, rest_messages
from bot.sandbox.gateway import Gateway
from bot.sandbox.interactions import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    InteractionRecord,
    InteractionResult,
    ModalRef,
    Response,
    base_payload,
    command_data,
    component_data,
    find_command,
    modal_data,
)
from bot.sandbox.messages import build_message
from bot.sandbox.rest import STANDIN, Fault, RequestRecord
from bot.sandbox.state import (
    DEFAULT_BOT_PERMISSIONS,
    EVERYONE_PERMISSIONS,
    GUILD_FORUM,
    GUILD_TEXT,
    MANAGE_EVENTS,
    MANAGE_GUILD,
    Channel,
    Guild,
    Json,
    Member,
    Message,
    Overwrite,
    Role,
    State,
    User,
)

SUGGESTION_TAGS = ("environment generation", "verifier soundness", "user simulators", "benchmark validity", "other")
MemberRef = Member | User | str | int
ChannelRef = Channel | str | int


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


class StandIn:
    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, bot_name: str = "PaperClub",
                 bot_permissions: int = DEFAULT_BOT_PERMISSIONS, timeout: float = 5.0) -> None:
        self.host, self.port = host, port
        self.state = State(bot_name)
        self.bot_permissions = bot_permissions
        self.timeout = timeout
        self.gateway = Gateway(self.state, lambda: self.gateway_url)
        self.requests: list[RequestRecord] = []
        self.faults: list[Fault] = []
        self.interactions: dict[int, InteractionRecord] = {}
        self.by_token: dict[str, InteractionRecord] = {}
        self.modals: list[ModalRef] = []
        self.interaction_deadline = 3.0
        self.token_lifetime = 15 * 60.0
        self.nonce_window = 5 * 60.0
        self.clock_offset = 0.0
        self.default_guild: DefaultGuild | None = None
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None

    # -- lifecycle ------------------------------------------------------------------------------------------
    async def start(self) -> StandIn:
        app = web.Application(middlewares=[rest.middleware], client_max_size=64 * 1024 * 1024)
        app[STANDIN] = self
        rest.add_routes(app)
        rest_messages.add_routes(app)
        rest_interactions.add_routes(app)
        app.router.add_get("/gateway", self.gateway.handle)
        app.router.add_get("/gateway/", self.gateway.handle)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        self.port = int(self._runner.addresses[0][1])
        return self

    async def stop(self) -> None:
        await self.gateway.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> StandIn:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.host}:{self.port}/gateway/"

    @property
    def bot_user(self) -> User:
        return self.state.bot

    def clock(self) -> float:
        """Monotonic time used for interaction deadlines, token lifetimes and nonces (see ``advance_clock``)."""
        return time.monotonic() + self.clock_offset

    def advance_clock(self, seconds: float) -> None:
        self.clock_offset += seconds

    # -- faults, request log, waiting -----------------------------------------------------------------------
    def fail_next(self, method: str, path_regex: str, status: int = 429, retry_after: float = 0.05, *,
                  is_global: bool = False, times: int = 1) -> None:
        """Answer the next ``times`` requests matching ``method`` (or ``"*"``) and ``path_regex`` (searched in
        the path without ``/api/v10``) with a 429 (Discord body and headers) or another status such as 500."""
        self.faults.append(Fault(method.upper(), re.compile(path_regex), status, retry_after, is_global, times))

    def take_fault(self, method: str, path: str) -> Fault | None:
        for fault in self.faults:
            if fault.method in ("*", method) and fault.pattern.search(path):
                fault.remaining -= 1
                if fault.remaining <= 0:
                    self.faults.remove(fault)
                return fault
        return None

    def requests_to(self, method: str, path_regex: str) -> list[RequestRecord]:
        pattern = re.compile(path_regex)
        return [r for r in self.requests if r.method == method.upper() and pattern.search(r.path)]

    async def notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def wait_until(self, predicate: Callable[[], bool], timeout: float | None = None) -> None:  # noqa: ASYNC109
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(predicate), timeout or self.timeout)

    async def wait_for_message(self, channel: ChannelRef, predicate: Callable[[Message], bool] | None = None,
                               *, after: int = 0, timeout: float | None = None) -> Message:  # noqa: ASYNC109
        """The first (non-ephemeral) message in ``channel`` with id > ``after`` matching ``predicate``."""
        target = self.channel(channel)
        found: list[Message] = []

        def check() -> bool:
            found[:] = [m for m in self.state.messages_in(target.id) if m.id > after and (not predicate or predicate(m))]
            return bool(found)

        await self.wait_until(check, timeout)
        return found[0]

    # -- lookups --------------------------------------------------------------------------------------------
    def _guild(self, guild: Guild | None = None) -> Guild:
        if guild is not None:
            return guild
        if self.default_guild is not None:
            return self.default_guild.guild
        return next(iter(self.state.guilds.values()))

    def channel(self, ref: ChannelRef, guild: Guild | None = None) -> Channel:
        if isinstance(ref, Channel):
            return ref
        if isinstance(ref, int):
            return self.state.channels[ref]
        return self._guild(guild).channel(ref)

    def member(self, ref: MemberRef, guild: Guild | None = None) -> Member:
        if isinstance(ref, Member):
            return ref
        the_guild = self._guild(guild)
        if isinstance(ref, User):
            return the_guild.members[ref.id]
        if isinstance(ref, int):
            return the_guild.members[ref]
        return the_guild.member(ref)

    def message(self, message_id: int) -> Message:
        return self.state.messages[message_id]

    def messages_in(self, channel: ChannelRef, *, include_ephemeral: bool = False) -> list[Message]:
        return self.state.messages_in(self.channel(channel).id, include_ephemeral=include_ephemeral)

    def dm_messages(self, member: MemberRef) -> list[Message]:
        user = member if isinstance(member, User) else self.member(member).user
        channel_id = self.state.dm_channels.get(user.id)
        return self.state.messages_in(channel_id) if channel_id else []

    def scheduled_events(self, guild: Guild | None = None) -> list[Json]:
        return list(self._guild(guild).scheduled_events.values())

    @property
    def threads(self) -> list[Channel]:
        return [c for c in self.state.channels.values() if c.is_thread]

    def commands(self, guild: Guild | None = None) -> list[Json]:
        return list(self.state.commands.get(guild.id if guild else None, []))

    # -- building the world ---------------------------------------------------------------------------------
    async def create_guild(self, name: str, *, owner: User | None = None) -> Guild:
        state = self.state
        owner = owner or state.owner
        guild = Guild(id=state.ids.next(), name=name, owner_id=owner.id)
        state.guilds[guild.id] = guild
        guild.roles[guild.id] = Role(id=guild.id, guild_id=guild.id, name="@everyone",
                                     permissions=EVERYONE_PERMISSIONS)
        bot_role = Role(id=state.ids.next(), guild_id=guild.id, name=state.bot.username,
                        permissions=self.bot_permissions, position=1, managed=True)
        guild.roles[bot_role.id] = bot_role
        guild.members[owner.id] = Member(user=owner, guild_id=guild.id)
        guild.members[state.bot.id] = Member(user=state.bot, guild_id=guild.id, roles=[bot_role.id])
        await self.gateway.dispatch("GUILD_CREATE", guild.gateway_payload())
        return guild

    def bot_role(self, guild: Guild | None = None) -> Role:
        the_guild = self._guild(guild)
        return next(r for r in the_guild.roles.values() if r.managed and r.name == self.state.bot.username)

    async def create_role(self, guild: Guild, name: str, permissions: int = 0, *, mentionable: bool = False) -> Role:
        role = Role(id=self.state.ids.next(), guild_id=guild.id, name=name, permissions=permissions,
                    position=len(guild.roles), mentionable=mentionable)
        guild.roles[role.id] = role
        await self.gateway.dispatch("GUILD_ROLE_CREATE", {"guild_id": str(guild.id), "role": role.payload()})
        return role

    async def create_channel(self, guild: Guild, name: str, *, type: int = GUILD_TEXT, topic: str | None = None,
                             tags: Iterable[str] = (), parent: Channel | None = None) -> Channel:
        state = self.state
        channel = Channel(id=state.ids.next(), type=type, name=name, guild_id=guild.id, topic=topic,
                          position=len(guild.channels), parent_id=parent.id if parent else None,
                          available_tags=[{"id": str(state.ids.next()), "name": t, "moderated": False,
                                           "emoji_id": None, "emoji_name": None} for t in tags])
        state.add_channel(channel)
        await self.gateway.dispatch("CHANNEL_CREATE", channel.payload())
        return channel

    async def create_member(self, guild: Guild, username: str, *, roles: Iterable[Role] = (),
                            global_name: str | None = None, dms_closed: bool = False) -> Member:
        user = User(id=self.state.ids.next(), username=username, global_name=global_name, dms_closed=dms_closed)
        self.state.users[user.id] = user
        member = Member(user=user, guild_id=guild.id, roles=[r.id for r in roles])
        guild.members[user.id] = member
        await self.gateway.dispatch("GUILD_MEMBER_ADD", {**member.payload(), "guild_id": str(guild.id)})
        return member

    async def create_default_guild(self) -> DefaultGuild:
        guild = await self.create_guild("Paper Club")
        organizers = await self.create_role(guild, "Organizers", MANAGE_EVENTS)
        readers = await self.create_role(guild, "Readers", 0, mentionable=True)
        world = DefaultGuild(
            guild=guild,
            announcements=await self.create_channel(guild, "announcements", topic="Paper club announcements"),
            suggestions=await self.create_channel(guild, "suggestions", type=GUILD_FORUM, tags=SUGGESTION_TAGS),
            general=await self.create_channel(guild, "general"),
            organizers=organizers, readers=readers, bot_role=self.bot_role(guild),
            organizer=await self.create_member(guild, "olivia", roles=[organizers], global_name="Olivia"),
            admin=await self.create_member(guild, "adam", global_name="Adam"),
            members=[await self.create_member(guild, name, global_name=name.title())
                     for name in ("rita", "sam", "tom")],
            bot=guild.members[self.state.bot.id],
        )
        admin_role = await self.create_role(guild, "Admins", MANAGE_GUILD)
        await self.add_role(world.admin, admin_role)
        self.default_guild = world
        return world

    async def set_role_permissions(self, role: Role, permissions: int) -> None:
        role.permissions = permissions
        await self.gateway.dispatch("GUILD_ROLE_UPDATE", {"guild_id": str(role.guild_id), "role": role.payload()})

    async def set_bot_permissions(self, permissions: int, guild: Guild | None = None) -> None:
        await self.set_role_permissions(self.bot_role(guild), permissions)

    async def add_role(self, member: Member, role: Role) -> None:
        if role.id not in member.roles:
            member.roles.append(role.id)
        await self._member_update(member)

    async def remove_role(self, member: Member, role: Role) -> None:
        member.roles = [r for r in member.roles if r != role.id]
        await self._member_update(member)

    async def _member_update(self, member: Member) -> None:
        await self.gateway.dispatch("GUILD_MEMBER_UPDATE", {**member.payload(), "guild_id": str(member.guild_id)})

    async def set_overwrite(self, channel: Channel, target: Role | Member, *, allow: int = 0, deny: int = 0) -> None:
        kind = 0 if isinstance(target, Role) else 1
        channel.overwrites = [o for o in channel.overwrites if o.id != target.id]
        if allow or deny:
            channel.overwrites.append(Overwrite(id=target.id, type=kind, allow=allow, deny=deny))
        await self.gateway.dispatch("CHANNEL_UPDATE", channel.payload())

    # -- gateway --------------------------------------------------------------------------------------------
    async def wait_connected(self, timeout: float | None = None) -> None:  # noqa: ASYNC109
        """Until a client has identified and received its GUILD_CREATEs."""
        await self.gateway.wait_for(lambda: self.gateway.identifies > 0 and self.gateway.connected,
                                    timeout or self.timeout)

    async def drop_gateway(self, *, wait_resumed: bool = True, timeout: float | None = None) -> None:  # noqa: ASYNC109
        """Close the gateway socket(s) like a network drop. discord.py reconnects and RESUMEs; with
        ``wait_resumed`` this returns once it has (missed events are replayed before RESUMED)."""
        before = self.gateway.resumes
        await self.gateway.drop()
        if wait_resumed:
            await self.gateway.wait_for(lambda: self.gateway.resumes > before, timeout or self.timeout)

    # -- interactions ---------------------------------------------------------------------------------------
    def _actor(self, member: MemberRef | None, channel: Channel) -> Member | User:
        guild = self.state.guild_of(channel)
        if member is None:
            if self.default_guild is not None and guild is self.default_guild.guild:
                return self.default_guild.members[0]
            raise ValueError("pass member=...")
        if guild is None:
            return member if isinstance(member, User) else self.member(member).user
        return self.member(member, guild)

    async def _send(self, payload: Json, source: Message | None = None) -> InteractionResult:
        if not self.gateway.sessions:
            raise RuntimeError("no bot is connected to the stand-in gateway")
        record = InteractionRecord(payload, self.clock(), source)
        self.interactions[record.id] = record
        self.by_token[record.token] = record
        await self.gateway.dispatch("INTERACTION_CREATE", payload)
        return InteractionResult(record, self.timeout)

    def _default_channel(self, channel: ChannelRef | None) -> Channel:
        if channel is not None:
            return self.channel(channel)
        if self.default_guild is not None:
            return self.default_guild.general
        raise ValueError("pass channel=...")

    async def invoke(self, name: str, options: Mapping[str, Any] | None = None, *, member: MemberRef | None = None,
                     channel: ChannelRef | None = None) -> InteractionResult:
        """Run a synced slash command (``"setup show"`` for sub-commands). Option values: str/int/float/bool,
        Member/User (user options), Role, Channel, or attachment dicts."""
        where = self._default_channel(channel)
        cmd, path = find_command(self.state, where.guild_id, name)
        payload = base_payload(self.state, APPLICATION_COMMAND, where, self._actor(member, where))
        payload["data"] = command_data(self.state, cmd, path, dict(options or {}), where)
        return await self._send(payload)

    async def autocomplete(self, name: str, focused: str, value: str, *, options: Mapping[str, Any] | None = None,
                           member: MemberRef | None = None, channel: ChannelRef | None = None,
                           timeout: float | None = None) -> list[Json]:  # noqa: ASYNC109
        where = self._default_channel(channel)
        cmd, path = find_command(self.state, where.guild_id, name)
        payload = base_payload(self.state, AUTOCOMPLETE, where, self._actor(member, where))
        payload["data"] = command_data(self.state, cmd, path, {**(options or {}), focused: value}, where,
                                       focused=focused)
        response = await (await self._send(payload)).response(timeout)
        return response.choices

    async def click(self, message: Message | int, custom_id: str, *, member: MemberRef | None = None,
                    values: list[str] | None = None) -> InteractionResult:
        """Press a button (or pick ``values`` in a select) on a stored message."""
        target = message if isinstance(message, Message) else self.message(message)
        where = self.state.channels[target.channel_id]
        payload = base_payload(self.state, MESSAGE_COMPONENT, where, self._actor(member, where))
        payload["data"] = component_data(target, custom_id, values)
        payload["message"] = target.payload
        return await self._send(payload, source=target)

    async def submit_modal(self, source: InteractionResult | Response | Json | str, values: Mapping[str, Any], *,
                           member: MemberRef | None = None) -> InteractionResult:
        """Submit a modal the bot opened: pass the result/response that opened it, or its custom_id."""
        ref = self._modal_ref(source)
        where = self.state.channels[ref.channel_id]
        payload = base_payload(self.state, MODAL_SUBMIT, where, self._actor(member, where))
        payload["data"] = modal_data(ref.modal, values)
        if ref.source is not None:
            payload["message"] = ref.source.payload
        return await self._send(payload, source=ref.source)

    def _modal_ref(self, source: InteractionResult | Response | Json | str) -> ModalRef:
        if isinstance(source, InteractionResult):
            response = source.record.response
            if response is None or response.modal is None:
                raise ValueError("that interaction did not answer with a modal (await result.response() first)")
            source = response
        if isinstance(source, Response):
            if source.modal is None:
                raise ValueError("that response is not a modal")
            source = source.modal
        custom_id = source if isinstance(source, str) else str(source.get("custom_id"))
        for ref in reversed(self.modals):
            if ref.modal.get("custom_id") == custom_id:
                return ref
        raise LookupError(f"the bot never opened a modal with custom_id {custom_id!r}")

    # -- members acting -------------------------------------------------------------------------------------
    async def post_as(self, member: MemberRef, channel: ChannelRef, content: str) -> Message:
        """A member posts a plain message (MESSAGE_CREATE is dispatched)."""
        where = self.channel(channel)
        author = self.member(member, self.state.guild_of(where)).user
        message = self.state.add_message(build_message(self.state, where, {"content": content}, [],
                                                       base_url=self.base_url, author=author))
        await self.gateway.dispatch("MESSAGE_CREATE", message.payload)
        await self.notify()
        return message

    def poll_results(self, message: Message, *, finalized: bool = False) -> Json:
        votes = self.state.poll_votes.get(message.id, {})
        counts = [{"id": answer, "count": len(users), "me_voted": self.state.bot.id in users}
                  for answer, users in sorted(votes.items()) if users]
        return {"is_finalized": finalized, "answer_counts": counts}

    async def vote(self, message: Message, member: MemberRef, answer_id: int) -> None:
        voter = self.member(member, self.state.guild_of(self.state.channels[message.channel_id]))
        self.state.poll_votes.setdefault(message.id, {}).setdefault(answer_id, set()).add(voter.id)
        if message.poll is not None:
            message.poll["results"] = self.poll_results(message)
        data: Json = {"user_id": str(voter.id), "channel_id": str(message.channel_id),
                      "message_id": str(message.id), "answer_id": answer_id, "guild_id": str(voter.guild_id)}
        await self.gateway.dispatch("MESSAGE_POLL_VOTE_ADD", data)
        await self.notify()
