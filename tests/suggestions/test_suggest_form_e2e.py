"""/suggest's form as Discord's 2025-26 modals draw it: each field in a Label, the topic a select of the
guild's topics, "I'd present this" a checkbox; every choice submitted, a forged topic refused."""

from __future__ import annotations

from bot.services.config.guild import get_config
from tests.suggestions.helpers import card, latest_suggestion_id, post_of, use_channel

LABEL, TEXT_INPUT, STRING_SELECT, CHECKBOX = 18, 4, 3, 23


async def _open(env, member, **options):
    opened = await (await env.invoke("suggest paper", options, member=member)).response()
    assert opened.modal is not None
    return opened


async def _topics(env) -> tuple[str, ...]:
    async with env.bot.session_factory() as session:
        return (await get_config(session, env.guild.id)).suggestion_topics


async def test_the_form_is_labelled_with_a_topic_select_and_a_checkbox(discord_env) -> None:
    env = discord_env
    await use_channel(env)
    topics = await _topics(env)
    opened = await _open(env, env.members[0], topic=topics[1].upper())
    components = opened.modal["components"]
    assert len(components) <= 5
    assert all(c["type"] == LABEL for c in components)
    by_id = {c["component"]["custom_id"]: c for c in components}
    assert [c["component"]["type"] for c in components] == [
        TEXT_INPUT,
        TEXT_INPUT,
        TEXT_INPUT,
        STRING_SELECT,
        CHECKBOX,
    ]
    assert by_id["paper"]["label"] == "Paper"
    assert by_id["paper"]["description"]
    select = by_id["topic"]["component"]
    assert [o["value"] for o in select["options"]] == list(topics)
    # the topic given to the command comes pre-selected, in the guild's spelling
    assert [o["value"] for o in select["options"] if o.get("default")] == [topics[1]]
    assert by_id["volunteer"]["label"] == "I'd present this"


async def test_each_topic_and_the_checkbox_are_stored_as_chosen(discord_env) -> None:
    env = discord_env
    await use_channel(env)
    topics = await _topics(env)
    member = env.members[1]
    for i, topic in enumerate(topics):
        opened = await _open(env, member)
        volunteer = i % 2 == 0
        result = await env.submit_modal(
            opened,
            {
                "paper": f"https://example.org/papers/{i}",
                "title": f"A paper about {topic}",
                "topic": [topic],
                "volunteer": volunteer,
            },
            member=member,
        )
        final = await result.final()
        assert "Thanks" in final.content, final.content
        assert ("You offered to present it" in final.content) is volunteer
        shown = await card(env, await latest_suggestion_id(env))
        assert shown.topic == topic
        assert shown.volunteer_ids == ((member.id,) if volunteer else ())
        if volunteer:  # the post counts the offer at once
            post = await post_of(env, shown.id)
            present = next(b for b in post.buttons if b["custom_id"].startswith("sugg:present:"))
            assert present["label"].endswith("· 1")
        if i == 1:
            break  # the daily cap; the rest of the topics go through another member below
    for i, topic in enumerate(topics[2:], start=2):
        other = env.members[2 + (i // 2) % (len(env.members) - 2)]
        opened = await _open(env, other)
        result = await env.submit_modal(
            opened, {"paper": f"https://example.org/papers/{i}", "topic": [topic]}, member=other
        )
        assert "Thanks" in (await result.final()).content
        assert (await card(env, await latest_suggestion_id(env))).topic == topic


async def test_no_topic_picked_stores_none(discord_env) -> None:
    env = discord_env
    await use_channel(env)
    opened = await _open(env, env.members[0])
    result = await env.submit_modal(opened, {"paper": "https://example.org/p/none"}, member=env.members[0])
    assert "Thanks" in (await result.final()).content
    shown = await card(env, await latest_suggestion_id(env))
    assert shown.topic is None
    assert shown.volunteer_ids == ()


async def test_a_forged_topic_is_refused_and_nothing_is_stored(discord_env) -> None:
    env = discord_env
    await use_channel(env)
    opened = await _open(env, env.members[0])
    result = await env.submit_modal(
        opened,
        {"paper": "https://example.org/p/forged", "topic": ["not a topic @everyone"], "volunteer": True},
        member=env.members[0],
        forged=True,
    )
    answer = await result.response()
    assert answer.ephemeral
    assert "is not a topic here" in answer.content
    async with env.bot.session_factory() as session:
        from sqlalchemy import func, select

        from db.models.suggestions import Suggestion

        assert (await session.execute(select(func.count()).select_from(Suggestion))).scalar_one() == 0


async def test_ticking_present_on_a_paper_already_suggested_adds_the_offer(discord_env) -> None:
    env = discord_env
    await use_channel(env)
    first = await _open(env, env.members[0])
    await (
        await env.submit_modal(first, {"paper": "https://example.org/p/twice"}, member=env.members[0])
    ).final()
    again = await _open(env, env.members[1])
    result = await env.submit_modal(
        again, {"paper": "https://example.org/p/twice", "volunteer": True}, member=env.members[1]
    )
    text = (await result.final()).content
    assert "already suggested" in text
    assert "Your offer to present it was added." in text
    shown = await card(env, await latest_suggestion_id(env))
    assert shown.volunteer_ids == (env.members[1].id,)
