""" "Add to reading list" (right-click a message → Apps, organizers): the form filled from the message's
links, the list picked from a select or named new, a note; members refused; bad answers change nothing."""

from __future__ import annotations

import pytest

from bot.demo.botenv import BotEnv
from bot.services.reading.lists import named_list
from tests.reading.conftest import import_club

MENU = "Add to reading list"
LABEL, TEXT_INPUT, STRING_SELECT = 18, 4, 3


@pytest.fixture
async def env(discord_env: BotEnv) -> BotEnv:
    """The club's programme imported (its lists: ITSMBench, WorldSmith)."""
    await import_club(discord_env.bot.session_factory, discord_env.guild.id)
    return discord_env


async def _papers(env: BotEnv, name: str) -> list[str]:
    async with env.bot.session_factory() as session:
        return [item.paper.key for item in (await named_list(session, env.guild.id, name)).items]


async def test_organizers_add_the_linked_paper_to_a_picked_list(env: BotEnv) -> None:
    assert (3, MENU) in {(c["type"], c["name"]) for c in env.standin.commands()}
    posted = await env.standin.post_as(env.member, env.general, "New one: https://arxiv.org/abs/2406.12045v2")
    before = await _papers(env, "WorldSmith")
    opened = await (await env.invoke_message_command(MENU, posted, member=env.organizer)).response()
    assert opened.modal is not None
    paper, lists, new, note = opened.modal["components"]
    assert paper["component"]["value"] == "https://arxiv.org/abs/2406.12045v2"
    assert lists["component"]["type"] == STRING_SELECT
    names = [o["label"] for o in lists["component"]["options"]]
    assert names == ["ITSMBench", "WorldSmith"]
    assert new["component"]["required"] is False
    result = await env.submit_modal(
        opened,
        {"list": [str(names.index("WorldSmith"))], "note": "@everyone from chat"},
        member=env.organizer,
    )
    answer = await result.final()
    assert answer.flags & (1 << 6)
    assert "to **WorldSmith**" in answer.content
    assert await _papers(env, "WorldSmith") == [*before, "arxiv:2406.12045"]


async def test_a_new_list_from_three_links(env: BotEnv) -> None:
    text = "https://arxiv.org/abs/2401.12345 then https://arxiv.org/abs/2310.06770 and doi:10.1145/3366423.3380211"
    posted = await env.standin.post_as(env.member, env.general, text)
    opened = await (await env.invoke_message_command(MENU, posted, member=env.organizer)).response()
    paper = opened.modal["components"][0]["component"]
    assert paper["type"] == STRING_SELECT
    assert len(paper["options"]) == 3
    result = await env.submit_modal(opened, {"paper": ["1"], "new_list": "Agents"}, member=env.organizer)
    assert "(a new list)" in (await result.final()).content
    assert await _papers(env, "Agents") == ["arxiv:2310.06770"]


async def test_refusals_store_nothing(env: BotEnv) -> None:
    posted = await env.standin.post_as(env.member, env.general, "https://arxiv.org/abs/2406.12045")
    # a member who is not an organizer
    answer = await (await env.invoke_message_command(MENU, posted, member=env.member)).response()
    assert answer.ephemeral
    assert "Only organizers" in answer.content
    # no paper link in the message
    plain = await env.standin.post_as(env.member, env.general, "let's read TMax")
    answer = await (await env.invoke_message_command(MENU, plain, member=env.organizer)).response()
    assert answer.ephemeral
    assert "no paper link in that message" in answer.content
    before = {name: await _papers(env, name) for name in ("ITSMBench", "WorldSmith")}
    # both a list picked and a new one named; neither; a list that was never offered
    for values, expected in [
        ({"list": ["0"], "new_list": "Other"}, "not both"),
        ({}, "Pick a reading list or name a new one"),
        ({"list": ["9"]}, "not one of this server's reading lists"),
    ]:
        opened = await (await env.invoke_message_command(MENU, posted, member=env.organizer)).response()
        result = await env.submit_modal(opened, values, member=env.organizer, forged=True)
        answer = await result.response()
        assert answer.ephemeral
        assert expected in answer.content, answer.content
    assert {name: await _papers(env, name) for name in ("ITSMBench", "WorldSmith")} == before
