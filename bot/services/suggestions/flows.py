"""The suggestions' actions, each one call from the cog: plain values in, a result out (Discord through ``ctx``)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from bot.background import make_due
from bot.errors import BadInput, Conflict
from bot.papers import PaperRef
from bot.services.config.guild import get_config
from bot.services.papers.enrich import ENRICH_JOB
from bot.services.papers.store import find_paper
from bot.services.sessions.info import SessionInfo
from bot.services.suggestions import actions, polls, queries
from bot.services.suggestions.actions import Decision, Suggested, Typed, in_transaction, submit_suggestion
from bot.services.suggestions.context import PollMessage, PostFailed, Suggestions, TryLater
from bot.services.suggestions.duplicates import find_duplicate
from bot.services.suggestions.queries import SortOrder, StatusFilter, SuggestionCard, SuggestionSummary
from bot.services.suggestions.votes import Press, ToggleResult
from bot.sources.arxiv import ArxivMetadata
from bot.sources.http import SourceUnavailable
from bot.text import Page, clamp_page, page_count

log = logging.getLogger("paperclub.suggestions")

PAGE_SIZE = 8


async def suggest(
    ctx: Suggestions,
    typed: Typed,
    *,
    guild_id: int,
    user_id: int,
    now: datetime,
    checked: Callable[[], Awaitable[object]],
) -> Suggested:
    """/suggest: the values checked, then (``checked``) arXiv asked, the suggestion (or vote) stored and posted."""
    async with ctx.readers() as session:
        config = await get_config(session, guild_id)
        draft = actions.validate_draft(typed, config.suggestion_topics)
        ask_arxiv = draft.ref.arxiv_id is not None and not await _known(
            ctx, session, guild_id, draft.ref, now
        )
    await checked()
    channel_id = await ctx.discord.check_channel(config.suggestions_channel_id)  # else nothing is stored
    metadata, arxiv_down = await _arxiv(ctx, draft.ref) if ask_arxiv else (None, False)

    async def write(session: AsyncSession) -> Suggested:
        submitted = await submit_suggestion(
            session,
            guild_id=guild_id,
            user_id=user_id,
            draft=draft,
            metadata=metadata,
            now=now,
            per_day=ctx.per_day,
            index=ctx.titles,
        )
        if submitted.unenriched:  # the sources asked about it at once, by whichever process claims the job
            await make_due(session, ENRICH_JOB, now)
        return submitted

    result = await in_transaction(ctx.store, write)
    if result.duplicate is not None:
        if result.duplicate.vote_added and result.duplicate.standing.suggestion_id is not None:
            ctx.posts.request(result.duplicate.standing.suggestion_id)
        return replace(result, zone=config.timezone)
    assert result.card is not None
    card, not_posted = result.card, None
    try:
        place = await ctx.discord.post(channel_id, card)
    except PostFailed as failed:
        not_posted = str(failed)
    else:
        async with ctx.store() as session, session.begin():
            await actions.set_post_location(session, guild_id, card.id, place.channel_id, place.message_id)
        card = replace(card, channel_id=place.channel_id, message_id=place.message_id)
    if result.unenriched:
        ctx.background.wake(ENRICH_JOB, now)  # here, once the post is placed (its re-render needs it)
    return replace(
        result,
        card=card,
        channel_id=channel_id,
        not_posted=not_posted,
        arxiv_down=arxiv_down,
        zone=config.timezone,
    )


async def _known(
    ctx: Suggestions, session: AsyncSession, guild_id: int, ref: PaperRef, now: datetime
) -> bool:
    """Whether arXiv need not be asked: the paper is stored with arXiv's answer, or already on the table."""
    paper = await find_paper(session, guild_id, ref)
    if paper is not None and paper.metadata_fetched_at is not None:
        return True
    return await find_duplicate(session, guild_id, ref, None, now, ctx.titles) is not None


