"""The short paper card on the session's announcement and /session show, through the stand-in with the real
discord.py client: a fresh post shows the stored fields, enrichment landing later edits the announcement
(an old embed post becomes a layout in that edit), and a 10-paper session with long titles and TLDRs fits."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import discord
import pytest
from sqlalchemy import update

from bot.demo.botenv import BotEnv
from bot.services.papers.enrich import ENRICH_EVERY as PAPERS_EVERY
from bot.services.sessions import store as svc
from cogs.sessions.buttons import CalendarButton, RemindMeButton
from db.models import Paper
from tests.sessions.helpers import add_session, announcements, configure, papers_of, run
from tests.sessions.test_session_layout_e2e import within_limits

ARXIV_ID = "2406.12045"
TITLE = "tau-bench: A Benchmark for Tool-Agent-User Interaction"
TLDR = "Agents fail at tools @everyone **really** <@&1> [x](https://evil.example)"


@pytest.fixture
def arxiv(arxiv: Any) -> Any:
    arxiv.add(ARXIV_ID, TITLE, ["Shunyu Yao"], "We propose tau-bench.", "2024-06-17T17:42:00Z")
    return arxiv


def seed_sources(env: Any) -> None:
    env.semantic_scholar.add(
        "s2tau",
        TITLE,
        arxiv_id=ARXIV_ID,
        year=2024,
        venue="ICLR",
        tldr=TLDR,
        citation_count=120,
        influential_citation_count=7,
    )
    env.huggingface.add(ARXIV_ID, TITLE, github_repo="https://github.com/sierra-research/tau-bench")


def assert_enriched(message: Any) -> None:
    shown = papers_of(message)
    assert "**TLDR:** Agents fail at tools @\u200beveryone \\*\\*really\\*\\*" in shown
    assert "<@&1>" not in shown
    assert "[x](https://evil.example)" not in shown
    assert "ICLR · 2024" in shown
    assert "120 citations (7 influential)" in shown
    assert "[Code](<https://github.com/sierra-research/tau-bench>)" in shown
    assert "Data from Semantic Scholar" in message.text
    assert message.payload["mention_everyone"] is False
    assert message.payload["mention_roles"] == []
    within_limits(message)


async def land_enrichment(env: BotEnv) -> None:
    """Move the clock to the enrichment job's next slot, then wait for the announcements' edits."""
    await env.clock.advance(PAPERS_EVERY + timedelta(seconds=1))
    await env.bot.get_cog("SessionsCog").announcements_refreshed()  # type: ignore[union-attr]


async def test_enrichment_landing_edits_the_announcement(discord_env: BotEnv, arxiv: Any) -> None:
    env = discord_env
    await configure(env)
    session_id = await add_session(
        env, "Tools", "2026-12-10 08:00", papers=f"https://arxiv.org/abs/{ARXIV_ID}\nTMax"
    )
    await run(env, "organize session announce", {"session": session_id})
    (posted,) = announcements(env)
    assert "TLDR" not in posted.text
    seed_sources(env)
    await land_enrichment(env)
    (posted,) = announcements(env)
    assert_enriched(posted)
    # /session show renders the same card
    await run(env, "session show", {"session": session_id, "public": True}, member=env.member)
    assert_enriched(env.messages_in(env.general)[-1])
    # a second event (another process, the weekly refresh) leaves the same card
    before = (posted.components, posted.text)
    cog: Any = env.bot.get_cog("SessionsCog")
    async with env.bot.session_factory() as db:
        paper_id = (await db.execute(Paper.__table__.select().where(Paper.arxiv_id == ARXIV_ID))).one().id
    await cog.on_paper_enriched(env.guild.id, (paper_id,))
    (posted,) = announcements(env)
    assert (posted.components, posted.text) == before


async def test_an_old_embed_announcement_is_converted_when_enrichment_lands(
    discord_env: BotEnv, arxiv: Any
) -> None:
    env = discord_env
    await configure(env)
    session_id = await add_session(env, "Old post", "2026-12-10 08:00", papers=f"arXiv:{ARXIV_ID}")
    view = discord.ui.View(timeout=None)
    view.add_item(RemindMeButton(session_id))
    view.add_item(CalendarButton(session_id))
    channel = env.bot.get_channel(env.announcements.id)
    assert isinstance(channel, discord.TextChannel)
    old = await channel.send(content="New session!", embed=discord.Embed(title="Old post"), view=view)
    async with env.bot.session_factory() as db, db.begin():
        await svc.record_announcement(
            db, env.guild.id, session_id, channel_id=channel.id, message_id=old.id, thread_id=None
        )
    seed_sources(env)
    await land_enrichment(env)
    (posted,) = announcements(env)
    assert posted.id == old.id
    assert_enriched(posted)


async def test_a_fresh_post_shows_stored_fields_and_ten_long_papers_fit(discord_env: BotEnv) -> None:
    env = discord_env
    await configure(env)
    titles = [f"Paper {i} " + "y" * 192 for i in range(10)]
    papers = "\n".join(f"https://example.org/papers/{i}.pdf" for i in range(10))
    session_id = await add_session(
        env,
        "Environments " + "x" * 187,
        "2026-12-10 08:00",
        papers=papers,
        description="What the reward sees. " * 40,
    )
    async with env.bot.session_factory() as db, db.begin():
        for i, title in enumerate(titles):
            await db.execute(
                update(Paper)
                .where(Paper.url == f"https://example.org/papers/{i}.pdf")
                .values(
                    title=title,
                    tldr=("@here *bold* <@1> " * 40)[:1000],
                    venue="NeurIPS",
                    year=2025,
                    citation_count=3,
                    code_url=f"https://github.com/x/{i}",
                    field_sources={"tldr": ["semantic_scholar", "2026-10-01T00:00:00+00:00"]},
                )
            )
    await run(env, "organize session announce", {"session": session_id})
    (posted,) = announcements(env)
    within_limits(posted)
    shown = papers_of(posted)
    assert all(f"Paper {i} " in shown for i in range(10)), shown
    assert "more papers" not in posted.text
    assert "@here" not in posted.text
    assert "<@1>" not in posted.text
    assert "NeurIPS · 2025" in shown
    assert posted.text.count("Data from Semantic Scholar") == 1
    assert posted.payload["mention_everyone"] is False
