"""What the bot counts (Prometheus text at ``/metrics``) and whether this process can serve (``/healthz``)."""

from __future__ import annotations

import asyncio
import logging
import math
import re
from collections.abc import Callable, Iterable, Iterator
from datetime import timedelta
from functools import partial
from typing import Any, NamedTuple, Protocol

from aiohttp import web
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import event, text
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.settings import Settings
from db.engine import without_password

log = logging.getLogger("paperclub.metrics")

LATE_AFTER = timedelta(minutes=1)  # the reminders' own "(delayed)" threshold
STORE_CHECK_TIMEOUT = 3.0  # seconds /healthz waits for the store to answer
LATENCY_BUCKETS = (0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 15.0)
LATENESS_BUCKETS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 900.0, 3600.0)
JOB_BUCKETS = (0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0)
_ID_PART = re.compile(r"^\d+$")


class ShardState(NamedTuple):
    """One gateway connection of this process (``shard_id`` 0 when unsharded)."""

    shard_id: int
    connected: bool
    latency: float  # seconds between a heartbeat and its ACK; nan before the first


class _Gateway(Collector):
    """The shards' latency and connection, read from discord.py when scraped."""

    def __init__(self, shards: Callable[[], Iterable[ShardState]]) -> None:
        self._shards = shards

    def collect(self) -> Iterator[Metric]:
        """The shards' gauges, read now."""
        latency = GaugeMetricFamily(
            "paperclub_gateway_latency_seconds", "Heartbeat to ACK time per gateway shard", labels=["shard"]
        )
        connected = GaugeMetricFamily(
            "paperclub_gateway_connected", "1 while the shard's gateway connection is open", labels=["shard"]
        )
        for shard in self._shards():
            if not math.isnan(shard.latency) and not math.isinf(shard.latency):
                latency.add_metric([str(shard.shard_id)], shard.latency)
            connected.add_metric([str(shard.shard_id)], 1.0 if shard.connected else 0.0)
        yield latency
        yield connected


class BotMetrics:
    """The counters of one bot; also the reminder runner's and the background core's observer."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        counter = partial(Counter, registry=self.registry)
        histogram = partial(Histogram, registry=self.registry)
        self.interactions = counter(
            "paperclub_interactions", "Interactions answered, by command and outcome", ["command", "outcome"]
        )
        self.interaction_latency = histogram(
            "paperclub_interaction_latency_seconds",
            "Time from an interaction's arrival to its outcome",
            ["command"],
            buckets=LATENCY_BUCKETS,
        )
        self.reminders = counter(
            "paperclub_reminders",
            "Reminders handled by this process: due (claimed to send), sent, late, retried, failed, missed",
            ["outcome"],
        )
        self.reminder_lateness = histogram(
            "paperclub_reminder_lateness_seconds",
            "How long after its time each reminder was sent",
            buckets=LATENESS_BUCKETS,
        )
        self.job_runs = counter(
            "paperclub_job_runs", "Periodic job runs, by job and outcome", ["job", "outcome"]
        )
        self.job_lag = Gauge(
            "paperclub_job_lag_seconds",
            "How late the last run of a periodic job started behind its due time",
            ["job"],
            registry=self.registry,
        )
        self.job_duration = histogram(
            "paperclub_job_duration_seconds", "How long periodic job runs took", ["job"], buckets=JOB_BUCKETS
        )
        self.store_errors = counter(
            "paperclub_store_errors", "Errors the database driver raised, by type", ["error"]
        )
        for outcome in ("due", "sent", "late", "retried", "failed", "missed"):
            self.reminders.labels(outcome)  # present (at 0) from the start
        # Each (command, outcome)'s series, looked up once: labels() costs a lock per call (bench/roundtrip.py).
        self._interaction_series: dict[tuple[str, str], tuple[Any, Any]] = {}

    def watch_gateway(self, shards: Callable[[], Iterable[ShardState]]) -> None:
        """Report these shards' connection and latency when scraped."""
        self.registry.register(_Gateway(shards))

    def watch_store(self, engine: AsyncEngine) -> None:
        """Count every error the driver raises on this engine (SQLAlchemy's ``handle_error`` event)."""
        event.listen(engine.sync_engine, "handle_error", self._store_error)

    def _store_error(self, context: ExceptionContext) -> None:
        self.store_errors.labels(type(context.original_exception).__name__).inc()

    def interaction(self, command: str, outcome: str, seconds: float) -> None:
        """Count one interaction and its latency."""
        # A bounded label, keying the dict too: a custom_id (``suggestion:vote:123``) without its ids.
        label = ":".join(p for p in command.split(":") if not _ID_PART.match(p))[:60] or "unknown"
        series = self._interaction_series.get((label, outcome))
        if series is None:
            series = (self.interactions.labels(label, outcome), self.interaction_latency.labels(label))
            self._interaction_series[(label, outcome)] = series
        series[0].inc()
        series[1].observe(seconds)

    def reminder(self, outcome: str, *, count: int = 1, lateness: timedelta | None = None) -> None:
        """The reminder runner's one call per outcome (``sent`` with its lateness)."""
        if count <= 0:
            return
        self.reminders.labels(outcome).inc(count)
        if lateness is not None:
            seconds = max(lateness.total_seconds(), 0.0)
            self.reminder_lateness.observe(seconds)
            if lateness > LATE_AFTER:
                self.reminders.labels("late").inc(count)

    def job_started(self, name: str, lag: timedelta) -> None:
        """The job's lag behind its slot."""
        self.job_lag.labels(name).set(lag.total_seconds())

    def job_finished(self, name: str, outcome: str, duration: timedelta) -> None:
        """Count a run by outcome, and its duration."""
        self.job_runs.labels(name, outcome).inc()
        self.job_duration.labels(name).observe(duration.total_seconds())

    def render(self) -> bytes:
        """The Prometheus text of every series."""
        return generate_latest(self.registry)


