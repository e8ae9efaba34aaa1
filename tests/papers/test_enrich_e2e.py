"""Enrichment end to end: a suggested arXiv paper's post gains what Semantic Scholar and Hugging Face say,
once the background job lands, through the real discord.py client and the sources' stand-ins."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from bot.services.papers.enrich import ENRICH_EVERY
from tests.series.helpers import is_ephemeral
from tests.suggestions.conftest import TAU_BENCH
from tests.suggestions.helpers import latest_suggestion_id, post_fields, post_of, suggest, use_channel

ARXIV_ID = "2406.12045"
TLDR = "Agents fail at tools @everyone **really** <@&1> [x](https://evil.example)"


@pytest.fixture
def arxiv(arxiv: Any) -> Any:
    arxiv.add(
        ARXIV_ID, TAU_BENCH, ["Shunyu Yao", "Noah Shinn"], "We propose tau-bench.", "2024-06-17T17:42:00Z"
    )
    return arxiv


def seed_sources(env: Any) -> None:
    env.semantic_scholar.add(
        "s2tau",
        TAU_BENCH,
        arxiv_id=ARXIV_ID,
        year=2024,
        venue="International Conference on Learning Representations",
        tldr=TLDR,
        citation_count=120,
        influential_citation_count=7,
        open_access_pdf="https://arxiv.org/pdf/2406.12045",
    )
    env.huggingface.add(ARXIV_ID, TAU_BENCH, github_repo="https://github.com/sierra-research/tau-bench")


async def suggested_post(env: Any) -> tuple[int, Any]:
    await use_channel(env)
    final = await suggest(env, env.members[0], paper=f"https://arxiv.org/abs/{ARXIV_ID}")
    assert "is saved and posted" in final.content
    suggestion_id = await latest_suggestion_id(env)
    return suggestion_id, await post_of(env, suggestion_id)


async def enriched_post(env: Any, suggestion_id: int) -> dict[str, str]:
    """Move the clock a second (the move returns once the job, made due by the new paper, ran); read the post."""
    await env.clock.advance(timedelta(seconds=1))  # a new paper makes the job due at once
    return post_fields(await post_of(env, suggestion_id))


async def test_the_post_shows_the_tldr_and_the_code_link_once_enrichment_lands(discord_env, arxiv) -> None:
    env = discord_env
    seed_sources(env)
    suggestion_id, post = await suggested_post(env)
    assert "The paper" not in post_fields(post)
    shown = (await enriched_post(env, suggestion_id))["The paper"]
    assert "**TLDR:** Agents fail at tools @\u200beveryone \\*\\*really\\*\\*" in shown
    assert "International Conference on Learning Representations · 2024" in shown
    assert "120 citations (7 influential)" in shown
    assert "[Code](<https://github.com/sierra-research/tau-bench>)" in shown
    assert "[PDF](<https://arxiv.org/pdf/2406.12045>)" in shown
    assert "Data from Semantic Scholar" in shown
    assert "utm_source=api" in shown
    post = await post_of(env, suggestion_id)
    assert post.payload["mention_everyone"] is False
    assert post.payload["mention_roles"] == []


@pytest.mark.parametrize("trouble", ["down", "rate_limited"])
@pytest.mark.parametrize("source", ["semantic_scholar", "huggingface"])
async def test_a_source_in_trouble_leaves_the_others_fields(discord_env, arxiv, source, trouble) -> None:
    env = discord_env
    seed_sources(env)
    standin = getattr(env, source)
    if trouble == "down":
        standin.fail_next(100, 503)
    else:
        standin.rate_limit_next(100, retry_after=600)
    suggestion_id, _ = await suggested_post(env)  # answered: no source is on the command's path
    shown = (await enriched_post(env, suggestion_id))["The paper"]
    if source == "semantic_scholar":
        assert "TLDR" not in shown
        assert "[Code](" in shown
    else:
        assert "TLDR" in shown
        assert "[Code](" not in shown


async def test_the_weekly_refresh_keeps_the_tldr_and_paper_refresh_asks_afresh(discord_env, arxiv) -> None:
    """The weekly refresh takes the citations and links only; /organize paper refresh (organizers; a member is
    refused and nothing changes) has the next run take every field, and the post shows the new TLDR."""
    env = discord_env
    seed_sources(env)
    suggestion_id, _ = await suggested_post(env)
    await enriched_post(env, suggestion_id)
    record = env.semantic_scholar.papers["s2tau"].record
    record["tldr"] = {"model": "tldr@v2.0.0", "text": "A newer TLDR about narwhals."}
    record["citationCount"] = 300
    await env.clock.advance(timedelta(days=7) + ENRICH_EVERY)  # the weekly refresh, at the job's next slot
    shown = (await enriched_post(env, suggestion_id))["The paper"]
    assert "300 citations" in shown
    assert "narwhals" not in shown

    refused = await (
        await env.invoke("organize paper refresh", {"paper": ARXIV_ID}, member=env.members[1])
    ).final()
    assert "Only organizers" in refused.text
    assert "narwhals" not in (await enriched_post(env, suggestion_id))["The paper"]
    asked = await (await env.invoke("organize paper refresh", {"paper": ARXIV_ID})).final()
    assert is_ephemeral(asked)
    assert "The paper sources are being asked about **" in asked.text
    assert "narwhals" in (await enriched_post(env, suggestion_id))["The paper"]


async def test_reading_search_finds_the_paper_by_its_tldr_and_venue_once_enrichment_lands(
    discord_env, arxiv
) -> None:
    """Search covers what the sources said: words of the TLDR and of the venue find the suggested paper,
    shown escaped; before the enrichment lands they find nothing."""
    env = discord_env
    seed_sources(env)
    suggestion_id, _ = await suggested_post(env)

    async def search(query: str) -> Any:
        answer = await (await env.invoke("reading search", {"query": query}, member=env.members[1])).final()
        assert is_ephemeral(answer)
        return answer

    before = await search("fail")
    assert TAU_BENCH not in " ".join(before.text_displays) + before.content
    await enriched_post(env, suggestion_id)
    for query in ("fail", "representations"):  # in the TLDR, in the venue; not in the title or abstract
        found = await search(query)
        shown = " ".join(found.text_displays)
        assert TAU_BENCH in shown, (query, shown)
        assert "Agents **fail** at tools" in shown or "**representations**" in shown.casefold()
        assert "\\<@&1>" in shown  # a role mention shows as typed, never as markup
        callback = env.standin.requests_to("POST", r"/interactions/\d+/.+/callback$")[-1]
        assert callback.json["data"]["allowed_mentions"]["parse"] == []  # "@everyone" as typed, no ping
        assert [b["label"] for b in found.buttons][:1] == ["arXiv"]


async def test_a_2023_openreview_forum_gets_its_venue_and_decision_from_api_v1(discord_env, arxiv) -> None:
    """ICLR 2023 is held by OpenReview's API v1 only: a suggestion of its forum link shows the venue and the
    decision once enrichment lands."""
    env = discord_env
    env.openreview.add_submission(
        "iclr23Frm1",
        "Old But Gold: Environments Before 2024",
        venue="ICLR 2023 notable top 25%",
        venue_id="ICLR.cc/2023/Conference",
        number=1234,
        decision="Accept: notable-top-25%",
    )
    await use_channel(env)
    answer = await suggest(env, env.members[0], paper="https://openreview.net/forum?id=iclr23Frm1")
    assert "Thanks" in answer.content
    suggestion_id = await latest_suggestion_id(env)
    shown = (await enriched_post(env, suggestion_id))["The paper"]
    assert "ICLR 2023 notable top 25%\n" in shown  # the decision and the year said once, by the venue
    assert {seen.path for seen in env.openreview.requests} == {"/notes", "/v1/notes"}
