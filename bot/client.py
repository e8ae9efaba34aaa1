"""The Bot: holds the store, the scheduler and the clock it is given, loads every cog, syncs commands."""

from __future__ import annotations

import hashlib
import json
import logging
import pkgutil
from typing import Any, TypeAlias

import discord
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from discord import app_commands
from discord.ext import commands
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

import cogs
from bot.arxiv import ArxivClient
from bot.clock import Clock, SystemClock
from bot.paging import PageButton, Pagers
from bot.settings import Settings
from bot.tree import PaperclubTree, log_outcome
from bot.web import WebServer
from db.migrate import upgrade_database
from db.models import AppState

log = logging.getLogger("paperclub.bot")


def discover_extensions() -> list[str]:
    """Every module or package in `cogs/` not starting with `_` is an extension."""
    return sorted(
        f"{cogs.__name__}.{info.name}"
        for info in pkgutil.iter_modules(cogs.__path__)
        if not info.name.startswith("_")
    )


def default_intents() -> discord.Intents:
    """Only what the bot needs: guild structure (channels, roles) and scheduled events. No privileged intents."""
    intents = discord.Intents.none()
    intents.guilds = True
    intents.guild_scheduled_events = True
    return intents


class PaperclubBot(commands.Bot):
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
        self.scheduler = scheduler
        self.clock: Clock = clock or SystemClock()
        self.sync_mode = sync_commands  # "auto" (when changed), "force", or "never"
        self.migrate = migrate
        self.start_background = start_background
        self.synced_commands: list[app_commands.AppCommand] = []
        self._arxiv: ArxivClient | None = None
        self.web: WebServer | None = (
            WebServer(settings.web_host, settings.web_port, public_url=settings.public_url)
            if settings.web_port is not None and start_background
            else None
        )
        self.pagers = Pagers()  # each cog registers its paged lists in cog_load (bot/paging.py)

    @property
    def arxiv(self) -> ArxivClient:
        """The one arXiv client every feature shares (created on first use, closed with the bot)."""
        if self._arxiv is None:
            self._arxiv = ArxivClient(self.settings.arxiv_api_url)
        return self._arxiv

    async def setup_hook(self) -> None:
        if self.migrate:
            await upgrade_database(self.engine)
        self.add_dynamic_items(PageButton)  # the ◀ ▶ of every paged list, looked up in self.pagers
        for extension in discover_extensions():
            await self.load_extension(extension)
        if self.start_background and not self.scheduler.running:
            self.scheduler.start()
        if self.web is not None:
            await self.web.start()  # after every cog has added its routes
        if self.sync_mode != "never":
            await self.sync_application_commands(force=self.sync_mode == "force")

    def _sync_target(self) -> discord.Object | None:
        if self.settings.dev_guild_id is None:
            return None
        guild = discord.Object(id=self.settings.dev_guild_id)
        self.tree.copy_global_to(guild=guild)
        return guild

    def command_payload_hash(self, guild: discord.Object | None) -> str:
        payload = [command.to_dict(self.tree) for command in self.tree.get_commands(guild=guild)]
        blob = json.dumps(payload, sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()

    async def sync_application_commands(self, *, force: bool = False) -> bool:
        """Sync when the command set changed since the last sync (or when forced). True if synced."""
        guild = self._sync_target()
        digest = self.command_payload_hash(guild)
        assert self.application_id is not None
        key = f"commands:{self.application_id}:{guild.id if guild else 'global'}"
        async with self.session_factory() as session:
            row = await session.get(AppState, key)
            if not force and row is not None and row.value == digest:
                log.info("application commands unchanged; not syncing")
                return False
        self.synced_commands = await self.tree.sync(guild=guild)
        async with self.session_factory() as session, session.begin():
            row = await session.get(AppState, key)
            if row is None:
                session.add(AppState(key=key, value=digest))
            else:
                row.value = digest
        log.info(
            "synced %d application commands to %s",
            len(self.synced_commands),
            guild.id if guild else "all guilds",
        )
        return True

    def dispatch(self, event_name: str, /, *args: Any, **kwargs: Any) -> None:
        if event_name == "app_command_completion" and args:
            # Logged here, synchronously, so the line exists by the time anyone waits on the event.
            log_outcome(args[0], "ok")
        super().dispatch(event_name, *args, **kwargs)

    async def on_ready(self) -> None:
        log.info("ready as %s in %d guild(s)", self.user, len(self.guilds))

    async def close(self) -> None:
        try:
            await super().close()
        finally:
            if self.scheduler.running:
                self.scheduler.shutdown(wait=False)
            if self.web is not None:
                await self.web.stop()
            if self._arxiv is not None:
                await self._arxiv.close()
            await self.engine.dispose()


Interaction: TypeAlias = discord.Interaction[PaperclubBot]
"""An interaction with our bot: ``interaction.client`` is a :class:`PaperclubBot` (its store, clock,
scheduler and settings are type-checked). Every cog annotates its interactions with this."""
