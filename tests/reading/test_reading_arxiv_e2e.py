"""/organize reading add fills in an arXiv paper's title through the local arXiv stand-in, after the list is
saved; with arXiv down the paper is still added under its id label."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from bot.demo.botenv import BotEnv
from db.models import Paper
from standin.arxiv import ArxivStandin
from standin.state import EPHEMERAL, Message
from tests.reading.layouts import sections, within_limits

AUTOENV = "AutoEnv: Automated Environments for Measuring Cross-Environment Agent Learning"


async def add(env: BotEnv, options: dict[str, Any]) -> Message:
    return await (await env.invoke("organize reading add", options, member=env.organizer)).final()


async def test_reading_add_shows_the_arxiv_title(discord_env: BotEnv, arxiv: ArxivStandin) -> None:
    env = discord_env
    arxiv.add("2401.12345", AUTOENV, ["Ada Lovelace"], "We build environments.")
    reply = await add(env, {"list": "Environments", "paper": "https://arxiv.org/abs/2401.12345v2"})
    assert reply.flags & EPHEMERAL
    assert reply.content.startswith(f"Added **{AUTOENV}** to **Environments** (a new list)")
    async with env.bot.session_factory() as session:
        row = await session.scalar(select(Paper).where(Paper.key == "arxiv:2401.12345"))
    assert row is not None
    assert row.authors == "Ada Lovelace"
    assert row.metadata_fetched_at is not None
    shown = await (await env.invoke("reading show", {"list": "Environments"}, member=env.member)).final()
    within_limits(shown)
    assert sections(shown) == [(f"1. **{AUTOENV}**", "https://arxiv.org/abs/2401.12345")]


async def test_reading_add_with_arxiv_down_keeps_the_id(discord_env: BotEnv, arxiv: ArxivStandin) -> None:
    env = discord_env
    arxiv.add("2401.12345", AUTOENV)
    arxiv.mode = "down"
    reply = await add(env, {"list": "Environments", "paper": "2401.12345"})
    assert reply.content.startswith("Added **arXiv:2401.12345** to **Environments** (a new list)")
    arxiv.mode = "rate_limited"
    reply = await add(env, {"list": "Other", "paper": "2401.12345"})
    assert reply.content.startswith("Added **arXiv:2401.12345** to **Other** (a new list)")
