"""The members' side of a session through the stand-in with the real discord.py client (SQLite and PostgreSQL):
*Keep me out of the recording*, *Ask the presenter*, and what the presenter and the organizers get of them,
privately; bad input refused with nothing stored."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select

from db.models.sessions import RecordingOptOut, RecordingPreference, SessionQuestion
from tests.sessions.helpers import add_session, announcements, configure, is_ephemeral, run

STARTS = datetime(2026, 12, 10, 17, 0, tzinfo=UTC)


def from_bot(env, messages) -> list:
    return [m for m in messages if m.author_id == env.standin.bot_user.id]


async def announced(env) -> tuple[int, object]:
    await configure(env)
    session_id = await add_session(
        env, "Worlds", "2026-12-10 17:00", timezone="UTC", presenter=env.members[0]
    )
    await run(env, "organize session announce", {"session": session_id})
    (posted,) = announcements(env)
    return session_id, posted


async def settled(env) -> None:
    """The listeners set off by the last press have planned the presenter's DMs."""
    for _ in range(3):
        await asyncio.sleep(0)
    await env.bot.get_cog("RemindersCog").settle()


async def count(env, model) -> int:
    async with env.bot.session_factory() as db:
        return int(await db.scalar(select(func.count()).select_from(model)) or 0)


async def test_keep_me_out_toggles_privately_and_the_presenter_gets_the_names(env) -> None:
    session_id, posted = await announced(env)
    presenter, quiet, always = env.members[0], env.members[1], env.members[2]

    first = await (await env.click(posted, f"session:out:{session_id}", member=quiet)).final()
    await settled(env)
    assert is_ephemeral(first)
    assert first.text.startswith("You stay out of the recording of **Worlds**")
    again = await (await env.click(posted, f"session:out:{session_id}", member=quiet)).final()
    assert again.text.startswith("OK, you are not kept out")
    await env.click(posted, f"session:out:{session_id}", member=quiet)  # and out once more

    shown = await (await env.click(posted, f"session:out:{session_id}", member=always)).final()
    standing = await (await env.click(shown, f"session:outall:{session_id}", member=always)).final()
    assert "every session here" in standing.text
    await env.restart_bot()  # the standing choice's button still works after a restart
    off = await (await env.click(shown, f"session:outall:{session_id}", member=always)).final()
    assert "not kept out" not in off.text
    assert "every" not in off.text.split("\n")[0]
    on = await (await env.click(off, f"session:outall:{session_id}", member=always)).final()
    assert "every session here" in on.text
    assert await count(env, RecordingPreference) == 1

    await settled(env)
    listing = await run(env, "organize session for-presenter", {"session": session_id})
    assert is_ephemeral(listing)
    assert quiet.display_name in listing.text
    assert always.display_name in listing.text
    refused = await run(env, "organize session for-presenter", {"session": session_id}, member=quiet)
    assert is_ephemeral(refused)
    assert "Only organizers" in refused.text

    await env.clock.set(STARTS - timedelta(days=3))
    (dm,) = from_bot(env, env.dm_messages(presenter))
    assert "🙈 Keep out of the recording (2)" in dm.content
    assert quiet.display_name in dm.content
    assert always.display_name in dm.content
    assert dm.payload["mentions"] == []

    # the names never reach a channel or thread a member can read
    for channel in env.world.guild.channels.values():
        for message in from_bot(env, env.messages_in(channel)):
            if not is_ephemeral(message):
                assert "Keep out of the recording" not in message.text, channel


