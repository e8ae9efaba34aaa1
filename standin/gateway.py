"""The gateway websocket: HELLO, IDENTIFY → READY + GUILD_CREATE, heartbeats, RESUME with replay, shards.

Frames go out as JSON text (discord.py only decompresses ``bytes``). Sharding as Discord documents it
(https://discord.com/developers/docs/events/gateway#sharding): a shard gets only its guilds' events, events
without a guild go to shard 0, several sessions may share a shard; an invalid shard is closed with 4010, one
over the per-shard guild limit with 4011. Opt-in ``enforce_identify_rate`` answers IDENTIFYs beyond
``max_concurrency`` per bucket with Invalid Session (opcode 9), as "Max Concurrency" describes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

from standin.state import Json

if TYPE_CHECKING:
    from standin.state import State

log = logging.getLogger(__name__)

DISPATCH, HEARTBEAT, IDENTIFY, PRESENCE, RESUME, RECONNECT, REQUEST_MEMBERS, INVALID_SESSION, HELLO, ACK = (
    0,
    1,
    2,
    3,
    6,
    7,
    8,
    9,
    10,
    11,
)

GUILDS, GUILD_MEMBERS, GUILD_MESSAGES, DIRECT_MESSAGES = 1 << 0, 1 << 1, 1 << 9, 1 << 12
GUILD_SCHEDULED_EVENTS, GUILD_MESSAGE_POLLS, DIRECT_MESSAGE_POLLS = 1 << 16, 1 << 24, 1 << 25
# event -> (intent for guild events, intent for DM events); events not listed are always sent
EVENT_INTENTS: dict[str, tuple[int, int]] = {
    "MESSAGE_CREATE": (GUILD_MESSAGES, DIRECT_MESSAGES),
    "MESSAGE_UPDATE": (GUILD_MESSAGES, DIRECT_MESSAGES),
    "MESSAGE_DELETE": (GUILD_MESSAGES, DIRECT_MESSAGES),
    "GUILD_MEMBER_ADD": (GUILD_MEMBERS, 0),
    "GUILD_MEMBER_UPDATE": (GUILD_MEMBERS, 0),
    "GUILD_MEMBER_REMOVE": (GUILD_MEMBERS, 0),
    "GUILD_SCHEDULED_EVENT_CREATE": (GUILD_SCHEDULED_EVENTS, 0),
    "GUILD_SCHEDULED_EVENT_UPDATE": (GUILD_SCHEDULED_EVENTS, 0),
    "GUILD_SCHEDULED_EVENT_DELETE": (GUILD_SCHEDULED_EVENTS, 0),
    # "GUILD_SCHEDULED_EVENTS (1 << 16): … GUILD_SCHEDULED_EVENT_USER_ADD, GUILD_SCHEDULED_EVENT_USER_REMOVE"
    # (discord-api-docs, Gateway → List of Intents)
    "GUILD_SCHEDULED_EVENT_USER_ADD": (GUILD_SCHEDULED_EVENTS, 0),
    "GUILD_SCHEDULED_EVENT_USER_REMOVE": (GUILD_SCHEDULED_EVENTS, 0),
    "MESSAGE_POLL_VOTE_ADD": (GUILD_MESSAGE_POLLS, DIRECT_MESSAGE_POLLS),
    "MESSAGE_POLL_VOTE_REMOVE": (GUILD_MESSAGE_POLLS, DIRECT_MESSAGE_POLLS),
}
BUFFER_MAX = 2000
MAX_GUILDS_PER_SESSION = 2500  # Discord: "Each shard can only support a maximum of 2500 guilds"
IDENTIFY_WINDOW = 5.0  # seconds; max_concurrency IDENTIFYs per window, one per bucket
INVALID_SHARD, SHARDING_REQUIRED = 4010, 4011  # gateway close event codes


def shard_of(guild_id: int, num_shards: int) -> int:
    """Discord's sharding formula: ``shard_id = (guild_id >> 22) % num_shards``."""
    return (guild_id >> 22) % num_shards


