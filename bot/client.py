"""The Bot: holds the store, background work and clock, loads every cog, syncs commands; `build_bot`."""

from __future__ import annotations

import asyncio
import gc
import importlib
import logging
import math
import pkgutil
from typing import Any, TypeAlias

import discord
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from discord import app_commands
from discord.ext import commands
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

import cogs
from bot import claims, command_sync
from bot.api_base import apply_api_base
from bot.background import Background, build_scheduler
from bot.clock import Clock, SystemClock
from bot.metrics import BotMetrics, ShardState, web_routes
from bot.organize import OrganizerCommands
from bot.paging import PageButton, Pagers
from bot.settings import Settings
from bot.sources.arxiv import ArxivClient
from bot.sources.clients import SourceClients
from bot.sources.pace import StoreTurns, timer_for
from bot.tree import PaperclubTree, log_outcome
from bot.web import WebServer
from db.engine import create_engine, create_session_factory
from db.migrate import upgrade_database

log = logging.getLogger("paperclub.bot")


def default_intents() -> discord.Intents:
    """Only what the bot needs: guild structure (channels, roles) and scheduled events. No privileged intents."""
    intents = discord.Intents.none()
    intents.guilds = True
    intents.guild_scheduled_events = True
    return intents


class PaperclubBot(commands.Bot):
    """The bot: settings, store, clock, background work and metrics, given in and shared by every cog."""

    def __init__(
        self,
        *,
        settings: Settings,
        engine: AsyncEngine,
        session_factory: async_sessionmaker[AsyncSession],
        scheduler: AsyncIOScheduler,
        clock: Clock | None = None,
        sync_commands: str = "auto",
        migrate: bool = True,
        start_background: bool = True,
        **options: Any,
    ) -> None:
        options.setdefault("intents", default_intents())
        options.setdefault("allowed_mentions", discord.AllowedMentions.none())
        super().__init__(
            command_prefix=commands.when_mentioned, tree_cls=PaperclubTree, help_command=None, **options
        )
        self.settings = settings
        self.engine = engine
        self.session_factory = session_factory
        self.clock: Clock = clock or SystemClock()
        self.sync_mode = sync_commands  # "auto" (when changed), "force", or "never"
        self.migrate = migrate
        self.start_background = start_background
        self.synced_commands: list[app_commands.AppCommand] = []
        self._heap_frozen = False
        self._sources: SourceClients | None = None
        self.web: WebServer | None = (
            WebServer(settings.web_host, settings.web_port, public_url=settings.public_url)
            if settings.web_port is not None and start_background
            else None
        )
        self.pagers = Pagers()  # each cog registers its paged lists in cog_load (bot/paging.py)
        self.organize = OrganizerCommands(self.tree)  # each cog attaches its /organize subgroup in cog_load
        self._closing: asyncio.Future[None] | None = None
        # Counted per bot (tests run several in one process); served at /metrics next to /healthz.
        self.metrics = BotMetrics()
        self.metrics.watch_store(engine)
        self.metrics.watch_gateway(self.shard_states)
        # Background work on the scheduler: cogs add their jobs in cog_load (bot/background.py).
        self.background = Background(scheduler, session_factory, self.clock, observer=self.metrics)
        if self.web is not None:
            self.web.add_routes(web_routes(self))

    @property
    def arxiv(self) -> ArxivClient:
        """The one arXiv client every feature shares (``sources.arxiv``)."""
        return self.sources.arxiv

    @property
    def sources(self) -> SourceClients:
        """The outside sources' clients PAPER_SOURCES turns on (made on first use, closed with the bot)."""
        if self._sources is None:
            self._sources = SourceClients.from_settings(
                self.settings, timer=timer_for(self.clock), turns=StoreTurns(self.session_factory)
            )
        return self._sources

    async def setup_hook(self) -> None:
        """Migrate, load every cog, start the background work and the web server, sync the commands."""
        if self.migrate:
            await upgrade_database(self.engine)
        self.add_dynamic_items(PageButton)  # the ◀ ▶ of every paged list, looked up in self.pagers
        for info in sorted(pkgutil.iter_modules(cogs.__path__), key=lambda info: info.name):
            if not info.name.startswith("_"):  # every package in cogs/ not starting with _ is a feature
                await importlib.import_module(f"{cogs.__name__}.{info.name}").setup(self)
        if self.start_background:
            await self.background.start()
        if self.web is not None:
            await self.web.start()  # after every cog has added its routes
        if self.sync_mode != "never":
            await self.sync_application_commands(force=self.sync_mode == "force")

    async def sync_application_commands(self, *, force: bool = False) -> bool:
        """Sync when the command set changed (or when forced), once per deployment; True if synced."""
        assert self.application_id is not None
        guild = None if self.settings.dev_guild_id is None else discord.Object(id=self.settings.dev_guild_id)
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        synced = await command_sync.sync_commands(
            self.tree, self.session_factory, self.application_id, guild, force=force
        )
        if synced is None:
            return False
        self.synced_commands = synced
        return True

    def shard_states(self) -> list[ShardState]:
        """This process's gateway connection (one, as shard 0, when unsharded)."""
        ws = self.ws
        connected = ws is not None and ws.open
        return [ShardState(0, connected, self.latency if connected else math.nan)]

    def dispatch(self, event_name: str, /, *args: Any, **kwargs: Any) -> None:
        """Dispatch an event (a completed command is logged first, synchronously, before anyone hears it)."""
        if event_name == "app_command_completion" and args:
            log_outcome(args[0], "ok")
        super().dispatch(event_name, *args, **kwargs)

    async def on_ready(self) -> None:
        """Log the connection and freeze the start-up heap."""
        log.info("ready as %s in %d guild(s)", self.user, len(self.guilds))
        self.freeze_startup_heap()

    def freeze_startup_heap(self) -> None:
        """Once, at the first READY: collect, then ``gc.freeze`` start-up's objects (bench/roundtrip.py)."""
        if self._heap_frozen:
            return
        self._heap_frozen = True
        gc.collect()
        gc.freeze()

    async def close(self) -> None:
        """Close once, however many callers; each waits for the same shutdown (the engine disposed last)."""
        if self._closing is None:
            self._closing = asyncio.ensure_future(self._close_once())
        await asyncio.shield(self._closing)

    async def _close_once(self) -> None:
        try:
            await super().close()
        finally:
            await self.background.stop()
            if self.web is not None:
                await self.web.stop()
            if self._sources is not None:
                await self._sources.close()
            await self.engine.dispose()


