"""The stand-in as its REST routes see it (:class:`Host`, which ``StandIn`` is), its requests and faults."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from standin.gateway import Gateway
from standin.interactions import InteractionRecord, ModalRef
from standin.openapi import Violation
from standin.ratelimits import Limit, RateLimiter
from standin.state import Json, Message, State


@dataclass
class RequestRecord:
    """One request the stand-in answered. ``path`` has the ``/api/v10`` prefix removed."""

    method: str
    path: str
    query: dict[str, str]
    json: Any
    files: list[str]
    time: float
    status: int = 0


@dataclass
class Fault:
    """A fault a test injected: answer matching requests with ``status`` a number of times."""

    method: str
    pattern: re.Pattern[str]
    status: int
    retry_after: float
    is_global: bool
    remaining: int


class Host(Protocol):
    """What the routes read and change of the stand-in (standin/server.py's ``StandIn``)."""

    state: State
    gateway: Gateway
    requests: list[RequestRecord]
    interactions: dict[int, InteractionRecord]
    by_token: dict[str, InteractionRecord]
    modals: list[ModalRef]
    interaction_deadline: float
    token_lifetime: float
    nonce_window: float
    channel_message_limit: Limit | None
    global_limit: Limit | None
    ratelimiter: RateLimiter
    wall_clock: Callable[[], dt.datetime]

    @property
    def base_url(self) -> str:
        """The REST base URL."""

    @property
    def gateway_url(self) -> str:
        """The gateway websocket URL."""

    @property
    def recommended_shards(self) -> int:
        """The ``shards`` GET /gateway/bot answers."""

    def clock(self) -> float:
        """Monotonic time for interaction deadlines, token lifetimes and nonces."""

    def check_request(self, method: str, path: str, query: Mapping[str, Any], body: Any) -> list[Violation]:
        """Violations of Discord's OpenAPI description by one request."""

    def take_fault(self, method: str, path: str) -> Fault | None:
        """Take one use of the first injected fault matching the request, or None."""

    async def notify(self) -> None:
        """Wake everyone waiting for a change."""

    def poll_results(self, message: Message, *, finalized: bool = False) -> Json:
        """A poll's results as the message shows them."""
