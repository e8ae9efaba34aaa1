"""REST v10: the aiohttp app, its middleware (request log, faults, rate limits, errors), the core routes."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from standin import limits, openapi, ratelimits
from standin.errors import ApiError, missing_access, missing_permissions, not_found
from standin.host import Fault, Host, RequestRecord
from standin.messages import Upload
from standin.state import VIEW_CHANNEL, Channel, Guild, Json, Member, can_view, member_permissions

API = "/api/v10"
STANDIN: web.AppKey[Host] = web.AppKey("standin")
JSON_KEY: web.RequestKey[Any] = web.RequestKey("json", object)
UPLOADS_KEY: web.RequestKey[list[Upload]] = web.RequestKey("uploads", list)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def standin_of(request: web.Request) -> Host:
    """The stand-in serving this request."""
    return request.app[STANDIN]


def body_of(request: web.Request) -> Json:
    """The request's JSON body, or {} when it is not an object."""
    body = request.get(JSON_KEY)
    return body if isinstance(body, dict) else {}


def uploads_of(request: web.Request) -> list[Upload]:
    """The files uploaded with the request."""
    return list(request.get(UPLOADS_KEY) or [])


def ok(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """JSON with ``Content-Type: application/json`` exactly (discord.py compares the header verbatim)."""
    return web.Response(
        body=json.dumps(data).encode(),
        status=status,
        headers={**(headers or {}), "Content-Type": "application/json"},
    )


def no_content() -> web.Response:
    """An empty 204 answer."""
    return web.Response(status=204)


def snowflake(request: web.Request, key: str) -> int:
    """The snowflake in the path at ``key``, or Invalid Form Body when it is not one."""
    raw = request.match_info[key]
    if not raw.isdigit():
        raise ApiError(
            400,
            50035,
            "Invalid Form Body",
            {
                key: {
                    "_errors": [{"code": "NUMBER_TYPE_COERCE", "message": f'Value "{raw}" is not snowflake.'}]
                }
            },
        )
    return int(raw)


def guild_from(request: web.Request) -> Guild:
    """The guild named in the path, or Unknown Guild; Missing Access once the bot is not in it."""
    state = standin_of(request).state
    guild = state.guilds.get(snowflake(request, "guild_id"))
    if guild is None:
        raise not_found("Guild", 10004)
    if state.bot.id not in guild.members:
        raise missing_access()
    return guild


def channel_from(request: web.Request) -> Channel:
    """The channel named in the path, or Unknown Channel; Missing Access in a guild the bot is not in."""
    state = standin_of(request).state
    channel = state.channels.get(snowflake(request, "channel_id"))
    if channel is None:
        raise not_found("Channel", 10003)
    guild = state.guild_of(channel)
    if guild is not None and state.bot.id not in guild.members:
        raise missing_access()
    return channel


def bot_member(standin: Host, guild: Guild) -> Member:
    """The bot's member in ``guild`` (Missing Access once it was removed from the guild)."""
    member = guild.members.get(standin.state.bot.id)
    if member is None:
        raise missing_access()
    return member


def require(
    standin: Host, guild: Guild, perms: int, channel: Channel | None = None, *, any_of: bool = False
) -> None:
    """Raise Missing Permissions unless the bot has ``perms`` (or, with ``any_of``, one of them); Missing
    Access (50001) when View Channel is among them and the bot cannot view the channel."""
    have = member_permissions(guild, bot_member(standin, guild), channel)
    if channel is not None and perms & VIEW_CHANNEL and not have & VIEW_CHANNEL:
        raise missing_access()
    if (any_of and not have & perms) or (not any_of and have & perms != perms):
        raise missing_permissions()


async def _read_body(request: web.Request) -> tuple[Any, list[Upload]]:
    if request.method in ("GET", "HEAD") or not request.body_exists:
        return None, []
    if request.content_type.startswith("multipart/"):
        form = await request.post()
        uploads: list[Upload] = []
        body: Any = None
        for name, value in form.items():
            if name == "payload_json":
                body = json.loads(str(value))
            elif isinstance(value, web.FileField):
                match = re.fullmatch(r"files\[(\d+)\]", name)
                index = int(match.group(1)) if match else len(uploads)
                uploads.append(Upload(index, value.filename, value.content_type, value.file.read()))
        return body, uploads
    raw = await request.read()
    return (json.loads(raw) if raw else None), []


def _spec_path(request: web.Request) -> str:
    """The path as sent (still percent-encoded) without ``/api`` or ``/api/vN``, as the spec's paths read."""
    return re.sub(r"^/api(?:/v\d+)?(?=/|$)", "", request.rel_url.raw_path) or "/"


def _route_template(request: web.Request) -> str:
    resource = request.match_info.route.resource
    return resource.canonical if resource is not None else request.path


def _ratelimit_headers(request: web.Request, remaining: int, reset_after: float) -> dict[str, str]:
    """The generous headers of an unlimited route (50 per second, never reached)."""
    bucket = ratelimits.bucket_hash(request.method, _route_template(request))
    return {
        "X-RateLimit-Limit": "50",
        "X-RateLimit-Remaining": str(remaining),
        "X-RateLimit-Reset-After": f"{reset_after:.3f}",
        "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
        "X-RateLimit-Bucket": bucket,
    }


def _fault_response(request: web.Request, fault: Fault) -> web.Response:
    if fault.status != 429:
        return ok({"message": f"{fault.status}: Internal Server Error", "code": 0}, status=fault.status)
    headers = _ratelimit_headers(request, 0, fault.retry_after)
    headers.update(
        {
            "Retry-After": f"{fault.retry_after:g}",
            "Via": "1.1 google",
            "X-RateLimit-Scope": "global" if fault.is_global else "user",
        }
    )
    if fault.is_global:
        headers["X-RateLimit-Global"] = "true"
    body = {
        "message": "You are being rate limited.",
        "retry_after": fault.retry_after,
        "global": fault.is_global,
    }
    return ok(body, status=429, headers=headers)


def _take_ratelimit(request: web.Request) -> ratelimits.Verdict | None:
    """Count the request against the global limit and its route's bucket, when those are emulated (opt-in,
    see ratelimits); a refusal by the global limit is not counted against the route."""
    standin = standin_of(request)
    template = _route_template(request).removeprefix(API)
    if standin.global_limit is not None:
        identity = request.headers.get("Authorization") or f"ip:{request.remote}"
        refused = standin.ratelimiter.take_global(template, identity, standin.global_limit)
        if refused is not None:
            return refused
    limit = ratelimits.route_limit(
        request.method, template, channel_message_limit=standin.channel_message_limit
    )
    if limit is None:
        return None
    major = ratelimits.major_parameter(request.match_info)
    return standin.ratelimiter.take(request.method, template, major, limit)


@web.middleware
async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Record each API request, then apply faults, rate limits and the spec check around its handler."""
    standin = standin_of(request)
    if request.path.rstrip("/") == "/gateway" or request.path.startswith("/attachments/"):
        return await handler(request)
    path = request.path[len(API) :] if request.path.startswith(API) else request.path
    record = RequestRecord(request.method, path, dict(request.query), None, [], time.time())
    standin.requests.append(record)
    try:
        record.json, uploads = await _read_body(request)
    except (ValueError, UnicodeDecodeError):
        record.status = 400
        return ok({"message": "400: Bad Request", "code": 50109}, status=400)
    record.files = [u.filename for u in uploads]
    request[JSON_KEY], request[UPLOADS_KEY] = record.json, uploads
    violations = standin.check_request(request.method, _spec_path(request), request.query, record.json)
    if violations:
        record.status = 400 if any(v.operation_id != openapi.NO_OPERATION for v in violations) else 404
        await standin.notify()
        return ok(openapi.error_body(violations), status=record.status)
    fault = standin.take_fault(request.method, path)
    verdict = None if fault is not None else _take_ratelimit(request)
    if fault is not None:
        response: web.StreamResponse = _fault_response(request, fault)
    elif verdict is not None and not verdict.allowed:
        body, headers = verdict.too_many()
        response = ok(body, status=429, headers=headers)
    else:
        try:
            response = await handler(request)
            response.headers.update(
                verdict.headers() if verdict is not None else _ratelimit_headers(request, 49, 1.0)
            )
        except ApiError as exc:
            response = ok(
                exc.body, status=exc.status, headers=verdict.headers() if verdict is not None else None
            )
        except web.HTTPNotFound:
            response = ok({"message": "404: Not Found", "code": 0}, status=404)
        except web.HTTPMethodNotAllowed:
            response = ok({"message": "405: Method Not Allowed", "code": 0}, status=405)
    record.status = response.status
    await standin.notify()
    return response


# -- users, gateway, application ------------------------------------------------------------------------------
async def get_me(request: web.Request) -> web.Response:
    """``GET /users/@me``: the bot user."""
    bot = standin_of(request).state.bot
    return ok({**bot.payload(), "verified": True, "mfa_enabled": False, "email": None, "locale": "en-US"})


async def get_user(request: web.Request) -> web.Response:
    """``GET /users/{user_id}``."""
    user = standin_of(request).state.users.get(snowflake(request, "user_id"))
    if user is None:
        raise not_found("User", 10013)
    return ok(user.payload())


async def get_gateway(request: web.Request) -> web.Response:
    """Get Gateway (``url``, no token needed) and Get Gateway Bot (also ``shards`` and
    ``session_start_limit``: https://discord.com/developers/docs/events/gateway#get-gateway-bot)."""
    standin = standin_of(request)
    data: Json = {"url": standin.gateway_url}
    if request.path.endswith("/bot"):
        gateway = standin.gateway
        data.update(
            {
                "shards": standin.recommended_shards,
                "session_start_limit": {
                    "total": gateway.session_start_total,
                    "remaining": max(0, gateway.session_start_total - len(gateway.identify_log)),
                    "reset_after": 86_400_000,
                    "max_concurrency": gateway.max_concurrency,
                },
            }
        )
    return ok(data)


async def get_application(request: web.Request) -> web.Response:
    """``GET /applications/@me``: the bot's application."""
    state = standin_of(request).state
    return ok(
        {
            "id": str(state.application_id),
            "name": state.bot.username,
            "icon": None,
            "description": "",
            "summary": "",
            "type": None,
            "bot_public": False,
            "bot_require_code_grant": False,
            "verify_key": "0" * 64,
            "flags": state.application_flags,
            "owner": state.owner.payload(),
            "team": None,
            "bot": state.bot.payload(),
            "interactions_endpoint_url": None,
            "redirect_uris": [],
            "tags": [],
            "approximate_guild_count": len(state.guilds),
        }
    )


# -- application commands -------------------------------------------------------------------------------------
def _scope(request: web.Request) -> int | None:
    standin = standin_of(request)
    if snowflake(request, "app_id") != standin.state.application_id:
        raise ApiError(403, 50001, "Missing Access")
    return guild_from(request).id if "guild_id" in request.match_info else None


def _stored_command(standin: Host, scope: int | None, data: Json, previous: Json | None) -> Json:
    cmd = dict(data)
    cmd.update(
        {
            "id": previous["id"] if previous else str(standin.state.ids.next()),
            "application_id": str(standin.state.application_id),
            "version": str(standin.state.ids.next()),
            "type": int(data.get("type", 1)),
            "description": data.get("description") or "",
            "default_member_permissions": data.get("default_member_permissions"),
            "nsfw": bool(data.get("nsfw", False)),
            "options": list(data.get("options") or []),
            "contexts": data.get("contexts"),
            "integration_types": data.get("integration_types") or [0],
        }
    )
    if scope is not None:
        cmd["guild_id"] = str(scope)
    return cmd


async def list_commands(request: web.Request) -> web.Response:
    """List the application commands of a scope (global or one guild)."""
    return ok(standin_of(request).state.commands.get(_scope(request), []))


async def put_commands(request: web.Request) -> web.Response:
    """Replace all application commands of a scope."""
    standin, scope = standin_of(request), _scope(request)
    body = request.get(JSON_KEY)
    if not isinstance(body, list):
        raise ApiError(
            400,
            50035,
            "Invalid Form Body",
            {"_errors": [{"code": "BASE_TYPE_ARRAY", "message": "Must be an array."}]},
        )
    limits.check_commands(body)
    old = {(c["type"], c["name"]): c for c in standin.state.commands.get(scope, [])}
    stored = [_stored_command(standin, scope, c, old.get((int(c.get("type", 1)), c["name"]))) for c in body]
    standin.state.commands[scope] = stored
    return ok(stored)


async def post_command(request: web.Request) -> web.Response:
    """Create or overwrite one application command."""
    standin, scope = standin_of(request), _scope(request)
    body = body_of(request)
    limits.check_commands([body])
    current = standin.state.commands.setdefault(scope, [])
    key = (int(body.get("type", 1)), body.get("name"))
    previous = next((c for c in current if (c["type"], c["name"]) == key), None)
    cmd = _stored_command(standin, scope, body, previous)
    current[:] = [c for c in current if c is not previous] + [cmd]
    return ok(cmd, status=200 if previous else 201)


def _command_from(request: web.Request) -> tuple[list[Json], Json]:
    commands = standin_of(request).state.commands.setdefault(_scope(request), [])
    for cmd in commands:
        if cmd["id"] == request.match_info["command_id"]:
            return commands, cmd
    raise not_found("application command", 10063)


async def get_command(request: web.Request) -> web.Response:
    """``GET`` one application command."""
    return ok(_command_from(request)[1])


async def patch_command(request: web.Request) -> web.Response:
    """Edit one application command."""
    commands, cmd = _command_from(request)
    merged = {**cmd, **body_of(request)}
    limits.check_commands([merged])
    cmd.update(merged)
    return ok(cmd)


async def delete_command(request: web.Request) -> web.Response:
    """Delete one application command."""
    commands, cmd = _command_from(request)
    commands.remove(cmd)
    return no_content()


# -- guilds ---------------------------------------------------------------------------------------------------
async def get_guild(request: web.Request) -> web.Response:
    """``GET /guilds/{guild_id}``, with approximate counts when asked."""
    guild = guild_from(request)
    data = guild.payload()
    if request.query.get("with_counts") in ("true", "1", "True"):
        data.update({"approximate_member_count": len(guild.members), "approximate_presence_count": 0})
    return ok(data)


async def guild_channels(request: web.Request) -> web.Response:
    """A guild's channels, without threads, and without those the bot cannot view: since 16 November 2026
    "GET /guilds/{guild.id}/channels will omit those channels from the response entirely" (change log,
    "Channel Obfuscation for Users and Bots"; standin.state.CHANNEL_OBFUSCATED)."""
    standin, guild = standin_of(request), guild_from(request)
    me = bot_member(standin, guild)
    return ok([c.payload() for c in guild.channels.values() if not c.is_thread and can_view(guild, me, c)])


async def guild_roles(request: web.Request) -> web.Response:
    """A guild's roles."""
    return ok([r.payload() for r in guild_from(request).roles.values()])


async def guild_members(request: web.Request) -> web.Response:
    """A page of a guild's members, by id after ``after``."""
    guild = guild_from(request)
    limit = int(request.query.get("limit", "1"))
    after = int(request.query.get("after", "0"))
    members = sorted((m for m in guild.members.values() if m.id > after), key=lambda m: m.id)
    return ok([m.payload() for m in members[:limit]])


async def guild_member(request: web.Request) -> web.Response:
    """One guild member, or Unknown Member."""
    member = guild_from(request).members.get(snowflake(request, "user_id"))
    if member is None:
        raise not_found("Member", 10007)
    return ok(member.payload())


async def active_threads(request: web.Request) -> web.Response:
    """A guild's active (unarchived) threads."""
    threads = [c for c in guild_from(request).channels.values() if c.is_thread and not c.archived]
    return ok({"threads": [t.payload() for t in threads], "members": []})


def add_routes(app: web.Application) -> None:
    """Register the user, application, command and guild routes."""
    commands = "/applications/{app_id}/commands"
    guild_commands = "/applications/{app_id}/guilds/{guild_id}/commands"
    routes: list[tuple[str, str, Handler]] = [
        ("GET", "/users/@me", get_me),
        ("GET", "/users/{user_id}", get_user),
        ("GET", "/gateway", get_gateway),
        ("GET", "/gateway/bot", get_gateway),
        ("GET", "/oauth2/applications/@me", get_application),
        ("GET", "/applications/@me", get_application),
        ("GET", "/guilds/{guild_id}", get_guild),
        ("GET", "/guilds/{guild_id}/channels", guild_channels),
        ("GET", "/guilds/{guild_id}/roles", guild_roles),
        ("GET", "/guilds/{guild_id}/members", guild_members),
        ("GET", "/guilds/{guild_id}/members/{user_id}", guild_member),
        ("GET", "/guilds/{guild_id}/threads/active", active_threads),
    ]
    for base in (commands, guild_commands):
        routes += [
            ("GET", base, list_commands),
            ("PUT", base, put_commands),
            ("POST", base, post_command),
            ("GET", base + "/{command_id}", get_command),
            ("PATCH", base + "/{command_id}", patch_command),
            ("DELETE", base + "/{command_id}", delete_command),
        ]
    for method, path, handler in routes:
        app.router.add_route(method, API + path, handler)