class Served(Protocol):
    """What ``/healthz`` and ``/metrics`` read of the bot (bot/client.py's PaperclubBot)."""

    settings: Settings
    engine: AsyncEngine
    metrics: BotMetrics

    def shard_states(self) -> list[ShardState]:
        """Each gateway connection of this process."""

    def is_ready(self) -> bool:
        """Whether the gateway has delivered every guild."""


async def health_problems(bot: Served) -> list[str]:
    """What stops this process serving (shards not connected or not ready, a silent store); empty when ready."""
    problems = [f"shard {s.shard_id}: gateway not connected" for s in bot.shard_states() if not s.connected]
    if not problems and not bot.is_ready():
        problems.append("gateway: connected, still receiving the guilds")
    try:
        async with asyncio.timeout(STORE_CHECK_TIMEOUT), bot.engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
    except TimeoutError:
        problems.append(f"store: no answer within {STORE_CHECK_TIMEOUT:.0f} s")
    except Exception as exc:  # noqa: BLE001  any failure to answer is the finding itself, reported
        reason = " ".join(str(getattr(exc, "orig", None) or exc).split())[:200]
        problems.append(f"store: {type(exc).__name__}: {without_password(reason, bot.settings.database_url)}")
    return problems


def web_routes(bot: Served) -> web.RouteTableDef:
    """``/healthz`` and ``/metrics``."""
    routes = web.RouteTableDef()

    @routes.get("/healthz")
    async def healthz(request: web.Request) -> web.Response:
        problems = await health_problems(bot)
        if not problems:
            return web.Response(text="ready\n")
        return web.Response(status=503, text="not ready\n" + "".join(f"- {p}\n" for p in problems))

    @routes.get("/metrics")
    async def metrics(request: web.Request) -> web.Response:
        response = web.Response(body=bot.metrics.render())
        response.headers["Content-Type"] = CONTENT_TYPE_LATEST
        return response

    return routes


def parse_metrics(text_format: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """``/metrics`` text as {(name, sorted labels): value} (tests and benches read it back)."""
    from prometheus_client.parser import text_string_to_metric_families  # only tests and benches parse it

    values: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for family in text_string_to_metric_families(text_format):
        for sample in family.samples:
            values[(sample.name, tuple(sorted(sample.labels.items())))] = float(sample.value)
    return values


def metric(values: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: Any) -> float:
    """One value of :func:`parse_metrics`' result (0 when absent)."""
    return values.get((name, tuple(sorted((k, str(v)) for k, v in labels.items()))), 0.0)
