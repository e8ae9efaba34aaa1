"""What the suggestions' flows act on (:class:`Suggestions`), and the Discord side the cog implements."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncEngine

from bot.services.papers.flows import Host as PapersHost
from bot.services.suggestions.duplicates import TitleIndex
from bot.services.suggestions.polls import PollResult, RunningPoll
from bot.services.suggestions.queries import Place, SuggestionCard, SuggestionSummary, card_by_id
from bot.services.suggestions.votes import VoteWriter
from bot.settings import Settings
from bot.sources.arxiv import ArxivClient
from db.engine import read_only_session_factory


class PostFailed(Exception):
    """Discord refused the post; the message is what it said."""


class TryLater(Exception):
    """Discord could not answer now (a poll's counts); the job asks again on its next run."""


class SuggestionsOnDiscord(Protocol):
    """A suggestion's Discord side: its post, the submitter's DMs, the polls' messages."""

    async def check_channel(self, channel_id: int | None) -> int:
        """The suggestions channel's id; NotConfigured unless the bot can post there."""

    async def post(self, channel_id: int, card: SuggestionCard) -> Place:
        """Post the card (a message, or a forum post tagged with its topic); PostFailed when refused."""

    async def edit(self, card: SuggestionCard) -> None:
        """Re-render the card's post, best effort (logged)."""

    async def reviewed(self, card: SuggestionCard, reviewer_id: int) -> bool:
        """A line in the post's thread and the submitter's DM; whether the DM went."""

    async def withdrawn(self, card: SuggestionCard) -> None:
        """The submitter's DM: an organizer withdrew it."""

    async def poll_counts(self, poll: RunningPoll) -> dict[int, int] | None:
        """Votes per answer (None: the poll's message is gone); TryLater when Discord fails."""

    async def poll_ended(self, result: PollResult) -> None:
        """The result, under the poll."""


class PollMessage(Protocol):
    """The organizer's /organize suggestions poll, posted as the command's answer."""

    async def post(self, options: Sequence[SuggestionSummary]) -> Place:
        """Post the poll of these suggestions."""

    async def take_down(self) -> None:
        """Delete it (it could not be recorded), best effort."""


class Host(PapersHost, Protocol):
    """What the flows use of the bot (bot/client.py's PaperclubBot) beyond the papers'."""

    engine: AsyncEngine
    settings: Settings

    @property
    def arxiv(self) -> ArxivClient:
        """arXiv's client (a suggested paper's title)."""


class Suggestions:
    """One per process (the cog's): the flows' store, sources, Discord side and in-memory helpers."""

    def __init__(self, host: Host, discord: SuggestionsOnDiscord) -> None:
        self.store = host.session_factory
        self.readers = read_only_session_factory(host.engine)  # reads take no SQLite write lock
        self.arxiv = host.arxiv
        self.background = host.background
        self.per_day = host.settings.suggestions_per_day
        self.discord = discord
        self.titles = TitleIndex()  # the duplicate check's titles
        self.votes = VoteWriter(self.store)  # presses written many at a time
        self.posts = PostRefresher(self.show_post)

    async def show_post(self, suggestion_id: int) -> None:
        """Re-render a suggestion's post from the store."""
        async with self.readers() as session:
            card = await card_by_id(session, suggestion_id)
        if card is not None:
            await self.discord.edit(card)


class PostRefresher:
    """Re-renders posts after votes, coalescing bursts: requests during a re-render make one more at its end."""

    def __init__(self, refresh: Callable[[int], Awaitable[Any]]) -> None:
        self._refresh = refresh
        self._running: dict[int, asyncio.Task[None]] = {}
        self._dirty: set[int] = set()
        self._requesters: set[asyncio.Task[Any]] = set()

    def request(self, suggestion_id: int) -> None:
        """Re-render the post soon."""
        if suggestion_id in self._running:
            self._dirty.add(suggestion_id)
            return
        self._running[suggestion_id] = asyncio.create_task(
            self._run(suggestion_id), name=f"suggestion-refresh-{suggestion_id}"
        )

    async def _run(self, suggestion_id: int) -> None:
        try:
            while True:
                self._dirty.discard(suggestion_id)
                await self._refresh(suggestion_id)
                if suggestion_id not in self._dirty:
                    return
        finally:
            self._running.pop(suggestion_id, None)

    def follow(self, task: asyncio.Task[Any] | None) -> None:
        """Count ``task`` (a listener about to request re-renders) as pending until it ends."""
        if task is not None:
            self._requesters.add(task)
            task.add_done_callback(self._requesters.discard)

    async def wait_idle(self) -> None:
        """Until every pending re-render, and every followed requester, has finished (tests, shutdown)."""
        await asyncio.sleep(0)  # a just-dispatched listener starts, and is followed
        while self._running or self._requesters - {asyncio.current_task()}:
            pending = [*self._running.values(), *(self._requesters - {asyncio.current_task()})]
            await asyncio.gather(*pending, return_exceptions=True)

    async def cancel_all(self) -> None:
        """Cancel every re-render and wait for each to end (before the bot disposes of the engine)."""
        running = list(self._running.values())
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