async def test_questions_reach_the_presenter_once_and_anonymous_ones_carry_no_name(env) -> None:
    session_id, posted = await announced(env)
    presenter, named, anonymous = env.members[0], env.members[1], env.members[2]
    late = env.organizer

    async def ask(member, text: str, who: str = "anonymous", *, forged: bool = False):
        opened = await env.click(posted, f"session:ask:{session_id}", member=member)
        assert (await opened.response()).modal is not None
        submitted = await env.submit_modal(
            opened, {"question": text, "named": [who]}, member=member, forged=forged
        )
        return await submitted.final()

    thanks = await ask(named, "How does the benchmark scale?", "named")
    assert is_ephemeral(thanks)
    assert "with your name" in thanks.text
    await ask(anonymous, "Is the code out?")
    pinged = await ask(anonymous, "What would <@123> say? @everyone")
    assert is_ephemeral(pinged)
    assert "without @ mentions" in pinged.text
    too_long = await ask(anonymous, "x" * 1200, forged=True)
    assert is_ephemeral(too_long)
    assert "within 1000 characters" in too_long.text
    assert await count(env, SessionQuestion) == 2
    await settled(env)

    await env.clock.set(STARTS - timedelta(days=3))
    (dm,) = from_bot(env, env.dm_messages(presenter))
    assert "❓ Questions from members (2):" in dm.content
    assert f"• How does the benchmark scale? — {named.display_name}" in dm.content
    assert "• Is the code out? — anonymous" in dm.content
    assert anonymous.display_name not in dm.content

    await ask(late, "One more?")
    await settled(env)
    await env.clock.set(STARTS)
    three_days, day = from_bot(env, env.dm_messages(presenter))  # the start's DM: nothing new since the day's
    assert "❓ Questions from members (3):" in day.content
    assert "• One more? — anonymous" in day.content


async def test_the_start_dm_carries_only_new_questions(env) -> None:
    session_id, posted = await announced(env)
    presenter = env.members[0]
    for member, text, when in (
        (env.members[1], "First?", None),
        (env.members[2], "Second?", STARTS - timedelta(hours=23)),
    ):
        if when is not None:
            await env.clock.set(when)
        opened = await env.click(posted, f"session:ask:{session_id}", member=member)
        answer = {"question": text, "named": ["anonymous"]}
        await (await env.submit_modal(opened, answer, member=member)).final()
        await settled(env)
    await env.clock.set(STARTS)
    start = from_bot(env, env.dm_messages(presenter))[-1].content
    assert "❓ New questions from members (1):" in start
    assert "Second?" in start
    assert "First?" not in start


async def test_a_cancelled_session_or_a_forged_press_refuses_and_stores_nothing(env) -> None:
    session_id, posted = await announced(env)
    await run(env, "organize session cancel", {"session": session_id})
    press = await env.standin.click(posted, f"session:out:{session_id}", member=env.members[1], forged=True)
    pressed = await press.final()
    assert is_ephemeral(pressed)
    assert "was cancelled" in pressed.text
    other = await env.standin.click(posted, "session:out:999999", member=env.members[1], forged=True)
    assert "There is no session #999999 in this server." in (await other.final()).text
    ask = await env.standin.click(posted, f"session:ask:{session_id}", member=env.members[1], forged=True)
    opened = await ask.response()
    assert opened.modal is not None  # the form opens; its submit is checked
    refused = await (
        await env.submit_modal(ask, {"question": "Still on?", "named": ["anonymous"]}, member=env.members[1])
    ).final()
    assert is_ephemeral(refused)
    assert "was cancelled" in refused.text
    assert (await count(env, RecordingOptOut), await count(env, SessionQuestion)) == (0, 0)


async def test_privacy_shows_and_deletes_the_members_notes(env) -> None:
    from tests.privacy.helpers import delete_my_data, privacy
    from tests.privacy.helpers import settle as privacy_settled

    session_id, posted = await announced(env)
    rita = env.members[1]
    await (await env.click(posted, f"session:out:{session_id}", member=rita)).final()
    opened = await env.click(posted, f"session:ask:{session_id}", member=rita)
    await (await env.submit_modal(opened, {"question": "Why?", "named": ["named"]}, member=rita)).final()
    await settled(env)
    shown = await privacy(env, rita)
    assert "Kept out of a recording" in shown.text
    assert "Questions for presenters" in shown.text
    await delete_my_data(env, rita)
    await privacy_settled(env)
    assert (await count(env, RecordingOptOut), await count(env, SessionQuestion)) == (0, 0)
    await env.clock.set(STARTS - timedelta(days=3))
    (dm,) = from_bot(env, env.dm_messages(env.members[0]))
    assert rita.display_name not in dm.content
    assert "Why?" not in dm.content
