"""The post's buttons end to end: Upvote toggles, I'd present this, 50 members at once, after a restart."""

from __future__ import annotations

import asyncio

from tests.suggestions.helpers import (
    button,
    card,
    invoke_to_completion,
    latest_suggestion_id,
    post_fields,
    post_of,
    suggest,
    use_channel,
)


async def _suggested(env) -> tuple[int, object]:
    await use_channel(env)
    await suggest(env, env.members[0], paper="2406.12045", topic="benchmark validity")
    sid = await latest_suggestion_id(env)
    return sid, await post_of(env, sid)


async def test_upvote_toggles_and_updates_the_post(discord_env) -> None:
    env = discord_env
    sid, post = await _suggested(env)
    voter = env.members[1]
    answer = await (await env.click(post, f"sugg:vote:{sid}", member=voter)).response()
    assert answer.ephemeral
    assert "Your vote is in (1 vote now)" in answer.content
    post = await post_of(env, sid)
    assert button(post, "sugg:vote:")["label"] == "Upvote · 1"
    assert "Votes" not in post_fields(post)  # said once, on the button
    answer = await (await env.click(post, f"sugg:vote:{sid}", member=voter)).response()
    assert "taken back (0 votes now)" in answer.content
    post = await post_of(env, sid)
    assert button(post, "sugg:vote:")["label"] == "Upvote · 0"


async def test_volunteer_to_present(discord_env) -> None:
    env = discord_env
    sid, post = await _suggested(env)
    answer = await (await env.click(post, f"sugg:present:{sid}", member=env.members[2])).response()
    assert answer.ephemeral
    assert "offered to present" in answer.content
    post = await post_of(env, sid)
    assert button(post, "sugg:present:")["label"] == "I'd present this · 1"
    assert post_fields(post)["Offered to present"] == f"<@{env.members[2].id}>"
    shown = await (
        await env.invoke("suggest show", {"suggestion": str(sid)}, member=env.members[1])
    ).response()
    assert shown.ephemeral
    assert shown.message is not None
    assert shown.message.is_components_v2
    assert post_fields(shown.message)["Offered to present"] == f"<@{env.members[2].id}>"
    assert post_fields(shown.message)["Voted for it"] == "nobody yet"
    assert [b["label"] for b in shown.message.buttons] == ["Post", "arXiv"]  # the post linked, no votes here


async def test_fifty_members_vote_at_once(discord_env) -> None:
    env = discord_env
    sid, post = await _suggested(env)
    voters = [await env.standin.create_member(env.guild, f"voter{i}") for i in range(50)]
    results = await asyncio.gather(*(env.click(post, f"sugg:vote:{sid}", member=v) for v in voters))
    answers = await asyncio.gather(*(r.response(timeout=30) for r in results))
    assert all("Your vote is in" in a.content for a in answers)
    assert (await card(env, sid)).votes == 50
    post = await post_of(env, sid)
    assert button(post, "sugg:vote:")["label"] == "Upvote · 50"  # the post ends on the stored count
    assert not [r for r in env.requests if r.status >= 500]


async def test_buttons_work_after_a_restart(discord_env) -> None:
    env = discord_env
    sid, post = await _suggested(env)
    await (await env.click(post, f"sugg:vote:{sid}", member=env.members[1])).response()
    await env.restart_bot()
    answer = await (await env.click(post, f"sugg:vote:{sid}", member=env.members[2])).response()
    assert "Your vote is in (2 votes now)" in answer.content
    answer = await (await env.click(post, f"sugg:present:{sid}", member=env.members[2])).response()
    assert "offered to present" in answer.content
    post = await post_of(env, sid)
    assert button(post, "sugg:vote:")["label"] == "Upvote · 2"


async def test_votes_closed_after_withdrawal(discord_env) -> None:
    env = discord_env
    sid, post = await _suggested(env)
    done = await (
        await invoke_to_completion(env, "suggest withdraw", {"suggestion": str(sid)}, member=env.members[0])
    ).response()
    assert done.ephemeral
    assert "withdrawn" in done.content
    post = await post_of(env, sid)
    assert button(post, "sugg:vote:").get("disabled") is True
    assert "Withdrawn" in post_fields(post)["Status"]
    answer = await (await env.click(post, f"sugg:vote:{sid}", member=env.members[1])).response()
    assert answer.ephemeral
    assert "voting on it is closed" in answer.content
