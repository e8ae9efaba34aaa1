"""What members do in the stand-in's Discord: slash commands, autocomplete, clicks, forms, the context
menus of messages and users, posts, votes and "Interested"; mixed into ``StandIn``.

Each helper sends what Discord's client would (an interaction, a gateway event) and refuses, with an
exception, what no client lets a member do (an option outside its choices, a command they cannot see, a
message in a channel they cannot read).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from standin.interactions import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    MESSAGE_COMMAND,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    USER_COMMAND,
    InteractionRecord,
    InteractionResult,
    ModalRef,
    Response,
    base_payload,
    command_data,
    component_data,
    context_menu_data,
    find_command,
    find_context_menu,
)
from standin.messages import build_message
from standin.modals import submission
from standin.state import (
    ADMINISTRATOR,
    SEND_MESSAGES,
    VIEW_CHANNEL,
    Channel,
    Json,
    Member,
    Message,
    User,
    member_permissions,
)
from standin.world import ChannelRef, MemberRef, WorldBuilder


class Acting(WorldBuilder):
    """The member-facing half of :class:`standin.server.StandIn` (which provides the clock, the address and
    the waiting)."""

    interactions: dict[int, InteractionRecord]
    by_token: dict[str, InteractionRecord]
    modals: list[ModalRef]
    timeout: float
    enforce_command_permissions: bool = False

    @property
    def base_url(self) -> str:
        """The stand-in's base URL."""
        raise NotImplementedError

    def clock(self) -> float:
        """The stand-in's clock, in seconds."""
        raise NotImplementedError

    async def notify(self) -> None:
        """Wake whoever waits for the stand-in's state to change."""
        raise NotImplementedError

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
        guild_id = int(payload["guild_id"]) if payload.get("guild_id") else None
        if not any(s.owns(guild_id) for s in self.gateway.sessions.values()):
            raise RuntimeError(f"no bot session is on the shard of guild {guild_id} (shard 0 for DMs)")
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

    async def invoke(
        self,
        name: str,
        options: Mapping[str, Any] | None = None,
        *,
        member: MemberRef | None = None,
        channel: ChannelRef | None = None,
        bypass_permissions: bool = False,
    ) -> InteractionResult:
        """Run a synced slash command (``"setup show"`` for sub-commands). Option values: str/int/float/bool,
        Member/User (user options), Role, Channel, or attachment dicts. With ``enforce_command_permissions``
        it raises ``PermissionError`` when the member lacks the command's ``default_member_permissions``."""
        where = self._default_channel(channel)
        cmd, path = find_command(self.state, where.guild_id, name)
        # Interaction Context Types: 0 a guild, 1 the bot's DM; a command's ``contexts`` lists where a
        # client offers it (Application Commands, "contexts": unset, everywhere).
        context = 0 if where.guild_id is not None else 1
        if cmd.get("contexts") is not None and context not in cmd["contexts"]:
            raise LookupError(f"/{cmd['name']} is not offered {'in a server' if context == 0 else 'in DMs'}")
        actor = self._actor(member, where)
        if self.enforce_command_permissions and not bypass_permissions:
            self._check_command_permissions(cmd, actor, where)
        payload = base_payload(self.state, APPLICATION_COMMAND, where, actor)
        payload["data"] = command_data(self.state, cmd, path, dict(options or {}), where)
        return await self._send(payload)

    def _check_command_permissions(self, cmd: Json, actor: Member | User, where: Channel) -> None:
        """Discord hides a command from members lacking its ``default_member_permissions``."""
        guild = self.state.guild_of(where)
        needed = cmd.get("default_member_permissions")
        if guild is None or needed is None or not isinstance(actor, Member):
            return
        have = member_permissions(guild, actor, where)
        allowed = bool(have & ADMINISTRATOR) if int(needed) == 0 else int(needed) & have == int(needed)
        if not allowed:
            raise PermissionError(
                f"{actor.display_name} cannot see /{cmd['name']} "
                f"(default_member_permissions={needed}); pass bypass_permissions=True"
            )

    async def autocomplete(
        self,
        name: str,
        focused: str,
        value: str,
        *,
        options: Mapping[str, Any] | None = None,
        member: MemberRef | None = None,
        channel: ChannelRef | None = None,
        timeout: float | None = None,
    ) -> list[Json]:
        """What the bot suggests for ``option`` of ``name`` as a member types ``value``."""
        where = self._default_channel(channel)
        cmd, path = find_command(self.state, where.guild_id, name)
        payload = base_payload(self.state, AUTOCOMPLETE, where, self._actor(member, where))
        payload["data"] = command_data(
            self.state, cmd, path, {**(options or {}), focused: value}, where, focused=focused
        )
        response = await (await self._send(payload)).response(timeout)
        return response.choices

    async def click(
        self,
        message: Message | int,
        custom_id: str,
        *,
        member: MemberRef | None = None,
        values: list[Any] | None = None,
        forged: bool = False,
    ) -> InteractionResult:
        """Press a button, or pick ``values`` in a select (strings; Members/Roles/Channels for entity selects).
        ``forged``: what a modified client could send, the message's first button pressed with ``custom_id``
        in place of its own (in the press and in the message it sends along); the bot must trust nothing
        in it."""
        target = message if isinstance(message, Message) else self.message(message)
        where = self.state.channels[target.channel_id]
        payload = base_payload(self.state, MESSAGE_COMPONENT, where, self._actor(member, where))
        if forged:
            sent = copy.deepcopy(target.payload)
            first = next(
                c for c in Message(sent).walk_components() if c.get("type") == 2 and c.get("custom_id")
            )
            first["custom_id"] = custom_id
            payload["data"] = {"custom_id": custom_id, "component_type": 2}
            payload["message"] = sent
        else:
            payload["data"] = component_data(self.state, target, custom_id, values, where)
            payload["message"] = target.payload
        return await self._send(payload, source=target)

    async def submit_modal(
        self,
        source: InteractionResult | Response | Json | str,
        values: Mapping[str, Any],
        *,
        member: MemberRef | None = None,
        forged: bool = False,
    ) -> InteractionResult:
        """Submit a modal the bot opened: pass the result/response that opened it, or its custom_id.
        ``values`` by field custom_id (see :func:`standin.modals.submission` for each kind); values no
        Discord client would send raise ``ValueError`` unless ``forged``."""
        if isinstance(source, InteractionResult):
            await source.response()  # the modal the bot answered with
        ref = self._modal_ref(source)
        where = self.state.channels[ref.channel_id]
        payload = base_payload(self.state, MODAL_SUBMIT, where, self._actor(member, where))
        payload["data"] = submission(self.state, ref.modal, values, where, self.base_url, forged=forged)
        if ref.source is not None:
            payload["message"] = ref.source.payload
        return await self._send(payload, source=ref.source)

    def _modal_ref(self, source: InteractionResult | Response | Json | str) -> ModalRef:
        if isinstance(source, InteractionResult):
            response = source.record.response
            if response is None or response.modal is None:
                raise ValueError("that interaction did not answer with a modal")
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

    # -- context menus ----------------------------------------------------------------------------------
    async def invoke_message_command(
        self,
        name: str,
        message: Message | int,
        *,
        member: MemberRef | None = None,
        bypass_permissions: bool = False,
    ) -> InteractionResult:
        """A member right-clicks ``message`` → Apps → ``name`` (a synced message command). The interaction
        carries ``data.target_id`` and the message in ``data.resolved.messages`` as it was when clicked: a
        deleted message (``message.deleted``) is sent as the member last saw it, the race of a deletion just
        after the click. Raises ``PermissionError`` when the member cannot see the message's channel (its
        client would not show the message), or lacks the command's ``default_member_permissions`` while
        ``enforce_command_permissions`` is on."""
        target = message if isinstance(message, Message) else self.message(message)
        where = self.state.channels[target.channel_id]
        actor = self._actor(member, where)
        guild = self.state.guild_of(where)
        if (
            guild is not None
            and isinstance(actor, Member)
            and not member_permissions(guild, actor, where) & VIEW_CHANNEL
        ):
            raise PermissionError(f"{actor.display_name} cannot see #{where.name}, so not its messages")
        cmd = find_context_menu(self.state, where.guild_id, name, MESSAGE_COMMAND)
        if self.enforce_command_permissions and not bypass_permissions:
            self._check_command_permissions(cmd, actor, where)
        payload = base_payload(self.state, APPLICATION_COMMAND, where, actor)
        payload["data"] = context_menu_data(self.state, cmd, target, where)
        return await self._send(payload)

    async def invoke_user_command(
        self,
        name: str,
        target: MemberRef,
        *,
        member: MemberRef | None = None,
        channel: ChannelRef | None = None,
    ) -> InteractionResult:
        """A member right-clicks ``target`` → Apps → ``name`` (a synced user command) in ``channel``. Raises
        ``PermissionError`` when the member may not send messages there (Application Commands, User
        Commands: "A user must have permission to send text messages in the channel they invoke a user
        command in")."""
        where = self._default_channel(channel)
        actor = self._actor(member, where)
        guild = self.state.guild_of(where)
        whom: Member | User = self.member(target, guild) if guild is not None else self._actor(target, where)
        if (
            guild is not None
            and isinstance(actor, Member)
            and not member_permissions(guild, actor, where) & SEND_MESSAGES
        ):
            raise PermissionError(f"{actor.display_name} may not send messages in #{where.name}")
        cmd = find_context_menu(self.state, where.guild_id, name, USER_COMMAND)
        payload = base_payload(self.state, APPLICATION_COMMAND, where, actor)
        payload["data"] = context_menu_data(self.state, cmd, whom, where)
        return await self._send(payload)

    # -- members acting -------------------------------------------------------------------------------------
    async def post_as(self, member: MemberRef, channel: ChannelRef, content: str) -> Message:
        """A member posts a plain message (MESSAGE_CREATE is dispatched)."""
        where = self.channel(channel)
        author = self.member(member, self.state.guild_of(where)).user
        message = self.state.add_message(
            build_message(self.state, where, {"content": content}, [], base_url=self.base_url, author=author)
        )
        await self.gateway.dispatch("MESSAGE_CREATE", message.payload)
        await self.notify()
        return message

    async def delete_as(self, member: MemberRef, message: Message) -> None:
        """A member deletes their own message (MESSAGE_DELETE is dispatched); the stand-in keeps it, marked."""
        where = self.state.channels[message.channel_id]
        if message.author_id != self.member(member, self.state.guild_of(where)).id:
            raise PermissionError("a member deletes only their own messages here (no Manage Messages)")
        message.deleted = True
        data: Json = {"id": str(message.id), "channel_id": str(where.id)}
        if where.guild_id is not None:
            data["guild_id"] = str(where.guild_id)
        await self.gateway.dispatch("MESSAGE_DELETE", data)
        await self.notify()

    async def mark_interested(self, event: Json | int, member: MemberRef, interested: bool = True) -> None:
        """A member clicks "Interested" on a scheduled event (GUILD_SCHEDULED_EVENT_USER_ADD), or clicks it
        again to take it back (``interested`` False: GUILD_SCHEDULED_EVENT_USER_REMOVE); the event's
        ``user_count`` follows. Marking twice changes nothing and sends nothing (Discord's button is a toggle)."""
        event_id = int(event["id"]) if isinstance(event, dict) else event
        guild = next(g for g in self.state.guilds.values() if event_id in g.scheduled_events)
        who = self.member(member, guild)
        users = self.state.event_users.setdefault(event_id, set())
        if (who.id in users) == interested:
            return
        if interested:
            users.add(who.id)
        else:
            users.discard(who.id)
        guild.scheduled_events[event_id]["user_count"] = len(users)
        await self.gateway.dispatch(
            "GUILD_SCHEDULED_EVENT_USER_ADD" if interested else "GUILD_SCHEDULED_EVENT_USER_REMOVE",
            {"guild_scheduled_event_id": str(event_id), "user_id": str(who.id), "guild_id": str(guild.id)},
        )
        await self.notify()

    async def unmark_interested(self, event: Json | int, member: MemberRef) -> None:
        """A member takes back "Interested" (GUILD_SCHEDULED_EVENT_USER_REMOVE)."""
        await self.mark_interested(event, member, interested=False)

    def poll_results(self, message: Message, *, finalized: bool = False) -> Json:
        """A poll's results as the message shows them."""
        votes = self.state.poll_votes.get(message.id, {})
        counts = [
            {"id": answer, "count": len(users), "me_voted": self.state.bot.id in users}
            for answer, users in sorted(votes.items())
            if users
        ]
        return {"is_finalized": finalized, "answer_counts": counts}

    async def vote(self, message: Message, member: MemberRef, answer_id: int) -> None:
        """A member votes for an answer of a poll."""
        voter = self.member(member, self.state.guild_of(self.state.channels[message.channel_id]))
        self.state.poll_votes.setdefault(message.id, {}).setdefault(answer_id, set()).add(voter.id)
        if message.poll is not None:
            message.poll["results"] = self.poll_results(message)
        data: Json = {
            "user_id": str(voter.id),
            "channel_id": str(message.channel_id),
            "message_id": str(message.id),
            "answer_id": answer_id,
            "guild_id": str(voter.guild_id),
        }
        await self.gateway.dispatch("MESSAGE_POLL_VOTE_ADD", data)
        await self.notify()