class ShardedPaperclubBot(PaperclubBot, commands.AutoShardedBot):
    """The same bot over discord.py's AutoShardedBot, running ``SHARD_IDS`` (default all) of ``SHARD_COUNT``."""

    _identify_concurrency: int | None = None

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """Keep Discord's identify limit across every process of the deployment (a claim per bucket)."""
        if self._identify_concurrency is None:
            try:
                limits = await self.fetch_session_start_limits()
            except (discord.GatewayNotFound, discord.HTTPException) as exc:
                log.warning("GET /gateway/bot not answered (%s); identifying one shard per 5 s", exc)
                self._identify_concurrency = 1
            else:
                self._identify_concurrency = max(1, limits.max_concurrency)
                if limits.remaining < len(self.shard_states()):
                    log.error(
                        "Discord allows %d more session starts today (%d shards to start); past the limit "
                        "Discord resets the token",
                        limits.remaining,
                        len(self.shard_states()),
                    )
        slot = f"gateway.identify.{(shard_id or 0) % self._identify_concurrency}"  # the shard's bucket
        waited = await claims.take_slot(self.session_factory, slot)
        if waited:
            log.info("shard %s waited %.1f s for its identify slot", shard_id, waited.total_seconds())

    def shard_states(self) -> list[ShardState]:
        """Each shard this process runs, connected or not."""
        expected = self.shard_ids if self.shard_ids is not None else range(self.shard_count or 0)
        live = self.shards
        return [
            ShardState(
                shard_id,
                shard_id in live and not live[shard_id].is_closed(),
                live[shard_id].latency if shard_id in live else math.nan,
            )
            for shard_id in expected
        ]

    async def on_shard_ready(self, shard_id: int) -> None:
        """Log each shard as it becomes ready."""
        guilds = sum(1 for guild in self.guilds if guild.shard_id == shard_id)
        log.info("shard %d of %s ready with %d guild(s)", shard_id, self.shard_count, guilds)

    async def on_ready(self) -> None:
        """Log the shards once all are ready, and freeze the start-up heap."""
        ids = self.shard_ids if self.shard_ids is not None else range(self.shard_count or 0)
        log.info(
            "ready as %s in %d guild(s) on shard(s) %s of %s",
            self.user,
            len(self.guilds),
            ",".join(str(i) for i in ids),
            self.shard_count,
        )
        self.freeze_startup_heap()


Interaction: TypeAlias = discord.Interaction[PaperclubBot]
"""An interaction with our bot (``interaction.client`` type-checked as a :class:`PaperclubBot`)."""


def build_bot(
    settings: Settings, *, clock: Clock | None = None, engine: AsyncEngine | None = None, **options: Any
) -> PaperclubBot:
    """A ready-to-start bot (sharded when SHARD_COUNT is set); tests pass their own engine and FakeClock."""
    apply_api_base(settings.discord_api_base)
    engine = engine or create_engine(
        settings.database_url,
        pool_size=settings.database_pool_size,
        max_overflow=settings.database_max_overflow,
    )
    cls: type[PaperclubBot] = PaperclubBot
    if settings.shard_count is not None:
        cls = ShardedPaperclubBot
        options.setdefault("shard_count", None if settings.shard_count == "auto" else settings.shard_count)
        if settings.shard_ids is not None:
            options.setdefault("shard_ids", list(settings.shard_ids))
    return cls(
        settings=settings,
        engine=engine,
        session_factory=create_session_factory(engine),
        scheduler=build_scheduler(),
        clock=clock,
        **options,
    )
