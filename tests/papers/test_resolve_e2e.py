"""/organize paper resolve end to end, through the real discord.py client and the sources' stand-ins: "TMax" offers
candidates, the organizer's pick is remembered (the second time resolves at once, no source asked), a
member is refused, an unknown name stores nothing, and sources down or rate-limited still leave an answer."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select

from cogs.papers import _cog as resolve_module
from db.models import Paper
from db.models.sessions import PaperAlias
from db.models.suggestions import Suggestion
from tests.series.helpers import is_ephemeral
from tests.suggestions.helpers import suggest, use_channel

TMAX = "TMax: Scaling Terminal Agents with Reinforcement Learning"
TMAX_ID = "2511.00001"
LITE = "TMax Lite: Small Terminal Agents @everyone"


def seed(env: Any, arxiv: Any) -> None:
    env.semantic_scholar.add(
        "s2tmax", TMAX, arxiv_id=TMAX_ID, year=2025, venue="ICLR", authors=["Hamish Ivison"]
    )
    env.semantic_scholar.add("s2lite", LITE, doi="10.1/lite", year=2024, authors=["<@1> **bold**"])
    env.huggingface.add(TMAX_ID, TMAX, authors=["Hamish Ivison"])
    arxiv.add(TMAX_ID, TMAX, ["Hamish Ivison"])


async def offered(env: Any, name: str, member: Any = None) -> Any:
    return await (await env.invoke("organize paper resolve", {"paper": name}, member=member)).final()


async def test_tmax_offers_candidates_and_the_pick_is_remembered(discord_env, arxiv) -> None:
    env = discord_env
    seed(env, arxiv)
    reply = await offered(env, "TMax")
    assert is_ephemeral(reply)
    assert "Which paper is “TMax”?" in reply.text
    assert f"**1. {TMAX}**" in reply.text
    assert "Hamish Ivison · 2025 · ICLR" in reply.text
    assert f"arXiv:{TMAX_ID}" in reply.text
    assert "found by Semantic Scholar, Hugging Face, arXiv" in reply.text
    assert reply.payload["mention_everyone"] is False  # a source's text pings no one
    assert reply.payload["mentions"] == []
    assert "\\*\\*bold\\*\\*" in reply.text
    assert [b["label"] for b in reply.buttons] == ["Pick 1", "Pick 2", "None of these"]

    refused = await (await env.click(reply, "paper:resolve:0", member=env.member)).final()
    assert "Only organizers" in refused.text
    picked = await env.click(reply, "paper:resolve:0")
    await picked.response()
    done = picked.message
    assert done is not None
    assert done.id == reply.id  # the candidates are replaced by the outcome
    shown = done.text
    assert f"**TMax** now means **{TMAX}** (arXiv:{TMAX_ID})" in shown
    assert done.buttons == []

    asked = env.semantic_scholar.count("/graph/v1/paper/search")
    again = await offered(env, "  tmax ")
    assert f"already means **{TMAX}**" in again.text
    assert again.buttons == []
    assert env.semantic_scholar.count("/graph/v1/paper/search") == asked  # no source asked the second time
    async with env.bot.session_factory() as session:
        alias = await session.scalar(select(PaperAlias))
        assert alias is not None
        assert alias.name == "TMax"
        assert alias.chosen_by == env.organizer.id
        paper = await session.get(Paper, alias.paper_id)
        assert paper is not None
        assert paper.arxiv_id == TMAX_ID

    # /paper show follows the alias: the name a member types is the paper the organizer picked
    card = await (await env.invoke("paper show", {"paper": "TMAX"}, member=env.member)).final()
    assert card.is_components_v2
    assert TMAX in card.text
    # ... and offers it as they type the name
    choices = await env.autocomplete("paper show", "paper", "tma", member=env.member)
    assert choices[0] == {"name": f"TMax → {TMAX}", "value": str(paper.id)}


async def test_none_of_these_is_remembered_and_a_later_look_offers_them_again(discord_env, arxiv) -> None:
    env = discord_env
    seed(env, arxiv)
    reply = await offered(env, "TMax")
    await (await env.click(reply, "paper:resolve:none")).response()
    async with env.bot.session_factory() as session:
        alias = await session.scalar(select(PaperAlias))
        assert alias is not None
        assert alias.paper_id is None
    again = await offered(env, "TMax")
    assert "Earlier marked “none of these”" in again.text
    assert "Pick 1" in [b["label"] for b in again.buttons]
    choices = await env.autocomplete("paper show", "paper", "tmax", member=env.member)
    assert not any("→" in c["name"] for c in choices)  # a name marked "none of these" offers no paper


async def test_members_are_refused_and_unknown_names_store_nothing(discord_env, arxiv) -> None:
    env = discord_env
    seed(env, arxiv)
    refused = await offered(env, "TMax", member=env.member)
    assert "Only organizers" in refused.text
    unknown = await offered(env, "Zyxxyz Qwerty")
    assert "No source knows a paper called **Zyxxyz Qwerty**: nothing was stored" in unknown.text
    already = await offered(env, f"https://arxiv.org/abs/{TMAX_ID}")
    assert "already an id or a link" in already.text
    async with env.bot.session_factory() as session:
        assert await session.scalar(select(PaperAlias)) is None


@pytest.mark.parametrize("trouble", ["down", "rate_limited"])
async def test_sources_in_trouble_still_leave_an_answer(discord_env, arxiv, trouble) -> None:
    env = discord_env
    seed(env, arxiv)
    for standin in (env.semantic_scholar, env.huggingface):
        if trouble == "down":
            standin.fail_next(100, 503)
        else:
            standin.rate_limit_next(100, retry_after=600)
    reply = await offered(env, "TMax")
    assert f"**1. {TMAX}**" in reply.text
    assert "found by arXiv" in reply.text
    assert (
        "Not heard from this time (down, slow or rate-limited): Semantic Scholar, Hugging Face." in reply.text
    )


async def test_a_slow_source_is_left_out_after_the_deadline(discord_env, arxiv, monkeypatch) -> None:
    env = discord_env
    seed(env, arxiv)
    monkeypatch.setattr(resolve_module, "SOURCE_DEADLINE", 0.5)
    env.semantic_scholar.mode = "slow"
    reply = await offered(env, "TMax")
    assert "found by Hugging Face, arXiv" in reply.text
    assert "Not heard from this time (down, slow or rate-limited): Semantic Scholar." in reply.text


async def test_a_member_suggesting_the_name_afterwards_gets_the_resolved_paper(discord_env, arxiv) -> None:
    env = discord_env
    seed(env, arxiv)
    reply = await offered(env, "TMax")
    await (await env.click(reply, "paper:resolve:0")).response()
    await use_channel(env)
    final = await suggest(env, env.members[0], paper="tmax")
    assert "is saved and posted" in final.content
    async with env.bot.session_factory() as session:
        suggestion = await session.scalar(select(Suggestion))
        assert suggestion is not None
        paper = await session.get(Paper, suggestion.paper_id)
        assert paper is not None
        assert paper.arxiv_id == TMAX_ID
        assert await session.scalar(select(func.count()).select_from(Paper)) == 1
