"""Guild scheduled event routes (create, list, get, edit, delete, interested users)."""

from __future__ import annotations

import datetime as dt

from aiohttp import web

from standin import limits
from standin.errors import ApiError, FormErrors, not_found
from standin.host import Host
from standin.messages import parse_time
from standin.rest import API, Handler, body_of, guild_from, no_content, ok, require, snowflake, standin_of
from standin.state import CREATE_EVENTS, MANAGE_EVENTS, Channel, Guild, Json

# Permissions as Discord's "Guild Scheduled Event Permissions Requirements" says
# (https://discord.com/developers/docs/resources/guild-scheduled-event#guild-scheduled-event-permissions-requirements):
# creating needs CREATE_EVENTS; modifying or deleting needs MANAGE_EVENTS, or CREATE_EVENTS for an event the
# bot created. EXTERNAL events are checked at guild level, channel events in their channel (the channel's own
# extra permissions, CONNECT, MANAGE_CHANNELS..., are not modelled).


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
    """Create Permissions: CREATE_EVENTS (MANAGE_EVENTS alone no longer suffices since 2026-02-23)."""
    require(standin, guild, CREATE_EVENTS, _channel_of(standin, guild, body.get("channel_id")))


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
    _check_event_times(body, None, standin.wall_clock())
    _check_event_cap(guild)
    event_id = standin.state.ids.next()
    bot = standin.state.bot
    event: Json = {
        "id": str(event_id),
        "guild_id": str(guild.id),
        "channel_id": body.get("channel_id"),
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
    return ok(list(guild_from(request).scheduled_events.values()))


async def get_event(request: web.Request) -> web.Response:
    """``GET`` one scheduled event."""
    return ok(_event_from(request)[1])


async def patch_event(request: web.Request) -> web.Response:
    """Edit a scheduled event, checked as Discord checks it."""
    standin = standin_of(request)
    guild, event = _event_from(request)
    require_modify(standin, guild, event)
    body = body_of(request)
    limits.check_scheduled_event(body, partial=True)
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
            event[key] = body[key]
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
    for method, path, handler in routes:
        app.router.add_route(method, API + path, handler)
