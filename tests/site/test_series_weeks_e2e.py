"""A series' weeks on the club page, through the stand-in with the real discord.py client (the bot's own web
server): each week says what it has (its presenter, its papers) or that it is open to claim in the Discord,
and a skipped week its reason; a week's page offers Sign up once."""

from __future__ import annotations

import re
from typing import Any

import aiohttp
import pytest

from bot.demo.botenv import BotEnv
from tests.series.helpers import add_thursdays, configure, run
from tests.site.helpers import assert_nothing_runs, parse, text_of

INVITE = "https://discord.gg/reading-club"


@pytest.fixture
def bot_settings_overrides(bot_settings_overrides: dict[str, Any]) -> dict[str, Any]:
    return {**bot_settings_overrides, "web_port": 0}


async def fetch(url: str) -> str:
    async with aiohttp.ClientSession() as http, http.get(url) as answer:
        assert answer.status == 200, url
        return await answer.text()


async def test_each_week_says_what_it_has_once(discord_env: BotEnv) -> None:
    env = discord_env  # Monday 30 November 2026
    await configure(env)
    await add_thursdays(env, signup_url="https://lu.ma/thursdays")  # 3 December … 21 January: sessions 1-8
    await run(env, "organize series skip", {"series": "1", "date": "2026-12-24", "reason": "Christmas Eve"})
    await run(env, "organize session edit", {"session": 2, "presenter_name": "Sam", "papers": "TMax vs T1"})
    await run(env, "organize session edit", {"session": 3, "presenter_name": "Tom"})
    await run(env, "setup website", {"enabled": True, "slug": "reading-club"}, member=env.admin)
    async with env.bot.session_factory() as session, session.begin():
        from db.models.core import SiteSettings

        row = await session.get(SiteSettings, env.guild.id)
        assert row is not None
        row.discord_invite = INVITE
    assert env.bot.web is not None
    home = f"{env.bot.web.public_url}/reading-club/"

    html = await fetch(home)
    assert_nothing_runs(html)
    upcoming = html.split('aria-labelledby="next"')[1].split("</section>")[0]
    lines = [text_of(line) for line in re.findall(r'<p class="line">(.*?)</p>', upcoming, flags=re.S)]
    claim = "Open — claim it in the Discord with “I'll present”. Sign up."
    assert lines[:5] == [
        f"Thursday 3 December, 9:30 AM PT / 5:30 PM GMT / 11:00 PM IST — Thursday paper club. {claim}",
        "Thursday 10 December, 9:30 AM PT / 5:30 PM GMT / 11:00 PM IST — Thursday paper club. Sam presents TMax, "
        "read against T1. Sign up.",
        "Thursday 17 December, 9:30 AM PT / 5:30 PM GMT / 11:00 PM IST — Thursday paper club. Tom presents (no "
        "paper yet). Sign up.",
        "Thursday 24 December — No Thursday paper club this week: Christmas Eve.",
        f"Thursday 31 December, 9:30 AM PT / 5:30 PM GMT / 11:00 PM IST — Thursday paper club. {claim}",
    ]
    discord_links = [a.get("href") for tag, a in parse(html).tags if tag == "a" and a.get("href") == INVITE]
    assert len(discord_links) == 6  # each open week (five)'s "Discord", and Suggesting a paper's

    week = text_of((await fetch(f"{home}sessions/1/")).split("<main")[1])
    assert week.count("Sign up") == 1
    assert claim.removesuffix(" Sign up.") in week
