"""/privacy end to end, through the stand-in with the real discord.py client, on both stores: what it lists
(exactly what the member did, nothing of another member or server), what *Delete my data* does (the feed
404s, no reminder DM afterwards, the post says "a member", the counts follow, a presenter shown on the club
page stays), and what it refuses (another member, a forged or stale id, twice)."""

from __future__ import annotations

import copy
import logging
import re
from datetime import timedelta
from typing import Any

import aiohttp
import pytest

from bot.demo.botenv import BotEnv
from bot.services.privacy.actions import ELSEWHERE, EXPIRED, NOT_YOURS
from db.models import ClubSession
from standin.state import EPHEMERAL, Message
from tests.privacy.helpers import (
    ask,
    button,
    club,
    confirm,
    counts,
    delete_my_data,
    other_server,
    privacy,
    settle,
)
from tests.suggestions.helpers import post_fields, post_of

LINE = re.compile(r"^- \*\*(?P<kind>[^*]+)\*\* · (?P<n>\d+) — ", re.M)


@pytest.fixture
def bot_settings_overrides(arxiv: Any) -> dict[str, Any]:
    return {"arxiv_api_url": arxiv.url, "web_port": 0}


def listed(message: Message) -> dict[str, int]:
    """/privacy's groups and counts."""
    return {m["kind"]: int(m["n"]) for m in LINE.finditer(message.text)}


async def status_of(url: str) -> int:
    async with aiohttp.ClientSession() as http, http.get(url) as answer:
        return answer.status


def dms_about(env: BotEnv, member: Any, title: str) -> list[Message]:
    return [m for m in env.dm_messages(member) if title in m.text]


async def test_privacy_lists_exactly_what_the_member_did(discord_env: BotEnv) -> None:
    env = discord_env
    rita, sam, tom = env.members
    await club(env, website=True)
    other = await other_server(env, rita)  # her Remind me and feed there are not this server's
    shown = await privacy(env, rita)
    assert shown.flags & EPHEMERAL
    assert listed(shown) == {
        "Suggestions": 1,
        "Votes": 1,
        "Offers to present": 1,
        "Presenter history": 1,
        "Remind me": 1,
        "Reminders to you": 3,  # her Remind me DM, and the presenter's before and after Session A
        "Personal calendar feed": 1,
    }
    assert button(shown, "privacy:ask:")["custom_id"] == f"privacy:ask:{env.guild.id}"
    assert listed(await privacy(env, sam)) == {
        "Suggestions": 1,
        "Votes": 1,
        "Remind me": 1,
        "Reminders to you": 1,
    }
    nothing = await privacy(env, tom)
    assert listed(nothing) == {}
    assert "Nothing:" in nothing.text
    assert not [b for b in nothing.buttons if b.get("custom_id")]
    # from a DM with the bot: every server that holds her data, each with its counts
    everywhere = await privacy(env, rita, env.standin.state.dm_channel(rita.user))
    assert "In every server you share with the bot" in everywhere.text
    assert "**Paper Club** — Suggestions 1 · Votes 1 · Offers to present 1" in everywhere.text
    assert "**Other Club** — Remind me 1 · Personal calendar feed 1" in everywhere.text
    assert button(everywhere, "privacy:ask:")["custom_id"] == "privacy:ask:0"
    assert other != env.guild.id


async def test_delete_with_the_club_page_on(discord_env: BotEnv, caplog: pytest.LogCaptureFixture) -> None:
    """The feed answers 404 at once, the posts follow, her name stays on the session the club page shows
    (and the reply says so), and no Remind me DM comes afterwards. The log says ids, not what she typed."""
    caplog.set_level(logging.INFO, logger="paperclub")
    env = discord_env
    rita, sam = env.members[0], env.members[1]
    done = await club(env, website=True)
    assert done.feed is not None
    assert await status_of(done.feed) == 200
    await other_server(env, rita)
    sams = await counts(env, sam.id)
    _, outcome = await delete_my_data(env, rita)
    text = outcome.text
    assert "Your data in Paper Club is deleted:" in text
    assert "- **Votes** (1): Removed; the counts on the posts go down." in text
    assert "- **Presenter history**: 1 kept — the server's club page shows you presenting them" in text
    assert "- **Personal calendar feed** (1): Removed" in text
    assert not [b for b in outcome.buttons if b.get("custom_id")]  # the confirmation is spent
    assert await status_of(done.feed) == 404
    theirs_post = await post_of(env, done.theirs)
    assert button(theirs_post, "sugg:vote:")["label"] == "Upvote · 0"
    assert post_fields(theirs_post)["Offered to present"].startswith("nobody yet")
    mine_post = await post_of(env, done.mine)
    assert post_fields(mine_post)["Suggested by"].startswith("a member on ")
    assert button(mine_post, "sugg:vote:")["label"] == "Upvote · 1"  # sam's vote is his
    assert await counts(env, rita.id) == {
        "suggestions": 0,
        "votes": 0,
        "offers": 0,
        "subscriptions": 1,  # in the other server
        "reminders": 2,  # the presenter's DMs of the session the club page shows her presenting
        "feeds": 1,  # the other server's
        "presenting": 1,
    }
    assert await counts(env, sam.id) == sams
    await env.clock.advance(timedelta(days=11))  # past Session B (10 December)
    await settle(env)
    assert dms_about(env, rita, "Session B") == []
    assert dms_about(env, sam, "Session B")
    assert "interaction command=" in caplog.text  # the log was heard
    for typed in ("Worth it", "Paper Mine", "Paper Theirs"):  # her reason, and the titles typed
        assert typed not in caplog.text


