"""Interactions the stand-in sends (slash commands, autocomplete, clicks, modal submits) and their outcome."""

from __future__ import annotations

import asyncio
import copy
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from standin.state import (
    EPHEMERAL,
    Channel,
    Guild,
    Json,
    Member,
    Message,
    Role,
    State,
    User,
    member_permissions,
)

PING, APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 1, 2, 3, 4, 5
CHAT_INPUT, USER_COMMAND, MESSAGE_COMMAND = 1, 2, 3  # application command types
ATTACHMENT_SIZE_LIMIT = 25 * 1024 * 1024


@dataclass
class Response:
    """The first answer to an interaction (``POST /interactions/{id}/{token}/callback``)."""

    type: int
    data: Json
    message: Message | None = None

    @property
    def content(self) -> str:
        """The response's message content."""
        return self.message.content if self.message else str(self.data.get("content") or "")

    @property
    def embeds(self) -> list[Json]:
        """The response's embeds."""
        return self.message.embeds if self.message else list(self.data.get("embeds") or [])

    @property
    def components(self) -> list[Json]:
        """The response's components."""
        return self.message.components if self.message else list(self.data.get("components") or [])

    @property
    def attachments(self) -> list[Json]:
        """The response's message attachments."""
        return self.message.attachments if self.message else []

    @property
    def flags(self) -> int:
        """The response's message flags."""
        return self.message.flags if self.message else int(self.data.get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        """Whether only the invoking user sees the response."""
        return bool(self.flags & EPHEMERAL)

    @property
    def deferred(self) -> bool:
        """Whether the response was a deferral."""
        return self.type in (5, 6)

    @property
    def choices(self) -> list[Json]:
        """The autocomplete choices, for an autocomplete result."""
        return list(self.data.get("choices") or []) if self.type == 8 else []

    @property
    def modal(self) -> Json | None:
        """``{"custom_id", "title", "components"}`` when the response opened a modal (type 9)."""
        return self.data if self.type == 9 else None


class InteractionRecord:
    """Server-side bookkeeping for one interaction and everything the bot did with it."""

    def __init__(self, payload: Json, created_at: float, source: Message | None = None) -> None:
        self.payload = payload
        self.id = int(payload["id"])
        self.token = str(payload["token"])
        self.type = int(payload["type"])
        self.created_at = created_at
        self.source = source  # the message a component was clicked on
        self.response: Response | None = None
        self.original: Message | None = None
        self.final: Message | None = None
        self.followups: list[Message] = []
        self.errors: list[Json] = []  # error bodies the stand-in answered for this interaction
        self.changed = asyncio.Condition()

    @property
    def channel_id(self) -> int:
        """The channel the interaction came from."""
        return int(self.payload["channel_id"])

    @property
    def guild_id(self) -> int | None:
        """The guild the interaction came from, or None in a DM."""
        return int(self.payload["guild_id"]) if self.payload.get("guild_id") else None

    @property
    def user_id(self) -> int:
        """The user who invoked the interaction."""
        user = self.payload.get("member", {}).get("user") or self.payload["user"]
        return int(user["id"])

    def metadata(self) -> Json:
        """The ``interaction_metadata`` a message answering this interaction carries."""
        user = self.payload.get("member", {}).get("user") or self.payload.get("user")
        data: Json = {
            "id": str(self.id),
            "type": self.type,
            "user": user,
            "authorizing_integration_owners": self.payload.get("authorizing_integration_owners", {}),
        }
        if self.type == APPLICATION_COMMAND:
            command = self.payload["data"]
            data["name"] = command["name"]
            # Application Command Interaction Metadata: target_user for a user command, target_message_id
            # for a message command.
            if command.get("type") == MESSAGE_COMMAND:
                data["target_message_id"] = command["target_id"]
            elif command.get("type") == USER_COMMAND:
                data["target_user"] = command["resolved"]["users"][command["target_id"]]
        if self.source is not None:
            data["interacted_message_id"] = str(self.source.id)
        return data

    async def notify(self) -> None:
        """Wake everyone waiting on this interaction."""
        async with self.changed:
            self.changed.notify_all()

    async def wait(self, predicate: Callable[[], bool], timeout: float) -> None:
        """Wait until ``predicate`` holds after a change, up to ``timeout`` seconds."""
        async with self.changed:
            await asyncio.wait_for(self.changed.wait_for(predicate), timeout)


class InteractionResult:
    """What a test gets back from ``invoke``/``click``/``submit_modal``; waits are event driven."""

    def __init__(self, record: InteractionRecord, timeout: float = 5.0) -> None:
        self.record = record
        self.timeout = timeout

    @property
    def id(self) -> int:
        """The interaction's id."""
        return self.record.id

    @property
    def followups(self) -> list[Message]:
        """The followup messages sent so far."""
        return list(self.record.followups)

    @property
    def message(self) -> Message | None:
        """The message the response created (type 4/5) or updated (type 6/7)."""
        return self.record.original

    @property
    def errors(self) -> list[Json]:
        """The API errors the bot's answers got so far."""
        return list(self.record.errors)

    async def response(self, timeout: float | None = None) -> Response:
        """Wait for the first answer to the interaction and return it."""
        await self.record.wait(lambda: self.record.response is not None, timeout or self.timeout)
        assert self.record.response is not None
        return self.record.response

    async def final(self, timeout: float | None = None) -> Message:
        """The visible outcome: the response message, or after a defer the edited original/first follow-up."""
        await self.record.wait(lambda: self.record.final is not None, timeout or self.timeout)
        assert self.record.final is not None
        return self.record.final

    async def wait_followups(self, count: int = 1, timeout: float | None = None) -> list[Message]:
        """Wait until at least ``count`` followups have been sent and return them."""
        await self.record.wait(lambda: len(self.record.followups) >= count, timeout or self.timeout)
        return self.followups

    async def wait_error(self, timeout: float | None = None) -> Json:
        """The first error body the stand-in answered to this interaction's callbacks (e.g. 10062, 40060)."""
        await self.record.wait(lambda: bool(self.record.errors), timeout or self.timeout)
        return self.record.errors[0]


# -- payload builders -----------------------------------------------------------------------------------------
def base_payload(state: State, itype: int, channel: Channel, user: Member | User) -> Json:
    """The fields every interaction payload carries, for ``user`` in ``channel``."""
    payload: Json = {
        "id": str(state.ids.next()),
        "application_id": str(state.application_id),
        "type": itype,
        "token": "sandbox." + secrets.token_urlsafe(32),
        "version": 1,
        "locale": "en-US",
        "entitlements": [],
        "entitlement_sku_ids": [],
        "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        "channel_id": str(channel.id),
        "channel": channel.payload(),
    }
    guild = state.guild_of(channel)
    if guild is not None:
        member = user if isinstance(user, Member) else guild.members[user.id]
        bot = guild.members[state.bot.id]
        payload.update(
            {
                "guild_id": str(guild.id),
                "guild": {"id": str(guild.id), "locale": "en-US", "features": []},
                "guild_locale": "en-US",
                "context": 0,
                "member": {
                    **member.payload(),
                    "permissions": str(member_permissions(guild, member, channel)),
                },
                "app_permissions": str(member_permissions(guild, bot, channel)),
                "authorizing_integration_owners": {"0": str(guild.id)},
            }
        )
    else:
        plain = user.user if isinstance(user, Member) else user
        payload.update(
            {
                "user": plain.payload(),
                "context": 1,
                "app_permissions": "0",
                "authorizing_integration_owners": {"0": str(plain.id)},
            }
        )
    return payload


def find_command(state: State, guild_id: int | None, name: str, ctype: int = 1) -> tuple[Json, list[str]]:
    """The synced command for ``"setup show"`` (guild commands first), plus the sub-command path."""
    top, *path = name.split()
    for scope in ([guild_id] if guild_id else []) + [None]:
        for cmd in state.commands.get(scope, []):
            if cmd["name"] == top and int(cmd.get("type", 1)) == ctype:
                return cmd, path
    synced = sorted(c["name"] for c in state.all_commands())
    raise LookupError(f"command {top!r} is not synced (synced: {synced})")


def _option_defs(cmd: Json, path: list[str]) -> tuple[list[Json], list[tuple[int, str]]]:
    defs = list(cmd.get("options") or [])
    chain: list[tuple[int, str]] = []
    for part in path:
        for opt in defs:
            if opt["name"] == part and opt["type"] in (1, 2):
                chain.append((int(opt["type"]), part))
                defs = list(opt.get("options") or [])
                break
        else:
            raise LookupError(f"{cmd['name']} has no sub-command {part!r}")
    if any(o["type"] in (1, 2) for o in defs):
        raise LookupError(f"{' '.join([cmd['name'], *path])!r} needs a sub-command")
    return defs, chain


def resolve_value(
    state: State, guild: Guild | None, otype: int, value: Any, resolved: Json, channel: Channel
) -> Any:
    """An option value as the payload carries it, adding users, members, roles and channels to ``resolved``."""
    if otype in (3,):
        return str(value)
    if otype == 4:
        return int(value)
    if otype == 10:
        return float(value)
    if otype == 5:
        return bool(value)
    if otype in (6, 9) and not isinstance(value, Role):
        user = value.user if isinstance(value, Member) else value
        if isinstance(user, int | str):
            user = state.users[int(user)]
        assert isinstance(user, User)
        resolved.setdefault("users", {})[str(user.id)] = user.payload()
        member = guild.members.get(user.id) if guild else None
        if member is not None and guild is not None:
            resolved.setdefault("members", {})[str(user.id)] = {
                **member.payload(with_user=False),
                "permissions": str(member_permissions(guild, member, channel)),
            }
        return str(user.id)
    if otype in (8, 9):
        role = value if isinstance(value, Role) else (guild.roles[int(value)] if guild else None)
        assert role is not None
        resolved.setdefault("roles", {})[str(role.id)] = role.payload()
        return str(role.id)
    if otype == 7:
        target = value if isinstance(value, Channel) else state.channels[int(value)]
        data = target.payload()  # whole, even when the bot cannot view it: interactions are not obfuscated
        if guild is not None:
            # Resolved channels carry app_permissions, the bot's permissions there (change log, 16 July 2026).
            bot = guild.members[state.bot.id]
            data["permissions"] = data["app_permissions"] = str(member_permissions(guild, bot, target))
        resolved.setdefault("channels", {})[str(target.id)] = data
        return str(target.id)
    if otype == 11:
        attachment = dict(value)
        resolved.setdefault("attachments", {})[str(attachment["id"])] = attachment
        return str(attachment["id"])
    return value


# Discord's clients send an option's value only within the command's declared limits, so a test that
# asks for more is asking for something no member can do. Docs, Application Command Option Structure
# and Option Type (interactions/application-commands): INTEGER is "any integer between -2^53+1 and
# 2^53-1", NUMBER "any double between -2^53 and 2^53"; `min_value`/`max_value` are "the minimum/maximum
# value permitted", `min_length`/`max_length` "the minimum/maximum allowed length"; "if you specify
# `choices` for an option, they are the only valid values for a user to pick" (autocomplete options
# are "not confined to only use choices given by the application").
SAFE_INTEGER = 2**53 - 1


def check_option_value(definition: Json, value: Any) -> None:
    """ValueError when ``value`` is one Discord's clients would not send for this option."""
    otype, name = int(definition["type"]), definition["name"]
    if otype in (4, 10):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"option {name!r} takes a number, not {value!r}")
        if otype == 4 and (not isinstance(value, int) or not -SAFE_INTEGER <= value <= SAFE_INTEGER):
            raise ValueError(f"option {name!r}: {value!r} is not an integer within ±(2^53-1)")
        if otype == 10 and not -(2**53) <= value <= 2**53:
            raise ValueError(f"option {name!r}: {value!r} is outside ±2^53")
        low, high = definition.get("min_value"), definition.get("max_value")
        if (low is not None and value < low) or (high is not None and value > high):
            raise ValueError(f"option {name!r}: {value!r} is outside {low}…{high}")
    if otype == 3:
        low, high = definition.get("min_length"), definition.get("max_length")
        size = len(str(value))
        if (low is not None and size < low) or (high is not None and size > high):
            raise ValueError(f"option {name!r}: {size} characters, outside {low}…{high}")
    choices = definition.get("choices")
    if choices and value not in [c["value"] for c in choices]:
        raise ValueError(f"option {name!r}: {value!r} is not one of its choices")