def event_guild_id(event: str, data: Any) -> int | None:
    """The guild an event belongs to (GUILD_CREATE/UPDATE/DELETE carry it as ``id``), or None."""
    if not isinstance(data, dict):
        return None
    raw = (
        data.get("id") if event in ("GUILD_CREATE", "GUILD_UPDATE", "GUILD_DELETE") else data.get("guild_id")
    )
    return int(raw) if raw is not None else None


@dataclass
class Session:
    """One gateway session: its intents, sequence number, websocket and events buffered for RESUME."""

    id: str
    intents: int
    seq: int = 0
    ws: web.WebSocketResponse | None = None
    buffer: list[Json] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    resumes: int = 0
    shard: tuple[int, int] | None = None  # (shard_id, num_shards) from IDENTIFY; None: unsharded

    def owns(self, guild_id: int | None) -> bool:
        """Whether this session gets the events of ``guild_id`` (None: events without a guild)."""
        if self.shard is None:
            return True
        shard_id, num_shards = self.shard
        if guild_id is None:
            return (
                shard_id == 0
            )  # "Gateway events that do not contain a guild_id will only be sent to shard 0"
        return shard_of(guild_id, num_shards) == shard_id

    @property
    def live(self) -> bool:
        """Whether the session's websocket is open."""
        return self.ws is not None and not self.ws.closed

    def wants(self, event: str, data: Any) -> bool:
        """Whether the session's intents let it receive ``event``."""
        bits = EVENT_INTENTS.get(event)
        if bits is None:
            return True
        in_guild = isinstance(data, dict) and data.get("guild_id") is not None
        bit = bits[0] if in_guild else bits[1]
        return bool(self.intents & bit) if bit else in_guild and bool(self.intents & GUILDS)

    async def send(self, frame: Json) -> None:
        """Send a frame, if the websocket is open."""
        ws = self.ws
        if ws is None or ws.closed:
            return
        try:
            await ws.send_str(json.dumps(frame))
        except (ConnectionError, RuntimeError):  # peer went away mid-send; RESUME will replay it
            log.debug("gateway send failed for session %s", self.id)


