"""Organizer flows end to end: review (DM, post re-rendered, session from an accepted suggestion),
withdraw, list and show, and the club poll with its result recorded when it ends."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from bot.services.suggestions import polls as polls_module
from db.models.suggestions import SuggestionPoll
from tests.suggestions.conftest import TAU_BENCH
from tests.suggestions.helpers import (
    button,
    card,
    invoke_to_completion,
    latest_suggestion_id,
    post_fields,
    post_of,
    post_title,
    suggest,
    use_channel,
)


async def _suggest_three(env) -> list[int]:
    await use_channel(env)
    ids = []
    for member, paper in zip(
        env.members,
        ["2406.12045", "2506.07982", "Agent World Model: synthetic enterprise worlds"],
        strict=True,
    ):
        await suggest(env, member, paper=paper)
        ids.append(await latest_suggestion_id(env))
    return ids


async def test_review_shortlist_then_accept_tells_submitter_and_rerenders(discord_env) -> None:
    env = discord_env
    sid, *_ = await _suggest_three(env)
    submitter = env.members[0]
    result = await env.invoke(
        "organize suggestions review",
        {"suggestion": str(sid), "decision": "shortlist", "note": "Next month?"},
    )
    assert (await result.response()).deferred
    final = await result.final()
    assert final.flags & (1 << 6)
    assert "is now ⭐ shortlisted" in final.content
    assert "told by DM" in final.content
    dm = env.dm_messages(submitter)[-1]
    assert "was shortlisted by the organizers" in dm.content
    assert "Next month?" in dm.content
    post = await post_of(env, sid)
    info = post_fields(post)
    assert info["Status"] == f"⭐ Shortlisted by <@{env.organizer.id}>"
    assert info["Organizers' note"] == "Next month?"
    thread_lines = [m.content for m in env.messages_in(post.channel_id)]
    assert any("Shortlisted" in line and "Next month?" in line for line in thread_lines)

    final = await (
        await env.invoke("organize suggestions review", {"suggestion": str(sid), "decision": "accept"})
    ).final()
    assert "accepted" in final.content
    assert button(final, "sugg:session:")
    assert "accepted 🎉" in env.dm_messages(submitter)[-1].content
    post = await post_of(env, sid)
    assert post_fields(post)["Status"].startswith("✅ Accepted")


async def test_review_changes_are_allowed_and_dm_failure_is_not_an_error(discord_env) -> None:
    env = discord_env
    await use_channel(env)
    closed = await env.standin.create_member(env.guild, "hermit", dms_closed=True)
    await suggest(env, closed, paper="A paper by someone with closed DMs")
    sid = await latest_suggestion_id(env)
    final = await (
        await env.invoke("organize suggestions review", {"suggestion": str(sid), "decision": "decline"})
    ).final()
    assert "could not DM" in final.content
    final = await (
        await env.invoke("organize suggestions review", {"suggestion": str(sid), "decision": "shortlist"})
    ).final()
    assert "shortlisted" in final.content
    assert (await card(env, sid)).status == "shortlisted"


async def test_review_needs_an_organizer_and_a_suggestion_of_this_guild(discord_env) -> None:
    env = discord_env
    sid, *_ = await _suggest_three(env)
    refused = await (
        await env.invoke(
            "organize suggestions review",
            {"suggestion": str(sid), "decision": "accept"},
            member=env.members[1],
        )
    ).response()
    assert refused.ephemeral
    assert "Only organizers" in refused.content
    missing = await (
        await env.invoke("organize suggestions review", {"suggestion": "987654", "decision": "accept"})
    ).final()
    assert "no suggestion #987654" in missing.content
    assert (await card(env, sid)).status == "open"


async def test_accepted_suggestion_becomes_a_session(discord_env) -> None:
    env = discord_env
    sid, *_ = await _suggest_three(env)
    post = await post_of(env, sid)
    await (await env.click(post, f"sugg:present:{sid}", member=env.members[2])).response()
    final = await (
        await env.invoke("organize suggestions review", {"suggestion": str(sid), "decision": "accept"})
    ).final()
    # a plain member cannot use the organizer's button
    refused = await (await env.click(final, f"sugg:session:{sid}", member=env.members[1])).response()
    assert refused.ephemeral
    assert "Only organizers" in refused.content
    opened = await (await env.click(final, f"sugg:session:{sid}")).response()
    assert opened.modal is not None
    title_input = next(
        c
        for row in opened.modal["components"]
        for c in row.get("components", [row.get("component")])
        if c and c.get("custom_id") == "title"
    )
    assert title_input["value"].startswith("Tau-Bench")
    bad = await (await env.submit_modal(opened, {"when": "yesterday 9am"})).response()
    assert bad.ephemeral
    assert (await card(env, sid)).session_id is None
    made = await env.submit_modal(opened, {"when": "2026-12-10 09:30", "timezone": "PT"})
    answer = await made.response()
    content = answer.content if not answer.deferred else (await made.final()).content
    assert "Made the session **Tau-Bench" in content
    assert "/organize session announce" in content
    assert f"<@{env.members[2].id}> offered to present" in content
    linked = await card(env, sid)
    assert linked.session_id is not None
    from bot.services.sessions.store import get_session

    async with env.bot.session_factory() as s:
        info = await get_session(s, env.guild.id, linked.session_id)
    assert info.starts_at.isoformat() == "2026-12-10T17:30:00+00:00"
    assert info.papers[0].key == "arxiv:2406.12045"
    assert info.presenter_id == env.members[2].id
    again = await (await env.click(final, f"sugg:session:{sid}")).response()
    assert again.ephemeral
    assert "already made" in again.content


async def test_withdraw_rules(discord_env) -> None:
    env = discord_env
    sid, *_ = await _suggest_three(env)
    refused = await (
        await env.invoke("suggest withdraw", {"suggestion": str(sid)}, member=env.members[1])
    ).response()
    assert refused.ephemeral
    assert "Only the member who suggested it" in refused.content
    done = await (await invoke_to_completion(env, "suggest withdraw", {"suggestion": str(sid)})).response()
    assert "withdrawn" in done.content
    assert "withdrawn by an organizer" in env.dm_messages(env.members[0])[-1].content
    again = await (await env.invoke("suggest withdraw", {"suggestion": f"#{sid}"})).response()
    assert "already withdrawn" in again.content


async def test_list_sort_filter_and_autocomplete(discord_env) -> None:
    env = discord_env
    a, b, c = await _suggest_three(env)
    post = await post_of(env, b)
    for member in (env.members[0], env.members[2]):
        await (await env.click(post, f"sugg:vote:{b}", member=member)).response()
    listed = await (await env.invoke("suggest list", member=env.members[1])).response()
    assert listed.ephemeral
    assert listed.message is not None
    assert listed.message.is_components_v2  # a layout card, not an embed
    text = listed.message.text
    assert text.index("**Tau2-Bench") < text.index("**Tau-Bench")  # most voted first
    assert "👍 2" in text
    assert "#" not in text.replace("## ", "")  # no suggestion numbers
    assert [x["url"] for x in listed.message.buttons][:2] == [
        "https://arxiv.org/abs/2506.07982",
        "https://arxiv.org/abs/2406.12045",
    ]  # each paper's link beside it
    newest = (await (await env.invoke("suggest list", {"sort": "newest"})).response()).message
    assert newest is not None
    assert newest.text.index("**Agent World Model") < newest.text.index("**Tau-Bench")
    none = (await (await env.invoke("suggest list", {"status": "declined"})).response()).message
    assert none is not None
    assert "No suggestions" in none.text
    bad_topic = await (await env.invoke("suggest list", {"topic": "astrology"})).response()
    assert bad_topic.ephemeral
    assert "not a topic" in bad_topic.content
    choices = await env.autocomplete("suggest show", "suggestion", "tau2")
    assert [ch["value"] for ch in choices] == [str(b)]
    assert all(len(ch["name"]) <= 100 for ch in choices)
    topics = await env.autocomplete("suggest paper", "topic", "verif")
    assert [t["value"] for t in topics] == ["verifier soundness"]


async def test_list_pages_with_buttons(discord_env) -> None:
    env = discord_env
    await use_channel(env)
    for i in range(10):
        await suggest(
            env, env.members[i % 3], paper=f"Environment paper number {i} with a distinct title {i * 7}"
        )
    listed = await (await env.invoke("suggest list", {"sort": "newest"})).response()
    assert listed.message is not None
    assert "Page 1 of 2" in listed.message.text
    assert "10 suggestions" in listed.message.text
    next_id = next(b["custom_id"] for b in listed.message.buttons if b.get("custom_id", "").endswith(":n"))
    await (await env.click(listed.message, next_id)).response()
    page2 = env.standin.message(listed.message.id)
    assert "Page 2 of 2" in page2.text
    assert "number 1 " in page2.text
    assert "number 9 " not in page2.text
    await env.restart_bot()  # the buttons carry the filter and page: they work after a restart
    previous_id = next(b["custom_id"] for b in page2.buttons if b.get("custom_id", "").endswith(":p"))
    await (await env.click(page2, previous_id)).response()
    assert "Page 1 of 2" in env.standin.message(listed.message.id).text


async def test_poll_and_its_result(discord_env) -> None:
    env = discord_env
    a, b, c = await _suggest_three(env)
    for sid in (a, c):
        await (
            await env.invoke("organize suggestions review", {"suggestion": str(sid), "decision": "shortlist"})
        ).final()
    refused = await (await env.invoke("organize suggestions poll", member=env.members[0])).response()
    assert refused.ephemeral
    assert "Only organizers" in refused.content
    result = await invoke_to_completion(env, "organize suggestions poll", {"hours": 24}, channel=env.general)
    response = await result.response()
    message = response.message
    assert message is not None
    assert message.poll is not None
    answers = [x["poll_media"]["text"] for x in message.poll["answers"]]
    assert len(answers) == 2
    assert answers[0].startswith("Tau-Bench")  # the papers' titles, no numbers
    assert answers[1].startswith("Agent World Model")
    assert all(len(text) <= 55 for text in answers)
    for member in env.members[:2]:
        await env.standin.vote(message, member, 2)
    await env.standin.vote(message, env.members[2], 1)
    await env.clock.advance(timedelta(hours=23))
    async with env.bot.session_factory() as s:
        assert (await s.execute(select(SuggestionPoll.status))).scalar_one() == "running"
    await env.clock.advance(timedelta(hours=1, minutes=1))  # its end and a settle minute: the job woken then
    async with env.bot.session_factory() as s:
        poll = (await s.execute(select(SuggestionPoll))).scalar_one()
    assert poll.status == "ended"
    assert poll.total_votes == 3
    assert poll.winner_suggestion_id == c
    announced = env.messages_in(env.general)[-1]
    assert "The paper poll has ended" in announced.content
    assert "wins" in announced.content
    assert "Agent World Model" in announced.content


async def test_poll_needs_two_suggestions(discord_env) -> None:
    env = discord_env
    await use_channel(env)
    await suggest(env, env.members[0], paper="2406.12045")
    refused = await (await env.invoke("organize suggestions poll")).response()
    assert refused.ephemeral
    assert "at least two" in refused.content


async def test_poll_that_ended_while_down_is_recorded_at_start(discord_env) -> None:
    env = discord_env
    await _suggest_three(env)
    response = await (
        await invoke_to_completion(env, "organize suggestions poll", {"hours": 1}, channel=env.general)
    ).response()
    await env.standin.vote(response.message, env.members[0], 1)
    await env.stop_bot()
    await env.clock.advance(timedelta(hours=3))
    await env.start_bot()
    await env.standin.wait_until(lambda: "poll has ended" in env.messages_in(env.general)[-1].content)
    async with env.bot.session_factory() as s:
        assert (await s.execute(select(SuggestionPoll.status))).scalar_one() == "ended"


async def test_a_poll_that_cannot_be_recorded_is_taken_down(discord_env, monkeypatch) -> None:
    from bot.tree import APOLOGY

    env = discord_env
    await _suggest_three(env)

    async def failing_record(*args, **kwargs):
        raise RuntimeError("the store went away")

    monkeypatch.setattr(polls_module, "record_poll", failing_record)
    result = await env.invoke("organize suggestions poll", {"hours": 24}, channel=env.general)
    posted = (await result.response()).message
    assert posted is not None
    assert posted.poll is not None
    (told,) = await result.wait_followups(1)
    assert told.ephemeral
    assert told.content == APOLOGY
    assert env.standin.message(posted.id).deleted
    assert [m for m in env.messages_in(env.general) if m.poll is not None] == []
    async with env.bot.session_factory() as s:
        assert list((await s.execute(select(SuggestionPoll))).scalars()) == []


async def _accept_and_open_form(env, sid: int):
    """Accept the suggestion and press "Create a session from it": (the review reply, the form)."""
    final = await (
        await env.invoke("organize suggestions review", {"suggestion": str(sid), "decision": "accept"})
    ).final()
    opened = await (await env.click(final, f"sugg:session:{sid}")).response()
    assert opened.modal is not None
    return final, opened


async def test_a_session_from_a_suggestion_gets_its_discord_event(discord_env) -> None:
    env = discord_env
    sid, other, _ = await _suggest_three(env)
    _, opened = await _accept_and_open_form(env, sid)
    made = await env.submit_modal(opened, {"when": "2026-12-10 09:30", "timezone": "PT"})
    assert (await made.response()).deferred
    content = (await made.final()).content
    assert "Made the session" in content
    assert "Create Events" not in content
    (event,) = env.scheduled_events()
    assert event["name"].startswith("Tau-Bench")
    assert event["scheduled_start_time"].startswith("2026-12-10T17:30:00")
    linked = await card(env, sid)
    from bot.services.sessions.store import get_session

    async with env.bot.session_factory() as s:
        info = await get_session(s, env.guild.id, linked.session_id)
    assert info.event_id == int(event["id"])

    # without Create Events the session is still made, and the organizer is told what to grant
    from bot.permissions import REQUIRED_PERMISSIONS
    from standin.state import CREATE_EVENTS

    await env.standin.set_bot_permissions(REQUIRED_PERMISSIONS.value & ~CREATE_EVENTS)
    _, opened = await _accept_and_open_form(env, other)
    made = await env.submit_modal(opened, {"when": "2026-12-17 09:30", "timezone": "PT"})
    content = (await made.final()).content
    assert "Made the session" in content
    assert "grant the bot **Create Events**" in content
    assert len(env.scheduled_events()) == 1
    assert (await card(env, other)).session_id is not None


async def test_two_organizers_submitting_the_session_form_at_once_make_one_session(discord_env) -> None:
    import asyncio

    from sqlalchemy import func

    from db.models import ClubSession

    env = discord_env
    sid, *_ = await _suggest_three(env)
    review_reply, opened = await _accept_and_open_form(env, sid)
    second = await (await env.click(review_reply, f"sugg:session:{sid}", member=env.admin)).response()
    assert second.modal is not None
    results = await asyncio.gather(
        env.submit_modal(opened, {"when": "2026-12-10 09:30", "timezone": "PT"}),
        env.submit_modal(second, {"when": "2026-12-11 09:30", "timezone": "PT"}, member=env.admin),
    )
    answers = [(await r.final()).content for r in results]
    assert sum("Made the session" in a for a in answers) == 1, answers
    assert sum("already made from this suggestion" in a for a in answers) == 1, answers
    async with env.bot.session_factory() as s:
        assert (await s.execute(select(func.count()).select_from(ClubSession))).scalar_one() == 1
    assert len(env.scheduled_events()) == 1


async def test_a_session_from_a_suggestion_gets_the_arxiv_title(discord_env, arxiv) -> None:
    """arXiv was down when the paper was suggested; making the session fills its title in (as
    /organize session add does), and the event and the suggestion's post show it."""
    env = discord_env
    await use_channel(env)
    arxiv.mode = "down"
    await suggest(env, env.members[0], paper="2406.12045")
    sid = await latest_suggestion_id(env)
    assert (await card(env, sid)).paper.title == "arXiv:2406.12045"
    arxiv.mode = "ok"  # back, before the periodic check has looked again
    _, opened = await _accept_and_open_form(env, sid)
    made = await env.submit_modal(
        opened, {"title": "Tool agents", "when": "2026-12-10 09:30", "timezone": "PT"}
    )
    content = (await made.final()).content
    assert "Made the session **Tool agents**" in content
    linked = await card(env, sid)
    assert linked.session_id is not None
    from bot.services.sessions.store import get_session

    async with env.bot.session_factory() as s:
        info = await get_session(s, env.guild.id, linked.session_id)
    assert [p.title for p in info.papers] == [TAU_BENCH]
    (event,) = env.scheduled_events()
    assert f"Papers: {TAU_BENCH}" in event["description"]
    post = await post_of(env, sid)
    assert post_title(post) == TAU_BENCH
