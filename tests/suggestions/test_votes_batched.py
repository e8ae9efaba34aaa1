"""Upvotes written many at a time (bot.services.suggestions.votes): toggling kept within a batch, refusals
per press, a failed write answered to every press of its batch, two processes on one store, and the press
acknowledged first when the write is slow — on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from bot.errors import Conflict, NotFound
from bot.services.suggestions import votes as votes_module
from bot.services.suggestions.actions import withdraw_suggestion
from bot.services.suggestions.duplicates import TitleIndex
from bot.services.suggestions.queries import count_votes
from bot.services.suggestions.votes import Press, VoteWriter, toggle_votes
from cogs.suggestions import _cog as cog_module
from db.engine import create_session_factory
from tests.suggestions.conftest import NOW
from tests.suggestions.helpers import button, latest_suggestion_id, post_of, suggest, use_channel
from tests.suggestions.test_service import ALICE, GUILD, OTHER_GUILD, submit


async def _suggestion(session_factory, paper: str = "2406.12045") -> int:
    card = (await submit(session_factory, TitleIndex(), paper)).card
    assert card is not None
    return card.id


async def test_a_batch_toggles_in_press_order_and_counts_once(session_factory) -> None:
    sid = await _suggestion(session_factory)
    presses = [Press(GUILD, sid, user, NOW) for user in (1, 2, 1, 3, 1)]  # member 1 presses three times
    async with session_factory() as s, s.begin():
        outcomes = await toggle_votes(s, presses)
    assert [o.added for o in outcomes] == [True, True, False, True, True]  # type: ignore[union-attr]
    assert {o.count for o in outcomes} == {3}  # type: ignore[union-attr]  # the count after the batch
    async with session_factory() as s:
        assert await count_votes(s, sid) == 3
    async with session_factory() as s, s.begin():  # and back: 1 and 3 take theirs back, 2 twice
        outcomes = await toggle_votes(s, [Press(GUILD, sid, user, NOW) for user in (1, 3, 2, 2)])
    assert [o.added for o in outcomes] == [False, False, False, True]  # type: ignore[union-attr]
    async with session_factory() as s:
        assert await count_votes(s, sid) == 1


async def test_refusals_are_per_press(session_factory) -> None:
    open_one = await _suggestion(session_factory)
    closed = await _suggestion(session_factory, "2401.00001")
    async with session_factory() as s, s.begin():
        await withdraw_suggestion(
            s, guild_id=GUILD, suggestion_id=closed, user_id=ALICE, is_organizer=False, now=NOW
        )
    presses = [
        Press(GUILD, open_one, 5, NOW),
        Press(GUILD, closed, 5, NOW),
        Press(OTHER_GUILD, open_one, 5, NOW),  # another guild's press sees no such suggestion
        Press(GUILD, 999_999, 5, NOW),
    ]
    async with session_factory() as s, s.begin():
        outcomes = await toggle_votes(s, presses)
    assert outcomes[0].count == 1  # type: ignore[union-attr]
    assert isinstance(outcomes[1], Conflict)
    assert "voting on it is closed" in outcomes[1].user_message
    assert isinstance(outcomes[2], NotFound)
    assert isinstance(outcomes[3], NotFound)


async def test_many_presses_at_once_take_a_few_transactions(session_factory) -> None:
    sid = await _suggestion(session_factory)
    writer = VoteWriter(session_factory)
    results = await asyncio.gather(*(writer.toggle(Press(GUILD, sid, 1000 + u, NOW)) for u in range(120)))
    assert all(r.added for r in results)
    assert writer.batches < 20  # not one transaction per press
    assert max(r.count for r in results) == 120
    async with session_factory() as s:
        assert await count_votes(s, sid) == 120
    again = await asyncio.gather(*(writer.toggle(Press(GUILD, sid, 1000 + u, NOW)) for u in range(120)))
    assert not any(r.added for r in again)
    async with session_factory() as s:
        assert await count_votes(s, sid) == 0


async def test_a_failed_write_answers_every_press_of_its_batch(session_factory, monkeypatch) -> None:
    sid = await _suggestion(session_factory)
    writer = VoteWriter(session_factory)

    async def broken(session, presses):
        raise ConnectionError("the store went away")

    monkeypatch.setattr(votes_module, "toggle_votes", broken)
    outcomes = await asyncio.gather(
        *(writer.toggle(Press(GUILD, sid, u, NOW)) for u in range(10)), return_exceptions=True
    )
    assert all(isinstance(o, ConnectionError) for o in outcomes)
    monkeypatch.undo()
    async with session_factory() as s:
        assert await count_votes(s, sid) == 0  # nothing half-written
    assert (await writer.toggle(Press(GUILD, sid, 1, NOW))).count == 1  # and the writer goes on


async def test_two_processes_voting_on_one_suggestion_count_every_vote_once(
    session_factory, store_info
) -> None:
    """Two processes' writers (separate engines) over one store, 200 members each, and 20 members pressing
    in both at once: every vote counted once; the 20 end where a pair of toggles leaves them (no vote)."""
    sid = await _suggestion(session_factory)
    other = store_info.engine()
    try:
        mine, theirs = VoteWriter(session_factory), VoteWriter(create_session_factory(other))
        presses = [mine.toggle(Press(GUILD, sid, 10_000 + u, NOW)) for u in range(200)]
        presses += [theirs.toggle(Press(GUILD, sid, 20_000 + u, NOW)) for u in range(200)]
        both = [w.toggle(Press(GUILD, sid, 30_000 + u, NOW)) for u in range(20) for w in (mine, theirs)]
        results = await asyncio.gather(*presses, *both)
    finally:
        await other.dispose()
    assert all(r.added for r in results[:400])
    added = Counter(r.added for r in results[400:])
    assert added == {True: 20, False: 20}  # each double press: one added it, the other took it back
    async with session_factory() as s:
        assert await count_votes(s, sid) == 400


# ---------------------------------------------------------------- through the stand-in


async def test_a_slow_write_is_acknowledged_first_then_confirmed(discord_env, monkeypatch) -> None:
    env = discord_env
    await use_channel(env)
    await suggest(env, env.members[0], paper="2406.12045", topic="benchmark validity")
    sid = await latest_suggestion_id(env)
    post = await post_of(env, sid)
    real = votes_module.toggle_votes
    release = asyncio.Event()

    async def slow(session, presses):
        await release.wait()
        return await real(session, presses)

    monkeypatch.setattr(votes_module, "toggle_votes", slow)
    monkeypatch.setattr(cog_module, "VOTE_DEFER_AFTER", 0.05)
    result = await env.click(post, f"sugg:vote:{sid}", member=env.members[1])
    first = await result.response()
    assert first.type == 5  # deferred: the member sees the bot thinking, inside Discord's 3 s
    assert first.ephemeral
    release.set()
    final = await result.final()
    assert "Your vote is in (1 vote now)" in final.content
    assert button(await post_of(env, sid), "sugg:vote:")["label"] == "Upvote · 1"


@pytest.mark.parametrize("members", [120])
async def test_many_members_pressing_at_once_are_all_answered_and_counted(discord_env, members: int) -> None:
    env = discord_env
    await use_channel(env)
    await suggest(env, env.members[0], paper="2406.12045", topic="benchmark validity")
    sid = await latest_suggestion_id(env)
    post = await post_of(env, sid)
    voters = [await env.standin.create_member(env.guild, f"voter{i}") for i in range(members)]
    results = await asyncio.gather(*(env.click(post, f"sugg:vote:{sid}", member=v) for v in voters))
    answers = await asyncio.gather(*(r.final(timeout=30) for r in results))
    assert all("Your vote is in" in a.content for a in answers)
    assert max(int(a.content.split("(")[1].split(" ")[0]) for a in answers) == members
    cog = env.bot.get_cog("SuggestionsCog")
    await cog.settle()
    assert button(await post_of(env, sid), "sugg:vote:")["label"] == f"Upvote · {members}"
    assert cog.ctx.votes.batches < members