class Gateway:
    """All gateway sessions of one stand-in. ``dispatch`` sends to every session (or buffers for RESUME)."""

    def __init__(self, state: State, url: Callable[[], str]) -> None:
        self.state = state
        self._url = url
        self.sessions: dict[str, Session] = {}
        self.heartbeat_interval_ms = 41250
        self.changed = asyncio.Condition()
        self.identifies = 0
        self.resumes = 0
        self.frames_received: list[Json] = []
        self._own_site: web.AppRunner | None = None  # set by serve_apart
        # GET /gateway/bot's session_start_limit; IDENTIFYs count against ``session_start_total``.
        self.session_start_total = 1000
        self.max_concurrency = 1
        self.enforce_identify_rate = False
        self.identify_log: list[
            tuple[float, int]
        ] = []  # (monotonic time, shard id) of each accepted IDENTIFY
        self.invalid_sessions = 0  # IDENTIFYs answered with opcode 9 (over the identify rate)
        self.max_guilds_per_session = MAX_GUILDS_PER_SESSION

    @property
    def connected(self) -> bool:
        """Whether any session has an open websocket."""
        return any(s.ws is not None and not s.ws.closed for s in self.sessions.values())

    async def _notify(self) -> None:
        async with self.changed:
            self.changed.notify_all()

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> None:
        """Wait until ``predicate`` holds after a session change."""
        async with self.changed:
            await asyncio.wait_for(self.changed.wait_for(predicate), timeout)

    def connected_shards(self, num_shards: int | None = None) -> set[int]:
        """Shard ids with a live session (of ``num_shards`` when given); unsharded sessions count as 0."""
        return {
            (s.shard or (0, 1))[0]
            for s in self.sessions.values()
            if s.live and (num_shards is None or (s.shard or (0, 1))[1] == num_shards)
        }

    def session_for(self, guild_id: int | None) -> Session | None:
        """A live session that gets ``guild_id``'s events, if any."""
        return next((s for s in self.sessions.values() if s.live and s.owns(guild_id)), None)

    async def dispatch(self, event: str, data: Any) -> None:
        """Send an event to each session that owns its guild and has the intents for it; nothing of a guild
        the bot is not in (but the GUILD_DELETE that tells it it was removed)."""
        guild_id = event_guild_id(event, data)
        guild = self.state.guilds.get(guild_id) if guild_id is not None else None
        if guild is not None and self.state.bot.id not in guild.members and event != "GUILD_DELETE":
            return
        for session in list(self.sessions.values()):
            if not session.owns(guild_id) or not session.wants(event, data):
                continue
            async with session.lock:
                session.seq += 1
                frame = {"op": DISPATCH, "t": event, "s": session.seq, "d": data}
                session.buffer.append(frame)
                del session.buffer[:-BUFFER_MAX]
                await session.send(frame)

    async def drop(self, code: int = 4000, *, shard: int | None = None) -> None:
        """Close every live gateway socket (or only shard ``shard``'s) as a network drop would; clients
        then RESUME."""
        for session in self.sessions.values():
            if shard is not None and (session.shard or (0, 1))[0] != shard:
                continue
            ws, session.ws = session.ws, None
            if ws is not None and not ws.closed:
                await ws.close(code=code, message=b"stand-in dropped the connection")
        await self._notify()

    async def close(self) -> None:
        """Close every session's websocket and any separate site."""
        for session in self.sessions.values():
            if session.ws is not None and not session.ws.closed:
                await session.ws.close(code=1001)
        if self._own_site is not None:
            await self._own_site.cleanup()
            self._own_site = None

    async def serve_apart(self, host: str, path: str) -> int:
        """Serve the gateway at ``path`` on a port of its own (returned): a server whose gateway is only
        found through ``GET /gateway``, not where a client would derive it from the REST address."""
        app = web.Application()
        app.router.add_get(path, self.handle)
        self._own_site = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._own_site.setup()
        await web.TCPSite(self._own_site, host, 0).start()
        return int(self._own_site.addresses[0][1])

    # -- websocket handler ----------------------------------------------------------------------------------
    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        """Serve one gateway websocket connection."""
        ws = web.WebSocketResponse(autoping=True, heartbeat=None)
        await ws.prepare(request)
        await ws.send_str(
            json.dumps(
                {
                    "op": HELLO,
                    "d": {"heartbeat_interval": self.heartbeat_interval_ms, "_trace": ["sandbox-gateway"]},
                }
            )
        )
        session: Session | None = None
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                self.frames_received.append(frame)
                op, data = frame.get("op"), frame.get("d")
                if op == HEARTBEAT:
                    await ws.send_str(json.dumps({"op": ACK}))
                elif op == IDENTIFY:
                    session = await self._identify(ws, data or {})
                elif op == RESUME:
                    session = await self._resume(ws, data or {})
                elif op == REQUEST_MEMBERS and session is not None:
                    await self._members_chunk(session, data or {})
        finally:
            if session is not None and session.ws is ws:
                session.ws = None
            await self._notify()
        return ws

    def _shard(self, data: Json) -> tuple[int, int] | None | str:
        """The IDENTIFY's ``shard``: (id, count), None when absent, or why it is invalid."""
        shard = data.get("shard")
        if shard is None:
            return None
        if (
            not isinstance(shard, list)
            or len(shard) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in shard)
        ):
            return "shard must be [shard_id, num_shards]"
        shard_id, num_shards = shard
        if num_shards < 1 or not 0 <= shard_id < num_shards:
            return f"shard {shard_id} of {num_shards} does not exist"
        return shard_id, num_shards

    def _over_identify_rate(self, shard_id: int) -> bool:
        """Whether another IDENTIFY of this bucket was accepted within the last 5 s (when enforced)."""
        if not self.enforce_identify_rate:
            return False
        bucket = shard_id % self.max_concurrency
        now = time.monotonic()
        return any(
            now - when < IDENTIFY_WINDOW and other % self.max_concurrency == bucket
            for when, other in self.identify_log
        )

    async def _identify(self, ws: web.WebSocketResponse, data: Json) -> Session | None:
        shard = self._shard(data)
        if isinstance(shard, str):
            await ws.close(code=INVALID_SHARD, message=f"Invalid shard: {shard}".encode())
            return None
        if self._over_identify_rate(shard[0] if shard else 0):
            self.invalid_sessions += 1
            await ws.send_str(json.dumps({"op": INVALID_SESSION, "d": False}))
            return None
        session = Session(id=secrets.token_hex(16), intents=int(data.get("intents") or 0), shard=shard)
        state = self.state
        guilds = [g for g in state.guilds.values() if session.owns(g.id) and state.bot.id in g.members]
        if len(guilds) > self.max_guilds_per_session:
            await ws.close(code=SHARDING_REQUIRED, message=b"Sharding required")
            return None
        self.identify_log.append((time.monotonic(), shard[0] if shard else 0))
        self.sessions[session.id] = session
        ready = {
            "v": 10,
            "user": {**state.bot.payload(), "verified": True, "mfa_enabled": False, "email": None},
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self._url(),
            "application": {"id": str(state.application_id), "flags": state.application_flags},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
            "_trace": ["sandbox-gateway"],
        }
        if shard is not None:
            ready["shard"] = list(shard)
        async with session.lock:
            session.ws = ws
        await self._send_dispatch(session, "READY", ready)
        for guild in guilds:
            await self._send_dispatch(session, "GUILD_CREATE", guild.gateway_payload(state.bot_member(guild)))
        self.identifies += 1
        await self._notify()
        return session

    async def _send_dispatch(self, session: Session, event: str, data: Json) -> None:
        async with session.lock:
            session.seq += 1
            frame = {"op": DISPATCH, "t": event, "s": session.seq, "d": data}
            session.buffer.append(frame)
            await session.send(frame)

    async def _resume(self, ws: web.WebSocketResponse, data: Json) -> Session | None:
        session = self.sessions.get(str(data.get("session_id")))
        if session is None:
            await ws.send_str(json.dumps({"op": INVALID_SESSION, "d": False}))
            return None
        last = int(data.get("seq") or 0)
        async with session.lock:
            old, session.ws = session.ws, ws
            if old is not None and old is not ws and not old.closed:
                await old.close(code=4000)
            for frame in session.buffer:
                if frame["s"] > last:
                    await session.send(frame)
            session.seq += 1
            await session.send({"op": DISPATCH, "t": "RESUMED", "s": session.seq, "d": {"_trace": []}})
            session.resumes += 1
        self.resumes += 1
        await self._notify()
        return session

    async def _members_chunk(self, session: Session, data: Json) -> None:
        guild = self.state.guilds.get(int(data.get("guild_id") or 0))
        if guild is None:
            return
        wanted = {int(u) for u in data.get("user_ids") or []}
        query = str(data.get("query") or "").lower()
        members = [
            m
            for m in guild.members.values()
            if (not wanted or m.id in wanted) and m.user.username.lower().startswith(query)
        ]
        limit = int(data.get("limit") or 0)
        if limit:
            members = members[:limit]
        payload: Json = {
            "guild_id": str(guild.id),
            "members": [m.payload() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce"):
            payload["nonce"] = data["nonce"]
        await self._send_dispatch(session, "GUILD_MEMBERS_CHUNK", payload)
