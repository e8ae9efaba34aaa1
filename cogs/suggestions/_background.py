"""Background work of the suggestions cog (it starts and stops it): recording poll results when a poll
ends, filling in arXiv metadata that could not be fetched at suggestion time, and re-rendering the posts
of papers the sources' answers changed (``paper_enriched``, from the papers cog's job).

Both are ``once`` jobs of bot/background.py: each slot runs in one process of the deployment, whichever
claims it (they use REST only, no gateway). Poll ends are found by a check every :data:`CHECK_EVERY`, not
by vote events (which would need the polls intent): a run reads each poll ended a settle minute ago
(Discord finalises its counts) from its message's ``poll.answers``, so polls that ended while the bot was
down are recorded by the first run after start-up.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

import discord

from bot.background import Job, every
from bot.client import PaperclubBot
from bot.replies import NO_MENTIONS
from bot.services.papers.metadata import fetch_and_store
from bot.services.suggestions.duplicates import TitleIndex
from bot.services.suggestions.metadata import papers_missing_metadata, suggestions_of_paper
from bot.services.suggestions.polls import PollResult, RunningPoll, due_polls, finish_poll
from cogs.suggestions._render import poll_result_message

log = logging.getLogger("paperclub.suggestions")

POLL_SETTLE = timedelta(minutes=1)  # Discord finalises counts shortly after the end
CHECK_EVERY = timedelta(minutes=1)
ENRICH_EVERY = timedelta(minutes=10)
ENRICH_BATCH = 5
POLLS_JOB = "suggestions.polls"
METADATA_JOB = "suggestions.metadata"


class SuggestionBackground:
    """The poll-result and metadata jobs; ``refresh_post`` re-renders a suggestion's post."""

    def __init__(
        self,
        bot: PaperclubBot,
        titles: TitleIndex,
        refresh_post: Callable[[int], Awaitable[None]],
        request_refresh: Callable[[int], None],
    ) -> None:
        self.bot = bot
        self.arxiv = bot.arxiv  # shared, owned and closed by the bot
        self.titles = titles
        self.refresh_post = refresh_post
        self.request_refresh = request_refresh

    async def start(self) -> None:
        """Add the two jobs (from cog_load)."""
        await self.bot.background.add(Job(POLLS_JOB, every(CHECK_EVERY), self.finish_due_polls))
        await self.bot.background.add(Job(METADATA_JOB, every(ENRICH_EVERY), self.enrich_pending))

    async def stop(self) -> None:
        """Remove them (from cog_unload)."""
        await self.bot.background.remove(POLLS_JOB)
        await self.bot.background.remove(METADATA_JOB)

    # ------------------------------------------------------------------ polls

    async def _poll_counts(self, poll: RunningPoll) -> dict[int, int] | None:
        """Votes per answer id; None when the poll message is gone. HTTPException: try again later."""
        if poll.message_id is None:
            return None
        channel = self.bot.get_partial_messageable(poll.channel_id)
        try:
            message = await channel.fetch_message(poll.message_id)
        except (discord.NotFound, discord.Forbidden):
            return None
        if message.poll is None:
            return None
        return {answer.id: answer.vote_count for answer in message.poll.answers}

    async def finish_due_polls(self, now: datetime) -> list[PollResult]:
        """Record and announce every poll that ended a settle minute ago."""
        async with self.bot.session_factory() as session:
            due = await due_polls(session, now - POLL_SETTLE)
        results = []
        for poll in due:
            try:
                counts = await self._poll_counts(poll)
            except discord.HTTPException as exc:
                log.warning("could not read poll %s (will retry): %s", poll.id, exc)
                continue
            async with self.bot.session_factory() as session, session.begin():
                result = await finish_poll(session, poll.id, counts, now)
            if result is None:
                continue
            results.append(result)
            await self._announce_result(result, gone=counts is None)
        return results

    async def _announce_result(self, result: PollResult, *, gone: bool) -> None:
        if gone:
            log.info("poll %s ended but its message is gone; recorded without counts", result.poll_id)
            return
        channel = self.bot.get_partial_messageable(result.channel_id)
        reference = (
            discord.MessageReference(
                message_id=result.message_id, channel_id=result.channel_id, fail_if_not_exists=False
            )
            if result.message_id
            else None
        )
        try:
            await channel.send(
                poll_result_message(result),
                reference=reference or discord.utils.MISSING,
                allowed_mentions=NO_MENTIONS,
            )
        except discord.HTTPException as exc:
            log.warning("could not post the result of poll %s: %s", result.poll_id, exc)

    # ------------------------------------------------------------------ late arXiv metadata

    async def enrich_pending(self, now: datetime) -> int:
        """Fetch metadata arXiv could not give at suggestion time; returns how many papers got it."""
        if self.arxiv.blocked_for > 0:
            return 0
        async with self.bot.session_factory() as session:
            pending = await papers_missing_metadata(session, limit=ENRICH_BATCH)
        stored = await fetch_and_store(self.arxiv, self.bot.session_factory, pending, now)
        for paper in stored:
            if paper.title_changed:
                self.titles.forget(paper.guild_id)
            async with self.bot.session_factory() as session:
                suggestion_ids = await suggestions_of_paper(session, paper.paper_id)
            for suggestion_id in suggestion_ids:
                await self.refresh_post(suggestion_id)
        return len(stored)

    # ------------------------------------------------------------------ the outside sources' answers

    async def refresh_papers(self, guild_id: int, paper_ids: tuple[int, ...]) -> None:
        """Have the suggestion posts showing these papers re-rendered (``paper_enriched``)."""
        self.titles.forget(guild_id)
        for paper_id in paper_ids:
            async with self.bot.session_factory() as session:
                suggestion_ids = await suggestions_of_paper(session, paper_id)
            for suggestion_id in suggestion_ids:
                self.request_refresh(suggestion_id)
