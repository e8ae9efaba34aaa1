"""arXiv as it answers, through the stand-in and the real discord.py client: its bare throttle (a 429, or a
200 "Rate exceeded.", no Retry-After) saves the suggestion and fills it in later without asking arXiv again
meanwhile; an old-style id with its subject class is stored as arXiv writes it, so either form finds it."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from bot.services.suggestions.queries import get_card
from tests.series.helpers import is_ephemeral
from tests.suggestions.helpers import (
    latest_suggestion_id,
    post_fields,
    post_of,
    post_title,
    suggest,
    use_channel,
)

TAU_BENCH = "Tau-Bench: A Benchmark for Tool-Agent-User Interaction in Real-World Domains"
KNOTS = "Knots and their invariants"


@pytest.fixture
def arxiv(arxiv: Any) -> Any:
    arxiv.add(
        "2406.12045", TAU_BENCH, ["Shunyu Yao", "Noah Shinn"], "We propose tau-bench.", "2024-06-17T17:42:00Z"
    )
    arxiv.add("math.GT/0309136", KNOTS, ["C. Knot"], "", "2003-09-08T10:00:00Z")
    return arxiv


@pytest.mark.parametrize("status", [429, 200])
async def test_the_bare_throttle_saves_now_and_fills_in_later(discord_env, arxiv, status: int) -> None:
    env = discord_env
    await use_channel(env)
    arxiv.rate_limit_next(1, status)
    answer = await suggest(env, env.members[0], paper="2406.12045")
    assert "Thanks" in answer.content
    assert "arXiv did not answer" in answer.content
    sid = await latest_suggestion_id(env)
    assert post_title(await post_of(env, sid)) == "arXiv:2406.12045"
    assert len(arxiv.requests) == 1  # read as a rate limit: not asked again within the command
    await env.clock.advance(timedelta(minutes=15))  # the late-metadata job, past arXiv's wait
    post = await post_of(env, sid)
    assert post_title(post) == TAU_BENCH
    assert post_fields(post)["Authors"] == "Shunyu Yao, Noah Shinn"
    assert len(arxiv.requests) == 2


async def test_an_old_style_id_is_found_by_either_form(discord_env, arxiv) -> None:
    env = discord_env
    await use_channel(env)
    first = await suggest(env, env.members[0], paper="math.GT/0309136")
    assert "Thanks" in first.content, first.content
    sid = await latest_suggestion_id(env)
    assert post_title(await post_of(env, sid)) == KNOTS
    assert arxiv.requests == ["math/0309136"]
    again = await suggest(env, env.members[1], paper="https://arxiv.org/abs/math/0309136v1")
    assert "was already suggested" in again.content
    assert "so your vote went to it" in again.content
    async with env.bot.session_factory() as session:
        card = await get_card(session, env.guild.id, sid)
    assert card.votes == 1  # the second member's vote, on the first suggestion
    shown = await (
        await env.invoke("paper show", {"paper": "math.GT/0309136"}, member=env.members[2])
    ).final()
    assert is_ephemeral(shown)
    assert KNOTS in " ".join(shown.text_displays)
