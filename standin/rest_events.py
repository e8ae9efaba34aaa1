"""Guild scheduled event routes (create, list, get, edit, delete, interested users)."""

from __future__ import annotations

import datetime as dt

from aiohttp import web

from standin import limits
from standin.errors import ApiError, FormErrors, not_found
from standin.host import Host
from standin.messages import parse_time
from standin.rest import (
    API,
    Handler,
    body_of,
    channel_from,
    guild_from,
    no_content,
    ok,
    require,
    snowflake,
    standin_of,
)
from standin.state import (
    CONNECT,
    CREATE_EVENTS,
    GUILD_STAGE_VOICE,
    GUILD_VOICE,
    MANAGE_CHANNELS,
    MANAGE_EVENTS,
    MOVE_MEMBERS,
    MUTE_MEMBERS,
    SET_VOICE_CHANNEL_STATUS,
    VIEW_CHANNEL,
    Channel,
    Guild,
    Json,
)

# Permissions as Discord's "Guild Scheduled Event Permissions Requirements" says
# (https://discord.com/developers/docs/resources/guild-scheduled-event#guild-scheduled-event-permissions-requirements):
# creating needs CREATE_EVENTS; modifying or deleting needs MANAGE_EVENTS, or CREATE_EVENTS for an event the
# bot created. EXTERNAL events are checked at guild level, channel events in their channel, with what the
# same section asks of each kind: "Permissions for events with entity_type STAGE_INSTANCE: MANAGE_CHANNELS,
# MUTE_MEMBERS, MOVE_MEMBERS"; "entity_type VOICE: VIEW_CHANNEL, CONNECT".

STAGE_INSTANCE, VOICE, EXTERNAL = 1, 2, 3  # Guild Scheduled Event Entity Types
SCHEDULED, ACTIVE, COMPLETED, CANCELED = 1, 2, 3, 4  # Guild Scheduled Event Status
# "Valid Guild Scheduled Event Status Transitions: SCHEDULED --> ACTIVE --> COMPLETED; SCHEDULED --> CANCELED";
# "Once status is set to COMPLETED or CANCELED, the status can no longer be updated" (Guild Scheduled Event).
TRANSITIONS = {(SCHEDULED, ACTIVE), (ACTIVE, COMPLETED), (SCHEDULED, CANCELED)}
CHANNEL_TYPE = {STAGE_INSTANCE: GUILD_STAGE_VOICE, VOICE: GUILD_VOICE}
CHANNEL_PERMISSIONS = {
    STAGE_INSTANCE: MANAGE_CHANNELS | MUTE_MEMBERS | MOVE_MEMBERS,
    VOICE: VIEW_CHANNEL | CONNECT,
}


def _snowflake_or_none(value: object) -> str | None:
    """A snowflake as Discord answers it: a string."""
    return None if value is None else str(value)


def _event_from(request: web.Request) -> tuple[Guild, Json]:
    guild = guild_from(request)
    event = guild.scheduled_events.get(snowflake(request, "event_id"))
    if event is None:
        raise not_found("Guild Scheduled Event", 10070)
    return guild, event


def _channel_of(standin: Host, guild: Guild, channel_id: object) -> Channel | None:
    if channel_id is None:
        return None
    channel = standin.state.channels.get(int(str(channel_id)))
    return channel if channel is not None and channel.guild_id == guild.id else None


def require_create(standin: Host, guild: Guild, body: Json) -> None:
    """Create Permissions: CREATE_EVENTS (MANAGE_EVENTS alone no longer suffices since 2026-02-23), and in a
    channel what its kind of event asks."""
    channel = _channel_of(standin, guild, body.get("channel_id"))
    require(standin, guild, CREATE_EVENTS, channel)
    _require_channel_kind(standin, guild, body.get("entity_type"), channel)


def _require_channel_kind(standin: Host, guild: Guild, entity_type: object, channel: Channel | None) -> None:
    extra = CHANNEL_PERMISSIONS.get(entity_type) if isinstance(entity_type, int) else None
    if extra is not None and channel is not None:
        require(standin, guild, extra, channel)


