"""Issue 28's scenario through Discord: Semantic Scholar answers three 429s with ``Retry-After: 1`` and
OpenReview is unreachable; a suggested arXiv paper's post gets its TLDR and code link in the first run of the
enrichment job (the 429s waited out, three seconds on the sources' clock; OpenReview's failure skipping
nothing else), and its page on the site shows the code link."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import aiohttp
import pytest
from sqlalchemy import select

from bot.services.papers.enrich import ENRICH_EVERY
from db.models import Paper
from tests.papers.test_enrich_e2e import ARXIV_ID, seed_sources
from tests.suggestions.conftest import TAU_BENCH
from tests.suggestions.helpers import latest_suggestion_id, post_fields, post_of, suggest, use_channel

UNREACHABLE = "http://127.0.0.1:9"  # nothing listens on the discard port: connections are refused
CODE = "https://github.com/sierra-research/tau-bench"


@pytest.fixture
def arxiv(arxiv: Any) -> Any:
    arxiv.add(
        ARXIV_ID, TAU_BENCH, ["Shunyu Yao", "Noah Shinn"], "We propose tau-bench.", "2024-06-17T17:42:00Z"
    )
    return arxiv


@pytest.fixture
def bot_settings_overrides(arxiv: Any) -> dict[str, Any]:
    return {
        "arxiv_api_url": arxiv.url,
        "openreview_api_url": UNREACHABLE,
        "openreview_v1_api_url": UNREACHABLE,
        "web_port": 0,
    }


async def test_short_429s_are_waited_out_and_openreview_down_skips_nothing(discord_env, arxiv) -> None:
    env = discord_env
    seed_sources(env)
    env.semantic_scholar.rate_limit_next(3, retry_after=1)
    await use_channel(env)
    await env.invoke("setup website", {"enabled": True, "slug": "paper-club"}, member=env.admin)
    answer = await suggest(env, env.members[0], paper=f"https://arxiv.org/abs/{ARXIV_ID}")
    assert "Thanks" in answer.content
    suggestion_id = await latest_suggestion_id(env)
    timer = env.bot.sources.semantic_scholar.timer
    waited = timer.waited
    await env.clock.advance(ENRICH_EVERY + timedelta(seconds=1))  # one run of the job
    shown = post_fields(await post_of(env, suggestion_id))["The paper"]
    assert "**TLDR:** Agents fail at tools" in shown
    assert f"[Code](<{CODE}>)" in shown
    assert [seen.status for seen in env.semantic_scholar.requests] == [429, 429, 429, 200]
    assert timer.waited - waited == pytest.approx(3 + 1, abs=0.5)  # three Retry-Afters, OpenReview's retry

    async with env.bot.session_factory() as session:
        paper = (await session.execute(select(Paper).where(Paper.arxiv_id == ARXIV_ID))).scalar_one()
    assert paper.enriched_at is None  # OpenReview still owes its answer: asked again later
    assert paper.enrich_retry_at is not None
    assert env.bot.web is not None
    page = f"{env.bot.web.public_url}/paper-club/papers/{paper.id}/"
    async with aiohttp.ClientSession() as http, http.get(page) as reply:
        assert reply.status == 200
        assert f'href="{CODE}"' in await reply.text()
