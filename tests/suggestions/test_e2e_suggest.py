"""/suggest end to end: slash and modal paths, posting (forum and text), duplicates, arXiv trouble, bad input."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.papers import parse_paper_ref
from bot.services.papers.store import get_or_create_paper
from db.models import ClubSession, SessionPaper
from tests.suggestions.conftest import TAU_BENCH
from tests.suggestions.helpers import (
    EPHEMERAL,
    button,
    card,
    cog,
    latest_suggestion_id,
    paper_link,
    post_fields,
    post_of,
    post_title,
    suggest,
    use_channel,
)


async def test_commands_are_synced_with_described_options(discord_env) -> None:
    commands = {c["name"]: c for c in discord_env.standin.commands()}
    assert {"suggest", "organize"} <= set(commands)
    subcommands = {o["name"]: o for o in commands["suggest"]["options"]}
    assert set(subcommands) == {"paper", "list", "show", "withdraw"}
    organize = {o["name"]: o for o in commands["organize"]["options"]}
    reviewing = {o["name"]: o for o in organize["suggestions"]["options"]}
    assert set(reviewing) == {"review", "poll"}
    for option in [o for s in [*subcommands.values(), *reviewing.values()] for o in s.get("options", [])]:
        assert option["description"], option
    why = next(o for o in subcommands["paper"]["options"] if o["name"] == "why")
    assert why["max_length"] == 1000


async def test_suggest_arxiv_link_in_forum_channel(discord_env, arxiv) -> None:
    env = discord_env
    await use_channel(env)
    result = await env.invoke(
        "suggest paper",
        {
            "paper": "https://arxiv.org/pdf/2406.12045v2",
            "why": "Tau2 builds on it @everyone",
            "topic": "Benchmark validity",
        },
        member=env.members[0],
    )
    first = await result.response()
    assert first.deferred
    assert first.ephemeral
    final = await result.final()
    assert final.flags & EPHEMERAL
    assert "Thanks! **Tau-Bench" in final.content
    assert "is saved and posted" in final.content
    assert not final.embeds  # the post is linked, not repeated
    assert arxiv.requests == ["2406.12045"]

    thread = next(t for t in env.standin.threads if t.parent_id == env.suggestions.id)
    assert thread.name == TAU_BENCH[:100]
    assert thread.payload()["applied_tags"] == [str(env.suggestions.tag_id("benchmark validity"))]
    post = await post_of(env, await latest_suggestion_id(env))
    assert final.content.endswith(f"https://discord.com/channels/{env.guild.id}/{thread.id}/{post.id}")
    assert post.channel_id == thread.id
    assert post.is_components_v2
    assert post_title(post) == TAU_BENCH
    assert paper_link(post) == "https://arxiv.org/abs/2406.12045"
    info = post_fields(post)
    assert info["Suggested by"] == f"<@{env.members[0].id}> on Monday 30 November"
    assert info["Authors"] == "Shunyu Yao, Noah Shinn"
    assert info["Published"] == "17 June 2024"  # the club's date style, not ISO
    assert info["Topic"] == "benchmark validity"
    assert "Votes" not in info  # the Upvote button says it
    assert "#" not in "\n".join(post.text_displays).removeprefix("## ")  # no suggestion number
    assert "**Why:** Tau2 builds on it @everyone" in post.text_displays[1]
    # The @everyone in the member's text pings nobody: the bot asked for no mentions, and none happened.
    [created] = env.standin.requests_to("POST", rf"^/channels/{env.suggestions.id}/threads$")
    assert created.json["message"]["allowed_mentions"]["parse"] == []
    assert post.payload["mention_everyone"] is False
    assert post.payload["mentions"] == []
    assert post.payload["mention_roles"] == []
    assert button(post, "sugg:vote:")["label"] == "Upvote · 0"
    assert button(post, "sugg:present:")["label"] == "I'd present this"


async def test_suggest_in_text_channel_posts_a_message(discord_env) -> None:
    env = discord_env
    await use_channel(env, env.general)
    final = await suggest(env, env.members[1], paper="doi:10.1145/3366423.3380211", title="A *bold* [title]")
    assert "Thanks" in final.content
    post = env.messages_in(env.general)[-1]
    assert post.text_displays[0] == r"## A \*bold\* [title]"  # markdown escaped once
    assert post_title(post) == "A *bold* [title]"  # shown as typed
    assert paper_link(post) == "https://doi.org/10.1145/3366423.3380211"
    assert button(post, "sugg:vote:")


async def test_modal_path(discord_env) -> None:
    env = discord_env
    await use_channel(env)
    opened = await (
        await env.invoke("suggest paper", {"topic": "user simulators"}, member=env.members[2])
    ).response()
    assert opened.modal is not None
    assert opened.modal["title"] == "Suggest a paper"
    result = await env.submit_modal(
        opened,
        {
            "paper": "https://openreview.net/forum?id=AbC123xyz",
            "title": "Simulated users",
            "why": "Relevant.",
        },
        member=env.members[2],
    )
    final = await result.final()
    assert "Thanks" in final.content
    shown = await card(env, await latest_suggestion_id(env))
    assert shown.paper.key == "openreview:AbC123xyz"
    assert shown.paper.title == "Simulated users"
    assert shown.topic == "user simulators"
    assert shown.reason == "Relevant."


async def test_modal_bad_input_is_ephemeral_and_stores_nothing(discord_env) -> None:
    env = discord_env
    await use_channel(env)
    opened = await (await env.invoke("suggest paper", member=env.members[0])).response()
    result = await env.submit_modal(opened, {"paper": "javascript:alert(1)"}, member=env.members[0])
    answer = await result.response()
    assert answer.ephemeral
    assert "http(s)" in answer.content
    opened = await (await env.invoke("suggest paper", member=env.members[0])).response()
    result = await env.submit_modal(opened, {"paper": "  \n "}, member=env.members[0])
    answer = await result.response()
    assert answer.ephemeral
    assert "Give a paper" in answer.content
    assert env.standin.threads == []


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"paper": "   "}, "Give a paper"),
        ({"paper": "ftp://example.com/x.pdf"}, "http(s)"),
        ({"paper": "2406.12045", "why": "  "}, "Why is empty"),
        ({"paper": "2406.12045", "topic": "astrology"}, "not a topic"),
        ({"paper": "2406.99999"}, "arXiv has no paper with the id 2406.99999"),
    ],
)
async def test_bad_input_is_ephemeral_and_stores_nothing(discord_env, options, expected) -> None:
    env = discord_env
    await use_channel(env)
    answer = await suggest(env, env.members[0], **options)
    assert answer.flags & EPHEMERAL if hasattr(answer, "flags") else answer.ephemeral
    assert expected in answer.content
    assert env.standin.threads == []


async def test_not_configured(discord_env) -> None:
    answer = await suggest(discord_env, discord_env.members[0], paper="2406.12045")
    assert answer.ephemeral
    assert "/setup suggestions" in answer.content


async def test_duplicates_by_link_variant_and_fuzzy_title(discord_env, arxiv) -> None:
    env = discord_env
    await use_channel(env)
    rita, sam, tom = env.members
    await suggest(env, rita, paper="https://arxiv.org/abs/2406.12045")
    sid = await latest_suggestion_id(env)
    dup = await suggest(env, sam, paper="arxiv.org/pdf/2406.12045v1.pdf")
    post = await post_of(env, sid)
    assert f"was already suggested by <@{rita.id}> on Monday 30 November" in dup.content
    assert "so your vote went to it (1 vote now)" in dup.content
    assert dup.content.endswith(
        f"Its post: https://discord.com/channels/{env.guild.id}/{post.channel_id}/{post.id}"
    )
    assert arxiv.requests == ["2406.12045"]  # the duplicate needed no lookup
    fuzzy = await suggest(
        env, tom, paper="tau bench: a benchmark for tool agent user interaction in real world domain"
    )
    assert "already suggested" in fuzzy.content
    assert "2 votes now" in fuzzy.content
    again = await suggest(env, sam, paper="2406.12045")
    assert "you had already voted" in again.content
    own = await suggest(env, rita, paper="2406.12045")
    assert own.content.startswith("You already suggested")
    assert len(env.standin.threads) == 1
    post = await post_of(env, sid)
    assert button(post, "sugg:vote:")["label"] == "Upvote · 2"


async def test_duplicate_of_a_paper_already_read(discord_env) -> None:
    env = discord_env
    await use_channel(env)
    async with env.bot.session_factory() as s, s.begin():
        row = ClubSession(
            guild_id=env.guild.id,
            title="Tool-graph environment synthesis",
            starts_at=env.clock.now() - timedelta(days=240),
            timezone="America/Los_Angeles",
            status="scheduled",
        )
        s.add(row)
        await s.flush()
        paper = await get_or_create_paper(s, env.guild.id, parse_paper_ref("2406.12045"), title=TAU_BENCH)
        s.add(SessionPaper(session_id=row.id, paper_id=paper.id, position=0))
    answer = await suggest(env, env.members[0], paper="https://arxiv.org/abs/2406.12045v3")
    assert "already read" in answer.content
    assert "4 April" in answer.content
    assert "Tool-graph environment synthesis" in answer.content
    assert env.standin.threads == []


async def test_arxiv_down_saves_and_enriches_later(discord_env, arxiv) -> None:
    env = discord_env
    await use_channel(env)
    arxiv.mode = "down"
    answer = await suggest(env, env.members[0], paper="2406.12045")
    assert "Thanks" in answer.content
    assert "arXiv did not answer" in answer.content
    sid = await latest_suggestion_id(env)
    post = await post_of(env, sid)
    assert post_title(post) == "arXiv:2406.12045"
    arxiv.mode = "ok"
    await env.clock.advance(timedelta(minutes=15))  # the periodic check runs on the clock
    post = await post_of(env, sid)
    assert post_title(post) == TAU_BENCH
    assert post_fields(post)["Authors"] == "Shunyu Yao, Noah Shinn"


async def test_arxiv_slow_never_breaks_the_interaction(discord_env, arxiv) -> None:
    env = discord_env
    await use_channel(env)
    cog(env).ctx.arxiv.timeout = 0.3
    arxiv.mode, arxiv.delay = "slow", 5.0
    result = await env.invoke("suggest paper", {"paper": "2401.12345"}, member=env.members[0])
    assert (await result.response()).deferred  # answered within Discord's 3 seconds
    final = await result.final(timeout=10)
    assert "arXiv did not answer" in final.content
    assert len(arxiv.requests) == 2  # one retry


async def test_daily_cap(discord_env, arxiv) -> None:
    env = discord_env
    await use_channel(env)
    for i in range(5):
        assert (
            "Thanks"
            in (await suggest(env, env.members[0], paper=f"Paper number {i} on environments")).content
        )
    refused = await suggest(env, env.members[0], paper="One too many")
    assert "limit is 5 a day" in refused.content
    assert refused.ephemeral
    assert len(env.standin.threads) == 5


async def test_suggest_defers_before_fetching_the_channel(discord_env, monkeypatch) -> None:
    env = discord_env
    await use_channel(env)
    cached = env.bot.get_channel
    monkeypatch.setattr(
        env.bot,
        "get_channel",
        lambda channel_id: None if channel_id == env.suggestions.id else cached(channel_id),
    )
    start = len(env.requests)
    answer = await suggest(env, env.members[0], paper="2406.12045")
    assert "Thanks" in answer.content
    paths = [r.path for r in env.requests[start:]]
    fetched = paths.index(f"/channels/{env.suggestions.id}")
    deferred = next(i for i, p in enumerate(paths) if p.startswith("/interactions/"))
    assert deferred < fetched, paths