def _check_entity(standin: Host, guild: Guild, body: Json, event: Json | None) -> None:
    """Field Requirements By Entity Type: STAGE_INSTANCE and VOICE need ``channel_id`` (a stage or voice
    channel of the guild) and a null ``entity_metadata``; EXTERNAL a location and ``scheduled_end_time`` and a
    null ``channel_id`` (the location's length: limits.check_scheduled_event)."""
    merged = {**(event or {}), **body}
    kind, errs = merged.get("entity_type", EXTERNAL), FormErrors()
    if kind in CHANNEL_TYPE:
        channel = _channel_of(standin, guild, merged.get("channel_id"))
        if channel is None or channel.type != CHANNEL_TYPE[kind]:
            errs.add(
                ["channel_id"], "GUILD_SCHEDULED_EVENT_INVALID_CHANNEL", "Invalid channel for this event."
            )
        if (merged.get("entity_metadata") or {}).get("location"):
            errs.add(["entity_metadata"], "BASE_TYPE_BAD_VALUE", "Must be null for this entity type.")
    elif merged.get("channel_id") is not None:
        errs.add(["channel_id"], "BASE_TYPE_BAD_VALUE", "Must be null for an external event.")
    errs.raise_if_any()


def _check_status(body: Json, event: Json) -> None:
    """A status change is one of the valid transitions (none from COMPLETED or CANCELED)."""
    if "status" not in body or body["status"] == event["status"]:
        return
    if (event["status"], body["status"]) not in TRANSITIONS:
        errs = FormErrors()
        errs.add(["status"], "GUILD_SCHEDULED_EVENT_INVALID_STATUS_TRANSITION", "Invalid status transition.")
        errs.raise_if_any()


def run_automation(guild: Guild, now: dt.datetime) -> list[Json]:
    """What Discord does on its own, the events it changed: an EXTERNAL event ("Somewhere Else") starts at its
    start time and ends at its end time; a STAGE_INSTANCE or VOICE event waits for its host (the app) to start
    and end it (Discord Help Center, "Scheduled Events": events in a Stage or Voice channel are started by
    their host; the API's status notes: the app moves a channel event with Modify Guild Scheduled Event)."""
    changed = []
    for event in guild.scheduled_events.values():
        if event.get("entity_type") != EXTERNAL or event["status"] not in (SCHEDULED, ACTIVE):
            continue
        start = parse_time(event["scheduled_start_time"])
        end = parse_time(event.get("scheduled_end_time"))
        status = event["status"]
        if status == SCHEDULED and start is not None and start <= now:
            status = ACTIVE
        if status == ACTIVE and end is not None and end <= now:
            status = COMPLETED
        if status != event["status"]:
            event["status"] = status
            changed.append(event)
    return changed


async def automate(standin: Host, guild: Guild) -> None:
    """Run Discord's automation up to now, and tell the gateway of each event it moved."""
    for event in run_automation(guild, standin.wall_clock()):
        await standin.gateway.dispatch("GUILD_SCHEDULED_EVENT_UPDATE", event)


def require_modify(standin: Host, guild: Guild, event: Json) -> None:
    """Modify/Delete Permissions: "If the event was created by the current user, either CREATE_EVENTS or
    MANAGE_EVENTS. Otherwise, MANAGE_EVENTS"."""
    own = str(event.get("creator_id")) == str(standin.state.bot.id)
    channel = _channel_of(standin, guild, event.get("channel_id"))
    require(standin, guild, (CREATE_EVENTS | MANAGE_EVENTS) if own else MANAGE_EVENTS, channel, any_of=own)


def _check_event_times(body: Json, event: Json | None, now: dt.datetime) -> None:
    errs = FormErrors()
    start = parse_time(body.get("scheduled_start_time") or (event or {}).get("scheduled_start_time"))
    end = parse_time(body.get("scheduled_end_time") or (event or {}).get("scheduled_end_time"))
    if start is not None and "scheduled_start_time" in body and start < now:
        errs.add(
            ["scheduled_start_time"],
            "GUILD_SCHEDULED_EVENT_SCHEDULE_PAST",
            "Cannot schedule event in the past.",
        )
    if start is not None and end is not None and end <= start:
        errs.add(
            ["scheduled_end_time"],
            "GUILD_SCHEDULED_EVENT_END_BEFORE_START",
            "Cannot schedule event to end before starting.",
        )
    errs.raise_if_any()


