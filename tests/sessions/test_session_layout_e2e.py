"""The session card as a Components V2 layout through the stand-in (SQLite and PostgreSQL): a fresh post,
an old embed post rewritten in place, a full 10-paper card with a 200-character title, and its buttons."""

from __future__ import annotations

import discord

from bot.layouts import count_components
from bot.services.sessions import store as svc
from cogs.sessions.buttons import CalendarButton, RemindMeButton
from standin.render import render_message
from tests.sessions.helpers import (
    CLUB_NOV5,
    OCTOBER,
    add_session,
    announcements,
    button_ids,
    card_items,
    card_title,
    configure,
    is_ephemeral,
    paper_entries,
    run,
    subscriber_ids,
)


def within_limits(message) -> None:
    assert message.is_components_v2
    assert message.content == ""
    assert message.embeds == []
    assert sum(count_components(c) for c in message.components) <= 40
    assert len("".join(message.text_displays)) <= 4000


async def test_fresh_announcement_is_a_layout(env) -> None:
    await configure(env)
    await env.clock.set(OCTOBER)
    session_id = await add_session(
        env,
        "Terminal *agents*",
        "2026-11-05 08:00",
        papers="https://arxiv.org/abs/2401.12345\nTMax\nhttps://openreview.net/forum?id=abc",
        signup_url="https://lu.ma/paperclub",
        presenter_name="Ada_Lovelace",
    )
    await run(env, "organize session announce", {"session": session_id})
    (posted,) = announcements(env)
    within_limits(posted)
    (container,) = posted.components
    assert container["type"] == 17
    assert container["accent_color"] == discord.Colour.blurple().value
    head = card_items(posted)[0]["content"]
    assert head.startswith(f"## Terminal \\*agents\\*\n{CLUB_NOV5}\n<t:")
    assert "**Presenter:** Ada\\_Lovelace · **Duration:** 1 hour" in head
    assert card_title(posted) == "Terminal \\*agents\\*"
    links = [url for _, url in paper_entries(posted)]
    assert links == ["https://arxiv.org/abs/2401.12345", None, "https://openreview.net/forum?id=abc"]
    assert [s["accessory"]["label"] for s in posted.components_of_type(9)] == ["arXiv", "OpenReview"]
    assert button_ids(posted) == [
        "link:https://lu.ma/paperclub",
        f"session:remind:{session_id}",
        f"session:out:{session_id}",
        f"session:ask:{session_id}",
        f"session:ics:{session_id}",
    ]
    shown = render_message(posted, env.standin.state)
    assert "Terminal \\*agents\\*" in shown
    assert "[ arXiv ↗ ]" in shown


async def test_old_embed_post_is_rewritten_as_a_layout_in_place(env) -> None:
    await configure(env)
    await env.clock.set(OCTOBER)
    session_id = await add_session(env, "Old post", "2026-11-05 08:00", papers="TMax")
    # an announcement as the bot posted it before layouts: an embed and a classic row of buttons
    view = discord.ui.View(timeout=None)
    view.add_item(RemindMeButton(session_id))
    view.add_item(CalendarButton(session_id))
    channel = env.bot.get_channel(env.announcements.id)
    assert isinstance(channel, discord.TextChannel)
    old = await channel.send(content="New session!", embed=discord.Embed(title="Old post"), view=view)
    async with env.bot.session_factory() as db, db.begin():
        await svc.record_announcement(
            db, env.guild.id, session_id, channel_id=channel.id, message_id=old.id, thread_id=None
        )
    (posted,) = announcements(env)
    assert not posted.is_components_v2

    # its buttons keep working before the rewrite (the custom ids never change)
    pressed = await (await env.click(posted, f"session:remind:{session_id}", member=env.member)).final()
    assert pressed.text.startswith("I'll remind you by DM an hour before **Old post**")

    reply = await run(env, "organize session announce", {"session": session_id})
    assert reply.text.startswith(f"Updated the announcement of session #{session_id}")
    (posted,) = announcements(env)
    assert posted.id == old.id
    within_limits(posted)
    assert card_title(posted) == "Old post"
    assert button_ids(posted) == [
        f"session:remind:{session_id}",
        f"session:out:{session_id}",
        f"session:ics:{session_id}",
    ]
    edit = env.standin.requests_to("PATCH", rf"/channels/{channel.id}/messages/{old.id}$")[-1]
    assert edit.json["content"] is None
    assert edit.json["embeds"] == []

    # and after it: the same button, now in the layout's row
    pressed = await (await env.click(posted, f"session:remind:{session_id}", member=env.member)).final()
    assert pressed.text == "OK, no reminder for **Old post**."
    async with env.bot.session_factory() as db:
        assert list(await subscriber_ids(db, session_id)) == []


async def test_ten_papers_and_a_long_title_fit(env) -> None:
    await configure(env)
    await env.clock.set(OCTOBER)
    title = "Environments " + "x" * 187
    assert len(title) == 200
    papers = "\n".join(f"https://example.org/papers/{i}.pdf" for i in range(10))
    session_id = await add_session(
        env,
        title,
        "2026-11-05 08:00",
        papers=papers,
        signup_url="https://lu.ma/paperclub",
        description="What the reward sees. " * 40,
    )
    reply = await run(env, "session show", {"session": session_id, "public": True}, member=env.member)
    shown = env.messages_in(env.general)[-1]
    assert shown.id == reply.id
    within_limits(shown)
    assert card_title(shown) == title
    entries = paper_entries(shown)
    assert [url for _, url in entries] == [f"https://example.org/papers/{i}.pdf" for i in range(10)]
    assert {s["accessory"]["label"] for s in shown.components_of_type(9)} == {"PDF"}
    assert "more papers" not in shown.text

    # the row's buttons work from the layout
    answer = await (await env.click(shown, f"session:ics:{session_id}", member=env.members[1])).final()
    assert is_ephemeral(answer)
    assert answer.attachments
    answer = await (await env.click(shown, f"session:remind:{session_id}", member=env.members[1])).final()
    assert answer.text.startswith("I'll remind you")