async def _arxiv(ctx: Suggestions, ref: PaperRef) -> tuple[ArxivMetadata | None, bool]:
    """(arXiv's metadata, arXiv unavailable); BadInput when arXiv knows no such paper."""
    assert ref.arxiv_id is not None
    try:
        metadata = await ctx.arxiv.fetch(ref.arxiv_id)
    except SourceUnavailable as exc:
        log.warning("arXiv lookup of %s failed; saving without metadata: %s", ref.arxiv_id, exc)
        return None, True
    if metadata is None:
        raise BadInput(
            f"arXiv has no paper with the id {ref.arxiv_id}. Check the id, or paste the paper's link instead."
        )
    return metadata, False


async def topics(
    ctx: Suggestions, guild_id: int, topic: str | None = None
) -> tuple[tuple[str, ...], str | None]:
    """The form's topics, and ``topic`` as the guild spells it (BadInput naming the topics otherwise)."""
    async with ctx.readers() as session:
        known = (await get_config(session, guild_id)).suggestion_topics
    return known, actions.match_topic(topic, known)


async def vote(ctx: Suggestions, press: Press) -> ToggleResult:
    """Upvote pressed: the vote toggled (written with the other presses of the moment), the post re-rendered."""
    result = await ctx.votes.toggle(press)
    ctx.posts.request(press.suggestion_id)
    return result


async def volunteer(ctx: Suggestions, guild_id: int, suggestion_id: int, user_id: int, now: datetime) -> bool:
    """I'd present this pressed: the offer toggled (True: made), the post re-rendered."""
    async with ctx.store() as session, session.begin():
        added = await actions.toggle_volunteer(session, guild_id, suggestion_id, user_id, now)
    ctx.posts.request(suggestion_id)
    return added


async def review(
    ctx: Suggestions,
    *,
    guild_id: int,
    suggestion_id: int,
    decision: Decision,
    note: str | None,
    reviewer_id: int,
    now: datetime,
) -> tuple[SuggestionCard, bool | None]:
    """/organize suggestions review: stored, the post re-rendered, its thread told; whether the DM went."""
    async with ctx.store() as session, session.begin():
        card = await actions.review_suggestion(
            session,
            guild_id=guild_id,
            suggestion_id=suggestion_id,
            decision=decision,
            note=note,
            reviewer_id=reviewer_id,
            now=now,
        )
    await ctx.discord.edit(card)
    told = await ctx.discord.reviewed(card, reviewer_id) if card.submitter_id is not None else None
    return card, told


async def withdraw(
    ctx: Suggestions, *, guild_id: int, suggestion_id: int, user_id: int, is_organizer: bool, now: datetime
) -> SuggestionCard:
    """/suggest withdraw: stored, the post re-rendered; the submitter told when an organizer did it."""
    async with ctx.store() as session, session.begin():
        card = await actions.withdraw_suggestion(
            session,
            guild_id=guild_id,
            suggestion_id=suggestion_id,
            user_id=user_id,
            is_organizer=is_organizer,
            now=now,
        )
    await ctx.discord.edit(card)
    if card.submitter_id is not None and card.submitter_id != user_id:
        await ctx.discord.withdrawn(card)
    return card


async def card(ctx: Suggestions, guild_id: int, suggestion_id: int) -> SuggestionCard:
    """/suggest show: the guild's suggestion (NotFound otherwise)."""
    async with ctx.readers() as session:
        return await queries.get_card(session, guild_id, suggestion_id)


async def list_page(
    ctx: Suggestions,
    guild_id: int,
    *,
    status: StatusFilter,
    topic_index: int | None,
    sort: SortOrder,
    page: int,
) -> tuple[Page[SuggestionSummary], str | None]:
    """A page of the guild's suggestions (the page clamped), and the topic by its place among the guild's."""
    async with ctx.readers() as session:
        known = (await get_config(session, guild_id)).suggestion_topics
        topic = known[topic_index] if topic_index is not None and topic_index < len(known) else None

        async def fetch(page: int) -> tuple[list[SuggestionSummary], int]:
            return await queries.list_suggestions(
                session,
                guild_id,
                status=status,
                topic=topic,
                sort=sort,
                offset=page * PAGE_SIZE,
                limit=PAGE_SIZE,
            )

        items, total = await fetch(page)
        pages = page_count(total, PAGE_SIZE)
        if not 0 <= page < pages:  # a page past the end (suggestions went meanwhile): the last one
            page = clamp_page(page, pages)
            items, total = await fetch(page)
    return Page(items, total, page, pages), topic