# "30038: Maximum number of uncompleted guild scheduled events reached (100)" (docs: Opcodes and Status
# Codes → JSON Error Codes). Uncompleted: SCHEDULED (1) or ACTIVE (2).
MAX_UNCOMPLETED_EVENTS = 100


def _check_event_cap(guild: Guild) -> None:
    uncompleted = sum(1 for event in guild.scheduled_events.values() if event.get("status") in (1, 2))
    if uncompleted >= MAX_UNCOMPLETED_EVENTS:
        raise ApiError(400, 30038, "Maximum number of uncompleted guild scheduled events reached (100)")


async def create_event(request: web.Request) -> web.Response:
    """Create a scheduled event, checked as Discord checks it."""
    standin, guild, body = standin_of(request), guild_from(request), body_of(request)
    require_create(standin, guild, body)
    limits.check_scheduled_event(body, partial=False)
    _check_entity(standin, guild, body, None)
    _check_event_times(body, None, standin.wall_clock())
    _check_event_cap(guild)
    event_id = standin.state.ids.next()
    bot = standin.state.bot
    event: Json = {
        "id": str(event_id),
        "guild_id": str(guild.id),
        "channel_id": _snowflake_or_none(body.get("channel_id")),
        "creator_id": str(bot.id),
        "creator": bot.payload(),
        "name": body["name"],
        "description": body.get("description"),
        "scheduled_start_time": body["scheduled_start_time"],
        "scheduled_end_time": body.get("scheduled_end_time"),
        "privacy_level": body.get("privacy_level", 2),
        "status": 1,
        "entity_type": body.get("entity_type", 3),
        "entity_id": None,
        "entity_metadata": body.get("entity_metadata"),
        "user_count": 0,
        "image": body.get("image"),
        "recurrence_rule": body.get("recurrence_rule"),
    }
    guild.scheduled_events[event_id] = event
    await standin.gateway.dispatch("GUILD_SCHEDULED_EVENT_CREATE", event)
    return ok(event)


async def list_events(request: web.Request) -> web.Response:
    """A guild's scheduled events."""
    guild = guild_from(request)
    await automate(standin_of(request), guild)
    return ok(list(guild.scheduled_events.values()))


async def get_event(request: web.Request) -> web.Response:
    """``GET`` one scheduled event."""
    guild, event = _event_from(request)
    await automate(standin_of(request), guild)
    return ok(event)


async def patch_event(request: web.Request) -> web.Response:
    """Edit a scheduled event, checked as Discord checks it."""
    standin = standin_of(request)
    guild, event = _event_from(request)
    await automate(standin, guild)
    require_modify(standin, guild, event)
    body = body_of(request)
    _require_channel_kind(
        standin,
        guild,
        body.get("entity_type", event.get("entity_type")),
        _channel_of(standin, guild, body.get("channel_id", event.get("channel_id"))),
    )
    limits.check_scheduled_event(body, partial=True)
    _check_entity(standin, guild, body, event)
    _check_status(body, event)
    _check_event_times(body, event, standin_of(request).wall_clock())
    for key in (
        "name",
        "description",
        "scheduled_start_time",
        "scheduled_end_time",
        "entity_metadata",
        "channel_id",
        "entity_type",
        "privacy_level",
        "status",
        "image",
        "recurrence_rule",
    ):
        if key in body:
            event[key] = _snowflake_or_none(body[key]) if key == "channel_id" else body[key]
    await standin.gateway.dispatch("GUILD_SCHEDULED_EVENT_UPDATE", event)
    return ok(event)


async def delete_event(request: web.Request) -> web.Response:
    """Delete a scheduled event."""
    standin = standin_of(request)
    guild, event = _event_from(request)
    require_modify(standin, guild, event)
    del guild.scheduled_events[int(event["id"])]
    await standin.gateway.dispatch("GUILD_SCHEDULED_EVENT_DELETE", event)
    return no_content()