def command_data(
    state: State,
    cmd: Json,
    path: list[str],
    options: Mapping[str, Any],
    channel: Channel,
    focused: str | None = None,
) -> Json:
    """``data`` of an APPLICATION_COMMAND (or AUTOCOMPLETE, with ``focused``) interaction."""
    guild = state.guild_of(channel)
    defs, chain = _option_defs(cmd, path)
    by_name = {d["name"]: d for d in defs}
    unknown = set(options) - set(by_name)
    if unknown:
        raise ValueError(f"unknown options {sorted(unknown)} for {cmd['name']} {' '.join(path)}".strip())
    missing = [
        d["name"] for d in defs if d.get("required") and d["name"] not in options and d["name"] != focused
    ]
    if missing and focused is None:
        raise ValueError(f"missing required options {missing}")
    resolved: Json = {}
    leaf: list[Json] = []
    for name, value in options.items():
        otype = int(by_name[name]["type"])
        if name == focused:
            leaf.append({"name": name, "type": otype, "value": str(value), "focused": True})
        else:
            if otype in (3, 4, 10):
                check_option_value(by_name[name], value)
            leaf.append(
                {
                    "name": name,
                    "type": otype,
                    "value": resolve_value(state, guild, otype, value, resolved, channel),
                }
            )
    nested: list[Json] = leaf
    for otype, name in reversed(chain):
        nested = [{"name": name, "type": otype, "options": nested}]
    data: Json = {"id": cmd["id"], "name": cmd["name"], "type": int(cmd.get("type", 1)), "options": nested}
    if resolved:
        data["resolved"] = resolved
    if cmd.get("guild_id"):
        data["guild_id"] = cmd["guild_id"]
    return data


