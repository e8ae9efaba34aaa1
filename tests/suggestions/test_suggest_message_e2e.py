""" "Suggest this paper" (right-click a message → Apps): the form filled from a message with 1 or 3 paper
links, credited to the member who used it and linking back; 0 links, the bot's own, a deleted or an
unreadable message answered ephemerally with nothing stored."""

from __future__ import annotations

from sqlalchemy import func, select

from db.models.suggestions import Suggestion
from standin.state import READ_MESSAGE_HISTORY
from tests.suggestions.helpers import (
    card,
    latest_suggestion_id,
    post_fields,
    post_of,
    use_channel,
)

LABEL, TEXT_INPUT, STRING_SELECT = 18, 4, 3
MENU = "Suggest this paper"


async def _count(env) -> int:
    async with env.bot.session_factory() as session:
        return (await session.execute(select(func.count()).select_from(Suggestion))).scalar_one()


async def test_the_command_is_synced_as_a_message_command(discord_env) -> None:
    synced = {(c["type"], c["name"]) for c in discord_env.standin.commands()}
    assert (3, MENU) in synced


async def test_one_link_fills_the_form_and_the_post_links_back(discord_env) -> None:
    env = discord_env
    await use_channel(env)
    author, clicker = env.members[0], env.members[1]
    posted = await env.standin.post_as(
        author, env.general, "Worth a read: <https://example.org/papers/tmax>!"
    )
    opened = await (await env.invoke_message_command(MENU, posted, member=clicker)).response()
    assert opened.modal is not None
    paper = opened.modal["components"][0]
    assert paper["type"] == LABEL
    assert paper["component"]["type"] == TEXT_INPUT
    assert paper["component"]["value"] == "https://example.org/papers/tmax"
    result = await env.submit_modal(opened, {"title": "TMax", "why": "Agents in terminals."}, member=clicker)
    assert "Thanks" in (await result.final()).content
    shown = await card(env, await latest_suggestion_id(env))
    assert shown.submitter_id == clicker.id  # credited to the member who used the command
    assert shown.paper.key == "url:https://example.org/papers/tmax"
    link = f"https://discord.com/channels/{env.guild.id}/{env.general.id}/{posted.id}"
    assert shown.source_url == link
    post = await post_of(env, shown.id)
    assert (
        post_fields(post)["Suggested by"] == f"<@{clicker.id}> from [a message]({link}) on Monday 30 November"
    )


async def test_three_links_offer_a_choice_of_paper(discord_env) -> None:
    env = discord_env
    await use_channel(env)
    text = (
        "Three for the list: https://arxiv.org/abs/2401.12345, doi:10.1145/3366423.3380211 and "
        "https://openreview.net/forum?id=AbC123xyz (plus https://discord.com/channels/1/2/3)"
    )
    posted = await env.standin.post_as(env.members[0], env.general, text)
    opened = await (await env.invoke_message_command(MENU, posted, member=env.members[1])).response()
    paper = opened.modal["components"][0]["component"]
    assert paper["type"] == STRING_SELECT
    assert [o["label"] for o in paper["options"]] == [
        "https://arxiv.org/abs/2401.12345",
        "doi:10.1145/3366423.3380211",
        "https://openreview.net/forum?id=AbC123xyz",
    ]
    assert [o.get("default", False) for o in paper["options"]] == [True, False, False]
    # a value that was never offered (a modified client) is refused, nothing stored
    forged = await env.submit_modal(opened, {"paper": ["7"]}, member=env.members[1], forged=True)
    answer = await forged.response()
    assert answer.ephemeral
    assert "not one of the links" in answer.content
    assert await _count(env) == 0
    result = await env.submit_modal(opened, {"paper": ["2"]}, member=env.members[1])
    assert "Thanks" in (await result.final()).content
    assert (await card(env, await latest_suggestion_id(env))).paper.key == "openreview:AbC123xyz"


async def test_messages_it_cannot_use_are_answered_ephemerally(discord_env) -> None:
    env = discord_env
    await use_channel(env)
    member = env.members[1]
    cases = []
    plain = await env.standin.post_as(env.members[0], env.general, "no links here, only TMax and @everyone")
    cases.append((plain, "no paper link in that message"))
    own = env.standin.message(
        (await env.bot.get_channel(env.general.id).send("my own https://arxiv.org/abs/2401.12345")).id
    )
    cases.append((own, "one of my own messages"))
    for message, expected in cases:
        answer = await (await env.invoke_message_command(MENU, message, member=member)).response()
        assert answer.ephemeral, expected
        assert expected in answer.content, answer.content
        assert answer.modal is None
    assert await _count(env) == 0


async def test_a_deleted_message_and_one_without_history_access(discord_env) -> None:
    env = discord_env
    await use_channel(env)
    member = env.members[1]
    posted = await env.standin.post_as(env.members[0], env.general, "https://arxiv.org/abs/2310.06770")
    await env.standin.delete_as(env.members[0], posted)  # the author deletes it as the member clicks
    answer = await (await env.invoke_message_command(MENU, posted, member=member)).response()
    assert answer.ephemeral
    assert "was deleted" in answer.content
    # a member who may see the channel but not read its history
    await env.standin.set_overwrite(env.general, member, deny=READ_MESSAGE_HISTORY)
    other = await env.standin.post_as(env.members[0], env.general, "https://arxiv.org/abs/2401.12345")
    answer = await (await env.invoke_message_command(MENU, other, member=member)).response()
    assert answer.ephemeral
    assert "cannot read the messages" in answer.content
    assert await _count(env) == 0