async def start_poll(
    ctx: Suggestions,
    poll: PollMessage,
    *,
    guild_id: int,
    count: int,
    created_by: int,
    ends_at: datetime,
    now: datetime,
) -> list[SuggestionSummary]:
    """/organize suggestions poll: the top suggestions posted as a poll and recorded (else taken down)."""
    async with ctx.readers() as session:
        options = await polls.choose_poll_options(session, guild_id, count)
    place = await poll.post(options)
    try:
        async with ctx.store() as session, session.begin():
            await polls.record_poll(
                session,
                guild_id=guild_id,
                channel_id=place.channel_id,
                message_id=place.message_id,
                created_by=created_by,
                ends_at=ends_at,
                suggestion_ids=[o.id for o in options],
                now=now,
            )
            await make_due(session, polls.POLLS_JOB, ends_at + polls.POLL_SETTLE)
    except Exception:
        await poll.take_down()
        raise
    ctx.background.wake(polls.POLLS_JOB, ends_at + polls.POLL_SETTLE)
    return options


async def finish_polls(ctx: Suggestions, now: datetime) -> list[polls.PollResult]:
    """The suggestions.polls job: each ended poll read, recorded and announced; woken again for the next."""
    async with ctx.readers() as session:
        due = await polls.due_polls(session, now - polls.POLL_SETTLE)
    results = []
    for running in due:
        try:
            counts = await ctx.discord.poll_counts(running)
        except TryLater as exc:
            log.warning("could not read poll %s (will retry): %s", running.id, exc)
            continue
        async with ctx.store() as session, session.begin():
            result = await polls.finish_poll(session, running.id, counts, now)
        if result is None:
            continue
        results.append(result)
        if counts is None:
            log.info("poll %s ended but its message is gone; recorded without counts", result.poll_id)
        else:
            await ctx.discord.poll_ended(result)
    async with ctx.readers() as session:  # due again when the next poll ends (one unread: in a minute)
        at = await polls.next_poll_check(session, now)
    if at is not None:
        async with ctx.store() as session, session.begin():
            await make_due(session, polls.POLLS_JOB, at)
        ctx.background.wake(polls.POLLS_JOB, at)
    return results


async def papers_changed(ctx: Suggestions, guild_id: int, paper_ids: Sequence[int]) -> None:
    """``paper_enriched``: the posts showing these papers re-rendered (and their titles looked at afresh)."""
    ctx.titles.forget(guild_id)
    async with ctx.readers() as session:
        suggestion_ids = await queries.suggestions_of_papers(session, paper_ids)
    for suggestion_id in suggestion_ids:
        ctx.posts.request(suggestion_id)


async def accepted(ctx: Suggestions, guild_id: int, suggestion_id: int) -> SuggestionCard:
    """The accepted suggestion a session is to be made from (Conflict when not accepted, or made already)."""
    async with ctx.readers() as session:
        found = await queries.get_card(session, guild_id, suggestion_id)
    if found.status != "accepted":
        raise Conflict(f"This suggestion is {found.status}; accept it first to make a session from it.")
    if found.session_id is not None:
        raise Conflict("A session was already made from this suggestion.")
    return found


def link_step(
    guild_id: int, suggestion_id: int, now: datetime
) -> Callable[[AsyncSession, SessionInfo], Awaitable[None]]:
    """The sessions' create flow's last step: the suggestion linked to the new session (Conflict rolls back)."""

    async def link(session: AsyncSession, info: SessionInfo) -> None:
        await actions.link_session(session, guild_id, suggestion_id, info.id, now=now)

    return link