async def test_delete_with_the_club_page_off_drops_the_presenter(discord_env: BotEnv) -> None:
    env = discord_env
    rita = env.members[0]
    done = await club(env, website=False)
    announcement = env.messages_in(env.announcements)[-1]
    assert f"<@{rita.id}>" in announcement.text
    _, outcome = await delete_my_data(env, rita)
    assert "- **Presenter history** (1): The sessions stay without your name" in outcome.text
    async with env.bot.session_factory() as session:
        presented = await session.get(ClubSession, done.presented)
    assert presented is not None
    assert (presented.presenter_id, presented.presenter_name) == (None, None)
    assert f"<@{rita.id}>" not in env.standin.message(announcement.id).text  # the announcement followed
    before = len(env.dm_messages(rita))
    await env.clock.advance(timedelta(days=11))
    await settle(env)
    assert len(env.dm_messages(rita)) == before  # no reminder or presenter DM afterwards
    assert await counts(env, rita.id) == dict.fromkeys(
        ("suggestions", "votes", "offers", "subscriptions", "reminders", "feeds", "presenting"), 0
    )


async def test_the_confirmation_by_another_member_forged_stale_or_twice_changes_nothing(
    discord_env: BotEnv,
) -> None:
    env = discord_env
    rita, sam = env.members[0], env.members[1]
    await club(env, website=False)
    other = await other_server(env, rita)
    confirmation = await ask(env, await privacy(env, rita), rita)
    assert "**Delete your data in Paper Club?** This cannot be undone." in confirmation.text
    custom_id = button(confirmation, "privacy:delete:")["custom_id"]
    _, scope, user, issued = custom_id.rsplit(":", 3)
    assert (int(scope), int(user)) == (env.guild.id, rita.id)
    before = {m.id: await counts(env, m.id) for m in env.members}
    refusals = [
        (sam, custom_id, NOT_YOURS),  # another member presses it
        (rita, f"privacy:delete:{env.guild.id}:{sam.id}:{issued}", NOT_YOURS),  # her press, naming sam
        (rita, f"privacy:delete:{other}:{rita.id}:{issued}", ELSEWHERE),  # another server's
        (rita, f"privacy:delete:0:{rita.id}:{issued}", ELSEWHERE),  # a DM's, pressed here
        (rita, f"privacy:delete:{env.guild.id}:{rita.id}:{int(issued) - 11 * 60}", EXPIRED),
        (rita, f"privacy:delete:{env.guild.id}:{rita.id}:{int(issued) + 3600}", EXPIRED),
    ]
    for member, forged_id, refusal in refusals:
        answer = await confirm(env, confirmation, member, custom_id=forged_id, forged=forged_id != custom_id)
        assert answer.flags & EPHEMERAL
        assert answer.text == refusal, forged_id
    assert {m.id: await counts(env, m.id) for m in env.members} == before
    as_shown = Message(copy.deepcopy(confirmation.payload), ephemeral=True)  # before the press edits it
    done = await confirm(env, confirmation, rita)
    assert "Your data in Paper Club is deleted:" in done.text
    after = {m.id: await counts(env, m.id) for m in env.members}
    again = await confirm(env, as_shown, rita)  # pressed twice (the second press before the edit)
    assert again.text == "There is nothing of yours left to delete in Paper Club."
    assert {m.id: await counts(env, m.id) for m in env.members} == after
    assert after[sam.id] == before[sam.id]
    assert after[rita.id]["subscriptions"] == 1  # the other server's, untouched from this one


async def test_from_a_dm_every_server_is_deleted(discord_env: BotEnv) -> None:
    env = discord_env
    rita, sam = env.members[0], env.members[1]
    await club(env, website=True)
    await other_server(env, rita)
    sams = await counts(env, sam.id)
    dm = env.standin.state.dm_channel(rita.user)
    confirmation = await ask(env, await privacy(env, rita, dm), rita)
    assert confirmation.text.startswith("**Delete your data in every server you share with the bot?**")
    assert "- **Remind me** (2): Removed" in confirmation.text
    outcome = await confirm(env, confirmation, rita)
    assert "Your data in every server you share with the bot is deleted:" in outcome.text
    assert "- **Remind me** (2): Removed" in outcome.text  # one in each server
    assert await counts(env, rita.id) == {
        "suggestions": 0,
        "votes": 0,
        "offers": 0,
        "subscriptions": 0,
        "reminders": 2,  # the presenter's DMs: the club page shows her presenting Session A
        "feeds": 0,
        "presenting": 1,
    }
    assert await counts(env, sam.id) == sams