# "Get Guild Scheduled Event Users" (https://discord.com/developers/docs/resources/guild-scheduled-event#get-guild-
# scheduled-event-users): ``limit`` "number of users to return (up to maximum 100)", default 100; ``before`` /
# ``after`` "consider only users before/after given user id"; users come in ascending id order, and given both,
# only ``before`` is respected (twilight-http's documentation of the route, which follows Discord's answers).
MAX_EVENT_USERS = 100


def _users_limit(request: web.Request) -> int:
    text = request.query.get("limit", str(MAX_EVENT_USERS))
    limit = int(text) if text.isdigit() else -1
    if not 1 <= limit <= MAX_EVENT_USERS:
        errors = FormErrors()
        errors.add(["limit"], "NUMBER_TYPE_MAX", f"int value should be between 1 and {MAX_EVENT_USERS}.")
        errors.raise_if_any()
    return limit


async def event_users(request: web.Request) -> web.Response:
    """A page of a scheduled event's interested users (ascending ids; ``before`` wins over ``after``)."""
    standin = standin_of(request)
    guild, event = _event_from(request)
    limit = _users_limit(request)
    users = sorted(standin.state.event_users.get(int(event["id"]), set()))
    if "before" in request.query:
        users = [u for u in users if u < int(request.query["before"])][-limit:]
    else:
        after = int(request.query.get("after", "0"))
        users = [u for u in users if u > after][:limit]
    with_member = request.query.get("with_member") in ("true", "1", "True")
    out: list[Json] = []
    for user_id in users:
        item: Json = {"guild_scheduled_event_id": event["id"], "user": standin.state.users[user_id].payload()}
        if with_member and user_id in guild.members:
            item["member"] = guild.members[user_id].payload(with_user=False)
        out.append(item)
    return ok(out)


# ---------------------------------------------------------------- a voice channel's status
# PUT /channels/{channel.id}/voice-status (discord/discord-api-docs#6400; the OpenAPI description's
# update_voice_channel_status, whose body the request validation checks): a voice channel only; needs
# SET_VOICE_CHANNEL_STATUS (1 << 48) and, unless connected to the channel (the bot never is), MANAGE_CHANNELS;
# "the voice channel status (0-500 characters)" (#6398). Discord then sends VOICE_CHANNEL_STATUS_UPDATE.
VOICE_STATUS_LIMIT = 500


async def put_voice_status(request: web.Request) -> web.Response:
    """Set (or, with null or "", clear) a voice channel's status."""
    standin, channel, body = standin_of(request), channel_from(request), body_of(request)
    guild = standin.state.guild_of(channel)
    if guild is None:
        raise ApiError(403, 50001, "Missing Access")
    if channel.type != GUILD_VOICE:
        raise ApiError(400, 50024, "Cannot execute action on this channel type")
    require(standin, guild, VIEW_CHANNEL | SET_VOICE_CHANNEL_STATUS | MANAGE_CHANNELS, channel)
    status = body.get("status")
    errs = FormErrors()
    errs.length(["status"], status, VOICE_STATUS_LIMIT)
    errs.raise_if_any()
    channel.status = status or None
    await standin.gateway.dispatch(
        "VOICE_CHANNEL_STATUS_UPDATE", {"id": str(channel.id), "guild_id": str(guild.id), "status": status}
    )
    return no_content()


def add_routes(app: web.Application) -> None:
    """Register the scheduled-event routes."""
    base = "/guilds/{guild_id}/scheduled-events"
    routes: list[tuple[str, str, Handler]] = [
        ("POST", base, create_event),
        ("GET", base, list_events),
        ("GET", base + "/{event_id}", get_event),
        ("PATCH", base + "/{event_id}", patch_event),
        ("DELETE", base + "/{event_id}", delete_event),
        ("GET", base + "/{event_id}/users", event_users),
    ]
    routes.append(("PUT", "/channels/{channel_id}/voice-status", put_voice_status))
    for method, path, handler in routes:
        app.router.add_route(method, API + path, handler)
