"""Many members at once: exact counts, no lost vote, no "database is locked" (SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio

from sqlalchemy import func, select

from bot.services.suggestions.actions import Typed, in_transaction, submit_suggestion, validate_draft
from bot.services.suggestions.duplicates import TitleIndex
from db.models.suggestions import Suggestion
from tests.suggestions.conftest import NOW
from tests.suggestions.helpers import toggle_vote
from tests.suggestions.test_service import GUILD, TOPICS, submit


async def test_fifty_members_vote_at_once(session_factory) -> None:
    card = (await submit(session_factory, TitleIndex(), "2406.12045")).card
    assert card is not None

    async def vote(user_id: int) -> int:
        async with session_factory() as s, s.begin():
            return (await toggle_vote(s, GUILD, card.id, user_id, NOW)).count

    counts = await asyncio.gather(*(vote(1000 + i) for i in range(50)))
    assert all(1 <= c <= 50 for c in counts)  # each sees its own vote; the store has them all:
    async with session_factory() as s:
        from bot.services.suggestions.queries import get_card

        assert (await get_card(s, GUILD, card.id)).votes == 50
    # and 50 take it back at once
    await asyncio.gather(*(vote(1000 + i) for i in range(50)))
    async with session_factory() as s:
        assert (await get_card(s, GUILD, card.id)).votes == 0


async def test_same_member_pressing_twice_at_once_never_fails(session_factory) -> None:
    card = (await submit(session_factory, TitleIndex(), "2406.12045")).card
    assert card is not None

    async def vote() -> bool:
        async with session_factory() as s, s.begin():
            return (await toggle_vote(s, GUILD, card.id, 7, NOW)).added

    results = await asyncio.gather(*(vote() for _ in range(6)))
    async with session_factory() as s:
        from bot.services.suggestions.queries import count_votes

        votes = await count_votes(s, card.id)
    assert votes in (0, 1)
    assert len(results) == 6


async def test_two_members_suggest_the_same_new_paper_at_once(session_factory) -> None:
    index = TitleIndex()
    d = validate_draft(Typed("https://arxiv.org/abs/2406.12045"), TOPICS)

    async def suggest(user_id: int):
        return await in_transaction(
            session_factory,
            lambda s: submit_suggestion(
                s, guild_id=GUILD, user_id=user_id, draft=d, metadata=None, now=NOW, per_day=5, index=index
            ),
        )

    results = await asyncio.gather(*(suggest(u) for u in (1, 2, 3, 4)))
    assert sum(1 for r in results if r.card is not None) == 1
    assert sum(1 for r in results if r.duplicate is not None) == 3
    async with session_factory() as s:
        assert (await s.execute(select(func.count()).select_from(Suggestion))).scalar_one() == 1


async def test_two_organizers_making_a_session_from_one_suggestion_at_once(session_factory) -> None:
    from bot.errors import Conflict
    from tests.suggestions.test_service import _review, count_sessions, session_from

    card = (await submit(session_factory, TitleIndex(), "2406.12045")).card
    assert card is not None
    await _review(session_factory, card.id, "accept")
    results = await asyncio.gather(
        *(session_from(session_factory, card.id, f"Tau-bench take {n}") for n in range(4)),
        return_exceptions=True,
    )
    made = [r for r in results if isinstance(r, int)]
    refused = [r for r in results if isinstance(r, Conflict)]
    assert len(made) == 1, results
    assert len(refused) == 3, results
    assert all("already made" in r.user_message for r in refused)
    assert await count_sessions(session_factory) == 1
