"""``StandIn``: a local Discord (REST v10 and gateway) for tests and demos, and the API that drives it."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from standin import rest, rest_events, rest_interactions, rest_messages
from standin.acting import Acting
from standin.gateway import Gateway
from standin.host import Fault, RequestRecord
from standin.interactions import InteractionRecord, ModalRef
from standin.openapi import ApiSpec, SpecViolationError, Violation, load_spec
from standin.ratelimits import Limit, RateLimiter
from standin.rest import API, STANDIN, Handler
from standin.state import (
    DEFAULT_BOT_PERMISSIONS,
    Channel,
    Guild,
    Json,
    Message,
    State,
    User,
)
from standin.world import ChannelRef, DefaultGuild, MemberRef

log = logging.getLogger(__name__)

GUILDS_PER_RECOMMENDED_SHARD = 1000  # Discord does not publish its formula; ~1,000 guilds a shard is usual


@dataclass
class Hold:
    """REST requests kept waiting, received but unanswered, until :meth:`release` (see ``StandIn.hold``)."""

    method: str
    pattern: re.Pattern[str]
    released: asyncio.Event = field(default_factory=asyncio.Event)
    waiting: int = 0  # requests held now
    held: int = 0  # requests held in all

    def matches(self, method: str, path: str) -> bool:
        """Whether this hold keeps a request with ``method`` and ``path`` waiting."""
        return not self.released.is_set() and self.method in ("*", method) and bool(self.pattern.search(path))

    def release(self) -> None:
        """Let the held requests through."""
        self.released.set()


class StandIn(Acting):
    """A local Discord (REST v10 and gateway) for tests and demos, with the API that drives it."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        bot_name: str = "PaperClub",
        bot_permissions: int = DEFAULT_BOT_PERMISSIONS,
        timeout: float = 5.0,
        gateway_path: str | None = None,
        validate_requests: bool = True,
    ) -> None:
        self.host, self.port = host, port
        # None: the gateway is at /gateway/ on the REST port (where a client derives it). A path: only there,
        # on a port of its own, so a client finds it only through GET /gateway.
        self.gateway_path = gateway_path
        self.gateway_port: int | None = None
        self.state = State(bot_name)
        self.bot_permissions = bot_permissions
        self.timeout = timeout
        self.gateway = Gateway(self.state, lambda: self.gateway_url)
        self.requests: list[RequestRecord] = []
        # Every REST request is checked against Discord's OpenAPI description (standin/openapi.py); a
        # violation is answered 400 (50035) and kept here until check_violations() raises it at exit.
        # validate_requests=False only for a benchmark's baseline.
        self.validate_requests = validate_requests
        self.spec: ApiSpec | None = None
        self.violations: list[Violation] = []
        self.faults: list[Fault] = []
        self.interactions: dict[int, InteractionRecord] = {}
        self.by_token: dict[str, InteractionRecord] = {}
        self.modals: list[ModalRef] = []
        self.interaction_deadline = 3.0
        self.token_lifetime = 15 * 60.0
        self.nonce_window = 5 * 60.0
        # Discord hides commands whose default_member_permissions the member lacks; when True, invoke()
        # raises PermissionError for such members instead of delivering the interaction.
        self.enforce_command_permissions = False
        self.clock_offset = 0.0
        # Opt-in emulation of Discord's per-channel limit on POST /channels/{id}/messages, e.g. (5, 5.0) for
        # 5 per 5 s: rate-limit headers that drive discord.py's pre-emptive waiting, and a 429 (logged in
        # ``requests`` with status 429) for a request over the limit. None (the default): never limited.
        self.channel_message_limit: Limit | None = None
        # Opt-in emulation of Discord's global limit (standin.ratelimits.GLOBAL_LIMIT: 50 requests per second
        # per bot token, interaction endpoints exempt): a 429 with "global": true past it. None: never limited.
        self.global_limit: Limit | None = None
        self.ratelimiter = RateLimiter(self.clock)
        # Wall-clock time for date rules ("event in the past"); BotEnv points it at the bot's FakeClock.
        self.wall_clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC)
        self.default_guild: DefaultGuild | None = None
        # GET /gateway/bot's recommended shard count; None: one per GUILDS_PER_RECOMMENDED_SHARD guilds.
        # The gateway's session_start_limit (max_concurrency, enforce_identify_rate) is on self.gateway.
        self.shards: int | None = None
        self.holds: list[Hold] = []
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None

    # -- lifecycle ------------------------------------------------------------------------------------------
    async def start(self) -> StandIn:
        """Start serving REST and the gateway, and return self."""
        self.spec = load_spec()  # once per process: the patched spec, its path matcher, cached validators
        app = web.Application(
            middlewares=[self._hold_middleware, rest.middleware], client_max_size=64 * 1024 * 1024
        )
        app[STANDIN] = self
        rest.add_routes(app)
        rest_messages.add_routes(app)
        rest_interactions.add_routes(app)
        rest_events.add_routes(app)
        if self.gateway_path is None:
            app.router.add_get("/gateway", self.gateway.handle)
            app.router.add_get("/gateway/", self.gateway.handle)
        else:
            self.gateway_port = await self.gateway.serve_apart(self.host, self.gateway_path)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        self.port = int(self._runner.addresses[0][1])
        return self

    async def stop(self) -> None:
        """Close the gateway and stop serving."""
        await self.gateway.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> StandIn:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
        self.check_violations()

    @property
    def base_url(self) -> str:
        """The REST base URL."""
        return f"http://{self.host}:{self.port}"

    @property
    def gateway_url(self) -> str:
        """The gateway websocket URL."""
        if self.gateway_path is not None:
            return f"ws://{self.host}:{self.gateway_port}{self.gateway_path}"
        return f"ws://{self.host}:{self.port}/gateway/"

    @property
    def recommended_shards(self) -> int:
        """The ``shards`` GET /gateway/bot answers."""
        if self.shards is not None:
            return self.shards
        return max(1, math.ceil(len(self.state.guilds) / GUILDS_PER_RECOMMENDED_SHARD))

    @property
    def bot_user(self) -> User:
        """The bot's user."""
        return self.state.bot

    def clock(self) -> float:
        """Monotonic time used for interaction deadlines, token lifetimes and nonces (see ``advance_clock``)."""
        return time.monotonic() + self.clock_offset

    def advance_clock(self, seconds: float) -> None:
        """Move the stand-in's wall clock forward by ``seconds``."""
        self.clock_offset += seconds

    # -- Discord's OpenAPI description -----------------------------------------------------------------------
    def check_request(self, method: str, path: str, query: Mapping[str, Any], body: Any) -> list[Violation]:
        """Violations of one request (``path`` without ``/api/vN``); each is logged and kept."""
        if not self.validate_requests or self.spec is None:
            return []
        _, violations = self.spec.check(method, path, query, body, has_body=body is not None)
        for violation in violations:
            log.error("request breaks Discord's API description: %s", violation)
        self.violations.extend(violations)
        return violations

    def take_violations(self) -> list[Violation]:
        """The violations so far, forgotten: for a test that sends a bad request on purpose."""
        taken, self.violations = self.violations, []
        return taken

    def check_violations(self) -> None:
        """Raise ``SpecViolationError`` (an AssertionError naming each operation and pointer) if any request
        broke the description. Called on exit (``async with StandIn()``), so a violation the client
        swallowed still fails the test, bench or demo that caused it."""
        if self.violations:
            raise SpecViolationError(self.take_violations())

    # -- holding requests -----------------------------------------------------------------------------------
    def hold(self, method: str, path_regex: str) -> Hold:
        """Keep the REST requests matching ``method`` (or ``"*"``) and ``path_regex`` (searched in the path
        without ``/api/v10``) waiting until ``release()``: a slow Discord, or requests in flight when their
        client is killed. A held request is answered after the release (and logged then) even if its client
        has gone, as Discord acts on a request it received."""
        held = Hold(method.upper(), re.compile(path_regex))
        self.holds.append(held)
        return held

    @web.middleware
    async def _hold_middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        path = request.path[len(API) :] if request.path.startswith(API) else request.path
        for held in self.holds:
            if held.matches(request.method, path):
                held.waiting += 1
                held.held += 1
                await self.notify()
                try:
                    await held.released.wait()
                finally:
                    held.waiting -= 1
        return await handler(request)

    # -- faults, request log, waiting -----------------------------------------------------------------------
    def fail_next(
        self,
        method: str,
        path_regex: str,
        status: int = 429,
        retry_after: float = 0.05,
        *,
        is_global: bool = False,
        times: int = 1,
    ) -> None:
        """Answer the next ``times`` requests matching ``method`` (or ``"*"``) and ``path_regex`` (searched in
        the path without ``/api/v10``) with a 429 (Discord body and headers) or another status such as 500."""
        self.faults.append(
            Fault(method.upper(), re.compile(path_regex), status, retry_after, is_global, times)
        )

    def take_fault(self, method: str, path: str) -> Fault | None:
        """Take one use of the first injected fault matching the request, or None."""
        for fault in self.faults:
            if fault.method in ("*", method) and fault.pattern.search(path):
                fault.remaining -= 1
                if fault.remaining <= 0:
                    self.faults.remove(fault)
                return fault
        return None

    def requests_to(self, method: str, path_regex: str) -> list[RequestRecord]:
        """The recorded requests with ``method`` whose path matches ``path_regex``."""
        pattern = re.compile(path_regex)
        return [r for r in self.requests if r.method == method.upper() and pattern.search(r.path)]

    async def notify(self) -> None:
        """Wake everyone waiting for a change."""
        async with self._changed:
            self._changed.notify_all()

    async def wait_until(self, predicate: Callable[[], bool], timeout: float | None = None) -> None:
        """Wait until ``predicate`` holds after a change."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(predicate), timeout or self.timeout)

    async def wait_for_message(
        self,
        channel: ChannelRef,
        predicate: Callable[[Message], bool] | None = None,
        *,
        after: int = 0,
        timeout: float | None = None,
    ) -> Message:
        """The first (non-ephemeral) message in ``channel`` with id > ``after`` matching ``predicate``."""
        target = self.channel(channel)
        found: list[Message] = []

        def check() -> bool:
            found[:] = [
                m
                for m in self.state.messages_in(target.id)
                if m.id > after and (not predicate or predicate(m))
            ]
            return bool(found)

        await self.wait_until(check, timeout)
        return found[0]

    # -- lookups --------------------------------------------------------------------------------------------
    def messages_in(self, channel: ChannelRef, *, include_ephemeral: bool = False) -> list[Message]:
        """The messages in a channel."""
        return self.state.messages_in(self.channel(channel).id, include_ephemeral=include_ephemeral)

    def dm_messages(self, member: MemberRef) -> list[Message]:
        """The messages in a member's DM channel with the bot."""
        user = member if isinstance(member, User) else self.member(member).user
        channel_id = self.state.dm_channels.get(user.id)
        return self.state.messages_in(channel_id) if channel_id else []

    async def run_automation(self, *_: object) -> None:
        """What Discord does on its own as time passes (link events started and ended), up to ``wall_clock``;
        a test's clock calls it on every move."""
        for guild in list(self.state.guilds.values()):
            await rest_events.automate(self, guild)

    def scheduled_events(self, guild: Guild | None = None) -> list[Json]:
        """A guild's scheduled events."""
        return list(self._guild(guild).scheduled_events.values())

    @property
    def threads(self) -> list[Channel]:
        """Every thread."""
        return [c for c in self.state.channels.values() if c.is_thread]

    def commands(self, guild: Guild | None = None) -> list[Json]:
        """The application commands of a guild, or the global ones."""
        return list(self.state.commands.get(guild.id if guild else None, []))

    # -- gateway --------------------------------------------------------------------------------------------
    async def wait_connected(self, timeout: float | None = None) -> None:
        """Until a client has identified and received its GUILD_CREATEs."""
        await self.gateway.wait_for(
            lambda: self.gateway.identifies > 0 and self.gateway.connected, timeout or self.timeout
        )

    async def wait_shards(self, num_shards: int, shard_ids: Any = None, timeout: float | None = None) -> None:
        """Until a live session identified for each of ``shard_ids`` (default: all) of ``num_shards``."""
        wanted = set(range(num_shards) if shard_ids is None else shard_ids)
        await self.gateway.wait_for(
            lambda: wanted <= self.gateway.connected_shards(num_shards), timeout or self.timeout
        )

    async def drop_gateway(self, *, wait_resumed: bool = True, timeout: float | None = None) -> None:
        """Close the gateway socket(s) like a network drop. discord.py reconnects and RESUMEs; with
        ``wait_resumed`` this returns once it has (missed events are replayed before RESUMED)."""
        before = self.gateway.resumes
        await self.gateway.drop()
        if wait_resumed:
            await self.gateway.wait_for(lambda: self.gateway.resumes > before, timeout or self.timeout)
