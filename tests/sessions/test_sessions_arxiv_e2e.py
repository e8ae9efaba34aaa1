"""/organize session add and edit fill in an arXiv paper's title (after the session is saved) through the local
arXiv stand-in; with arXiv down or slow the session is still saved under the id label."""

from __future__ import annotations

from sqlalchemy import select

from bot.demo.botenv import BotEnv
from bot.papers import parse_paper_ref
from bot.services.papers.store import get_or_create_paper
from db.models import Paper
from standin.arxiv import ArxivStandin
from tests.sessions.helpers import OCTOBER, configure, is_ephemeral, papers_of, run

AUTOENV = "AutoEnv: Automated Environments for Measuring Cross-Environment Agent Learning"


async def paper_row(env: BotEnv, key: str) -> Paper:
    async with env.bot.session_factory() as session:
        row = await session.scalar(select(Paper).where(Paper.key == key))
    assert row is not None
    return row


async def test_add_shows_the_arxiv_title(env: BotEnv, arxiv: ArxivStandin) -> None:
    await configure(env)
    await env.clock.set(OCTOBER)
    arxiv.add("2401.12345", AUTOENV, ["Ada Lovelace", "Alan Turing"], "We build environments.")
    reply = await run(
        env,
        "organize session add",
        {"title": "Environments", "when": "2026-11-05 08:00", "papers": "2401.12345"},
    )
    assert is_ephemeral(reply)
    assert reply.text.startswith("Added session #1.")
    papers = papers_of(reply)
    assert "AutoEnv" in papers
    assert "arXiv:2401.12345" not in papers
    row = await paper_row(env, "arxiv:2401.12345")
    assert row.title == AUTOENV
    assert row.authors == "Ada Lovelace, Alan Turing"
    assert row.abstract == "We build environments."
    assert row.published == "2024-01-22"
    assert row.metadata_fetched_at is not None
    assert arxiv.requests == ["2401.12345"]

    # a second session with the same paper does not ask arXiv again
    await run(
        env,
        "organize session add",
        {"title": "Again", "when": "2026-11-12 08:00", "papers": "arXiv:2401.12345"},
    )
    assert arxiv.requests == ["2401.12345"]


async def test_add_with_arxiv_down_keeps_the_id_label(env: BotEnv, arxiv: ArxivStandin) -> None:
    await configure(env)
    await env.clock.set(OCTOBER)
    arxiv.add("2401.12345", AUTOENV)
    arxiv.mode = "down"
    reply = await run(
        env,
        "organize session add",
        {"title": "Environments", "when": "2026-11-05 08:00", "papers": "2401.12345"},
    )
    assert is_ephemeral(reply)
    assert reply.text.startswith("Added session #1.")
    papers = papers_of(reply)
    assert "arXiv:2401.12345" in papers
    row = await paper_row(env, "arxiv:2401.12345")
    assert row.title == "arXiv:2401.12345"
    assert row.metadata_fetched_at is None

    # arXiv is back: editing the session's papers fills the title in
    arxiv.mode = "ok"
    reply = await run(env, "organize session edit", {"session": 1, "papers": "2401.12345\nTMax"})
    assert reply.text.startswith("Saved session #1")
    papers = papers_of(reply)
    assert "AutoEnv" in papers
    assert "TMax" in papers
    assert (await paper_row(env, "arxiv:2401.12345")).title == AUTOENV


async def test_slow_arxiv_does_not_hold_the_reply(env: BotEnv, arxiv: ArxivStandin) -> None:
    await configure(env)
    await env.clock.set(OCTOBER)
    arxiv.add("2401.12345", AUTOENV)
    env.bot.arxiv.timeout = 0.2
    arxiv.mode, arxiv.delay = "slow", 3.0
    reply = await run(
        env,
        "organize session add",
        {"title": "Environments", "when": "2026-11-05 08:00", "papers": "2401.12345"},
    )
    assert reply.text.startswith("Added session #1.")
    assert "arXiv:2401.12345" in papers_of(reply)


async def test_a_given_title_is_kept(env: BotEnv, arxiv: ArxivStandin) -> None:
    await configure(env)
    await env.clock.set(OCTOBER)
    arxiv.add("2401.12345", AUTOENV, ["Ada Lovelace"])
    async with env.bot.session_factory() as session, session.begin():
        await get_or_create_paper(session, env.guild.id, parse_paper_ref("2401.12345"), title="Our name")
    reply = await run(
        env,
        "organize session add",
        {"title": "Environments", "when": "2026-11-05 08:00", "papers": "2401.12345"},
    )
    assert "Our name" in papers_of(reply)
    row = await paper_row(env, "arxiv:2401.12345")
    assert row.title == "Our name"
    assert row.authors == "Ada Lovelace"