def find_context_menu(state: State, guild_id: int | None, name: str, ctype: int) -> Json:
    """The synced user (2) or message (3) command called ``name`` (guild commands first); such names may
    hold spaces and capitals ("Suggest this paper")."""
    for scope in ([guild_id] if guild_id else []) + [None]:
        for cmd in state.commands.get(scope, []):
            if cmd["name"] == name and int(cmd.get("type", 1)) == ctype:
                return cmd
    kind = "message" if ctype == MESSAGE_COMMAND else "user"
    synced = sorted(c["name"] for c in state.all_commands() if int(c.get("type", 1)) == ctype)
    raise LookupError(f"{kind} command {name!r} is not synced ({kind} commands: {synced})")


def context_menu_data(state: State, cmd: Json, target: Message | Member | User, channel: Channel) -> Json:
    """``data`` of a user or message command: ``target_id`` and the target in ``resolved`` (Application
    Commands, "User Commands" and "Message Commands": the example interactions; Receiving and Responding,
    Resolved Data Structure: ``messages``, "IDs and partial Message objects"). A message's content is there
    whatever the bot's intents ("Content of the message a message context menu command is used on", Gateway,
    Message Content Intent)."""
    ctype = int(cmd.get("type", 1))
    resolved: Json = {}
    if isinstance(target, Message):
        target_id = str(target.id)
        resolved["messages"] = {target_id: copy.deepcopy(target.payload)}
    else:
        target_id = str(resolve_value(state, state.guild_of(channel), 6, target, resolved, channel))
    data: Json = {"id": cmd["id"], "name": cmd["name"], "type": ctype, "target_id": target_id}
    data["resolved"] = resolved
    if cmd.get("guild_id"):
        data["guild_id"] = cmd["guild_id"]
    return data


SELECT_OPTION_TYPES = {5: 6, 6: 8, 7: 9, 8: 7}  # user/role/mentionable/channel select -> option type


def component_data(
    state: State, message: Message, custom_id: str, values: list[Any] | None, channel: Channel
) -> Json:
    """``data`` of a MESSAGE_COMPONENT interaction; entity selects get ``resolved`` like Discord sends."""
    component = message.component(custom_id)
    ctype = int(component["type"])
    data: Json = {"custom_id": custom_id, "component_type": ctype}
    if component.get("id") is not None:  # Button/select Interaction Response Structure: the component's id
        data["id"] = component["id"]
    if ctype == 2:
        return data
    if ctype in SELECT_OPTION_TYPES:
        resolved: Json = {}
        guild = state.guild_of(channel)
        data["values"] = [
            resolve_value(state, guild, SELECT_OPTION_TYPES[ctype], v, resolved, channel)
            for v in values or []
        ]
        data["resolved"] = resolved
    else:
        data["values"] = [str(v) for v in values or []]
    return data


@dataclass
class ModalRef:
    """A modal the bot opened: where, for whom, and its definition."""

    modal: Json
    channel_id: int
    source: Message | None = None
    extra: Json = field(default_factory=dict)
