"""The gateway websocket: HELLO, IDENTIFY → READY + GUILD_CREATE, heartbeats, RESUME with replay.

Frames go out as plain JSON text; discord.py accepts text frames even when it asked for
``compress=zlib-stream`` (``DiscordWebSocket.received_message`` only decompresses ``bytes``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
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
    "MESSAGE_POLL_VOTE_ADD": (GUILD_MESSAGE_POLLS, DIRECT_MESSAGE_POLLS),
    "MESSAGE_POLL_VOTE_REMOVE": (GUILD_MESSAGE_POLLS, DIRECT_MESSAGE_POLLS),
}
BUFFER_MAX = 2000


@dataclass
class Session:
    id: str
    intents: int
    seq: int = 0
    ws: web.WebSocketResponse | None = None
    buffer: list[Json] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    resumes: int = 0

    def wants(self, event: str, data: Any) -> bool:
        bits = EVENT_INTENTS.get(event)
        if bits is None:
            return True
        in_guild = isinstance(data, dict) and data.get("guild_id") is not None
        bit = bits[0] if in_guild else bits[1]
        return bool(self.intents & bit) if bit else in_guild and bool(self.intents & GUILDS)

    async def send(self, frame: Json) -> None:
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

    @property
    def connected(self) -> bool:
        return any(s.ws is not None and not s.ws.closed for s in self.sessions.values())

    async def _notify(self) -> None:
        async with self.changed:
            self.changed.notify_all()

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> None:
        async with self.changed:
            await asyncio.wait_for(self.changed.wait_for(predicate), timeout)

    async def dispatch(self, event: str, data: Any) -> None:
        for session in list(self.sessions.values()):
            if not session.wants(event, data):
                continue
            async with session.lock:
                session.seq += 1
                frame = {"op": DISPATCH, "t": event, "s": session.seq, "d": data}
                session.buffer.append(frame)
                del session.buffer[:-BUFFER_MAX]
                await session.send(frame)

    async def drop(self, code: int = 4000) -> None:
        """Close every live gateway socket as a network drop would; clients then RESUME."""
        for session in self.sessions.values():
            ws, session.ws = session.ws, None
            if ws is not None and not ws.closed:
                await ws.close(code=code, message=b"stand-in dropped the connection")
        await self._notify()

    async def close(self) -> None:
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

    async def _identify(self, ws: web.WebSocketResponse, data: Json) -> Session:
        session = Session(id=secrets.token_hex(16), intents=int(data.get("intents") or 0))
        self.sessions[session.id] = session
        state = self.state
        ready = {
            "v": 10,
            "user": {**state.bot.payload(), "verified": True, "mfa_enabled": False, "email": None},
            "guilds": [{"id": str(g), "unavailable": True} for g in state.guilds],
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
        async with session.lock:
            session.ws = ws
        await self._send_dispatch(session, "READY", ready)
        for guild in list(state.guilds.values()):
            await self._send_dispatch(session, "GUILD_CREATE", guild.gateway_payload())
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
