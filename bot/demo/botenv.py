"""`BotEnv`: our bot on a store against the stand-in's guild and a FakeClock, restartable like a deploy."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from bot.api_base import current_api_base, restore_api_base
from bot.client import PaperclubBot, build_bot
from bot.clock import FakeClock
from bot.demo.running import connected
from bot.permissions import REQUIRED_PERMISSIONS
from bot.settings import Settings, load_settings
from standin.arxiv import ArxivStandin
from standin.crossref import CrossrefStandin
from standin.datacite import DataCiteStandin
from standin.huggingface import HuggingFaceStandin
from standin.interactions import InteractionResult
from standin.openreview import OpenReviewStandin
from standin.semantic_scholar import SemanticScholarStandin
from standin.server import ChannelRef, DefaultGuild, MemberRef, StandIn
from standin.state import Message

# Monday 30 November 2026, 9:00 AM in Los Angeles: a few days before the club's usual Thursday.
DEFAULT_START = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)
# The default guild's people and channels, read through the env (``env.organizer``).
WORLD = frozenset({"guild", "organizer", "admin", "members", "announcements", "suggestions", "general"})


class BotEnv:
    """The bot against the Discord stand-in and local paper sources, on a fake clock, for tests and the demo."""

    def __init__(
        self,
        *,
        database_url: str,
        engine_factory: Any = None,
        clock: FakeClock | None = None,
        settings_overrides: Mapping[str, Any] | None = None,
    ) -> None:
        self.database_url = database_url
        self.engine_factory = engine_factory  # () -> AsyncEngine, for a PostgreSQL schema per test
        self.clock = clock or FakeClock(DEFAULT_START)
        self.settings_overrides = dict(settings_overrides or {})
        # Installed with exactly the invite's permissions; waits give up after 15 s (only failing tests wait).
        self.standin = StandIn(bot_permissions=REQUIRED_PERMISSIONS.value, timeout=15.0)
        # The paper sources are local too, knowing no papers until a test adds them.
        self.arxiv = ArxivStandin()
        self.semantic_scholar = SemanticScholarStandin()
        self.huggingface = HuggingFaceStandin()
        self.openreview = OpenReviewStandin()
        self.crossref = CrossrefStandin()
        self.datacite = DataCiteStandin()
        self.standin.wall_clock = self.clock.now  # the stand-in's date rules follow the FakeClock
        self.clock.on_change(self.standin.run_automation)  # and what Discord does on its own as time passes
        self._stack = contextlib.AsyncExitStack()
        self._bot_stack: contextlib.AsyncExitStack | None = None
        self.bot: PaperclubBot
        self.world: DefaultGuild
        self.settings: Settings

    async def start(self) -> BotEnv:
        """Start the stand-ins and the default guild, then the bot; return self."""
        self._stack.callback(restore_api_base, current_api_base())
        await self._stack.enter_async_context(self.standin)
        for source in (
            self.arxiv,
            self.semantic_scholar,
            self.huggingface,
            self.openreview,
            self.crossref,
            self.datacite,
        ):
            await source.start()
            self._stack.push_async_callback(source.stop)
        self.world = await self.standin.create_default_guild()
        await self.start_bot()
        return self

    def _build(self) -> PaperclubBot:
        overrides = {
            "arxiv_api_url": self.arxiv.url,
            "semantic_scholar_api_url": self.semantic_scholar.base,
            "huggingface_api_url": self.huggingface.url,
            "openreview_api_url": self.openreview.url,
            "openreview_v1_api_url": self.openreview.v1_url,
            "crossref_api_url": self.crossref.url,
            "datacite_api_url": self.datacite.url,
            **self.settings_overrides,
        }
        self.settings = load_settings(
            database_url=self.database_url,
            discord_api_base=self.standin.base_url,
            discord_token="sandbox-token",
            dev_guild_id=None,
            **overrides,
        )
        engine: AsyncEngine | None = self.engine_factory() if self.engine_factory else None
        return build_bot(self.settings, clock=self.clock, engine=engine)

    async def start_bot(self) -> PaperclubBot:
        """Build the bot and connect it to the stand-in."""
        self.bot = self._build()
        self._bot_stack = contextlib.AsyncExitStack()
        await self._bot_stack.enter_async_context(connected(self.bot, self.standin))
        return self.bot

    async def stop_bot(self) -> None:
        """Disconnect and close the bot, if it runs."""
        if self._bot_stack is not None:
            await self._bot_stack.aclose()
            self._bot_stack = None

    async def restart_bot(self) -> PaperclubBot:
        """Stop the bot and start a new process-equivalent on the same store and stand-in."""
        await self.stop_bot()
        return await self.start_bot()

    async def close(self) -> None:
        """Stop the bot and stand-ins; ``SpecViolationError`` if a request broke Discord's OpenAPI spec."""
        await self.stop_bot()
        await self._stack.aclose()  # leaves the StandIn, whose exit raises on a recorded violation
        self.standin.check_violations()  # (and again here, should the stand-in have been left already)

    async def __aenter__(self) -> BotEnv:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __getattr__(self, name: str) -> Any:
        """The default guild's people and channels (``WORLD``), else the stand-in's (``messages_in`` …)."""
        if name in WORLD:
            return getattr(self.world, name)
        if name.startswith("_") or name == "standin":  # not yet set in __init__
            raise AttributeError(name)
        return getattr(self.standin, name)

    @property
    def member(self) -> Any:
        """The first ordinary member."""
        return self.world.members[0]

    async def invoke(
        self,
        name: str,
        options: Mapping[str, Any] | None = None,
        *,
        member: MemberRef | None = None,
        channel: ChannelRef | None = None,
    ) -> InteractionResult:
        """Run a slash command (by default as the organizer, in #general)."""
        return await self.standin.invoke(
            name, options, member=member or self.world.organizer, channel=channel or self.world.general
        )

    async def autocomplete(
        self,
        name: str,
        focused: str,
        value: str,
        *,
        options: Mapping[str, Any] | None = None,
        member: MemberRef | None = None,
        channel: ChannelRef | None = None,
    ) -> list[Any]:
        """Ask for an option's autocomplete choices (by default as the organizer, in #general)."""
        return await self.standin.autocomplete(
            name,
            focused,
            value,
            options=options,
            member=member or self.world.organizer,
            channel=channel or self.world.general,
        )

    async def click(
        self,
        message: Message | int,
        custom_id: str,
        *,
        member: MemberRef | None = None,
        values: list[str] | None = None,
    ) -> InteractionResult:
        """Press a component on a message (by default as the organizer)."""
        return await self.standin.click(
            message, custom_id, member=member or self.world.organizer, values=values
        )

    async def submit_modal(
        self, source: Any, values: Mapping[str, Any], *, member: MemberRef | None = None, forged: bool = False
    ) -> Any:
        """Submit a modal the bot opened (values by field custom_id; ``forged``: values no client would send)."""
        return await self.standin.submit_modal(
            source, values, member=member or self.world.organizer, forged=forged
        )

    async def invoke_message_command(
        self, name: str, message: Message | int, *, member: MemberRef | None = None
    ) -> InteractionResult:
        """Right-click ``message`` → Apps → ``name`` as ``member`` (PermissionError if they cannot see it)."""
        return await self.standin.invoke_message_command(name, message, member=member or self.world.organizer)

    async def invoke_user_command(
        self,
        name: str,
        target: MemberRef,
        *,
        member: MemberRef | None = None,
        channel: ChannelRef | None = None,
    ) -> InteractionResult:
        """Right-click ``target`` → Apps → ``name`` as ``member`` in ``channel``."""
        return await self.standin.invoke_user_command(
            name, target, member=member or self.world.organizer, channel=channel or self.world.general
        )

    def scheduled_events(self) -> list[Any]:
        """The default guild's scheduled events."""
        return self.standin.scheduled_events(self.world.guild)
