"""/session refusals end to end: who may, bad input (a clear ephemeral message, nothing stored), mentions
that must not ping, over-long text, and Discord refusing the bot (missing Create Events, a lost message)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.permissions import REQUIRED_PERMISSIONS
from bot.services.sessions import store as svc
from bot.services.sessions.rules import new_session
from standin.state import CREATE_EVENTS, MANAGE_EVENTS
from tests.sessions.helpers import (
    add_session,
    announcements,
    card_title,
    configure,
    count_sessions,
    is_ephemeral,
    run,
)

ORGANIZER_COMMANDS = [
    ("organize session add", {"title": "Sneaky", "when": "tomorrow 17:00"}),
    ("organize session edit", {"session": 1, "title": "Sneaky"}),
    ("organize session edit", {"session": 1}),
    ("organize session cancel", {"session": 1}),
    ("organize session announce", {"session": 1}),
    ("organize session recap", {"session": 1, "notes_url": "https://notes.example"}),
]


async def test_members_are_refused_organizer_commands(env) -> None:
    await configure(env)
    await add_session(env, "Real session", "tomorrow 17:00")
    for name, options in ORGANIZER_COMMANDS:
        reply = await run(env, name, options, member=env.member)
        assert is_ephemeral(reply), name
        assert reply.text == "Only organizers can do this (Manage Events or the organizer role).", name
    assert await count_sessions(env) == 1
    assert announcements(env) == []
    shown = await run(env, "session show", {"session": 1}, member=env.member)
    assert card_title(shown) == "Real session"  # untouched


async def test_the_organizer_role_is_enough(env) -> None:
    readers = env.world.readers
    await run(env, "setup organizer_role", {"role": readers}, member=env.admin)
    await env.standin.add_role(env.member, readers)
    reply = await run(
        env, "organize session add", {"title": "By a reader", "when": "tomorrow 17:00"}, member=env.member
    )
    assert reply.text.startswith("Added session #")


BAD_ADDS = [
    ({"when": "someday soon"}, "I couldn't read “someday soon” as a time"),
    ({"when": "2026-11-02 09:00"}, "is in the past"),
    ({"when": "2026-03-08 02:30", "timezone": "PT"}, "does not exist in America/Los_Angeles"),
    ({"when": "2027-03-14 02:30", "timezone": "America/Los_Angeles"}, "clocks spring forward"),
    ({"when": "tomorrow 17:00", "timezone": "Mars/Olympus"}, "I don't know the time zone “Mars/Olympus”"),
    ({"when": "tomorrow 17:00", "signup_url": "javascript:alert(1)"}, "must be an http(s) link"),
    ({"when": "tomorrow 17:00", "signup_url": "data:text/html,<b>hi</b>"}, "must be an http(s) link"),
    ({"when": "tomorrow 17:00", "papers": "TMax; javascript:alert(1)"}, "Only http(s) links are accepted"),
    ({"when": "tomorrow 17:00", "papers": "; ".join(f"P{n}" for n in range(11))}, "the limit is 10"),
    ({"when": "2029-01-04 09:30"}, "too far ahead"),
]


@pytest.mark.parametrize(("options", "message"), BAD_ADDS, ids=[str(i) for i in range(len(BAD_ADDS))])
async def test_bad_input_is_refused_and_nothing_stored(env, options, message) -> None:
    reply = await run(env, "organize session add", {"title": "Bad", **options})
    assert is_ephemeral(reply)
    assert message in reply.text
    assert await count_sessions(env) == 0
    assert env.scheduled_events() == []


async def test_bad_edits_and_ids(env) -> None:
    session_id = await add_session(env, "Original", "2026-12-10 09:30")
    await add_session(env, "Other", "2026-12-17 09:30")
    cases = [
        ({"session": session_id, "when": "yesterday 9am"}, "is in the past"),
        ({"session": session_id, "timezone": "UK"}, "Give `when` together with `timezone`"),
        ({"session": session_id, "signup_url": "javascript:alert(1)"}, "http(s) link"),
        ({"session": session_id, "title": "Other", "when": "2026-12-17 09:30"}, "already has that title"),
        ({"session": 999, "title": "x"}, "There is no session #999 in this server."),
    ]
    for options, message in cases:
        reply = await run(env, "organize session edit", options)
        assert is_ephemeral(reply), (options, reply.text)
        assert message in reply.text, (options, reply.text)
    shown = await run(env, "session show", {"session": session_id})
    assert card_title(shown) == "Original"
    assert "## Original\nThursday 10 December, 9:30 AM PT" in shown.text


async def test_duplicate_session_is_refused(env) -> None:
    await add_session(env, "Twice", "2026-12-10 09:30")
    reply = await run(env, "organize session add", {"title": "twice", "when": "10 Dec 2026 9:30 AM"})
    assert is_ephemeral(reply)
    assert "already has that title at that time" in reply.text
    assert await count_sessions(env) == 1


async def test_another_guilds_session_is_not_found(env) -> None:
    now = env.clock.now()
    draft = new_session(
        title="Elsewhere", when=datetime(2026, 12, 10, 17, 30, tzinfo=UTC), default_zone="UTC", now=now
    )
    async with env.bot.session_factory() as db, db.begin():
        foreign = (await svc.create_session(db, 424242, draft, created_by=1, now=now)).info
    for name, options in [
        ("session show", {"session": foreign.id}),
        ("organize session announce", {"session": foreign.id}),
        ("organize session cancel", {"session": foreign.id}),
        ("organize session edit", {"session": foreign.id}),
    ]:
        reply = await run(env, name, options)
        assert is_ephemeral(reply), name
        assert reply.text == f"There is no session #{foreign.id} in this server.", name
    assert await env.autocomplete("session show", "session", "", member=env.member) == []


async def test_ambiguous_fall_back_time_says_which_was_taken(env) -> None:
    reply = await run(
        env, "organize session add", {"title": "Fall back", "when": "2027-11-07 01:30", "timezone": "PT"}
    )
    assert reply.text.startswith("Added session #")
    assert "happens twice in America/Los_Angeles; I took the first (PDT, UTC-7)" in reply.text


async def test_mentions_never_ping_and_long_text_is_cut(env) -> None:
    await configure(env)
    readers = env.world.readers
    title = f"@everyone @here <@&{readers.id}> <@{env.member.id}> " + "x" * 120
    session_id = await add_session(
        env,
        title,
        "2026-12-10 09:30",
        presenter_name="@everyone",
        description="@here " + "d" * 1990,
        papers="\n".join(f"{'P' * 290} {n}" for n in range(6)),  # within the option's 2,000
    )
    await run(env, "organize session announce", {"session": session_id})
    await run(
        env, "organize session cancel", {"session": session_id, "reason": f"@everyone <@&{readers.id}>"}
    )
    for message in announcements(env):
        payload = message.payload
        assert payload["mention_everyone"] is False
        assert payload["mention_roles"] == []
        assert payload["mentions"] == []
    notice = announcements(env)[-1]
    assert "@everyone" in notice.text  # shown as typed, but it did not ping
    (thread,) = env.standin.threads
    assert len(thread.name) <= 100
    assert thread.name.endswith("…")
    (event,) = env.scheduled_events()
    assert len(event["name"]) <= 100
    assert len(event["description"]) <= 1000
    choices = await env.autocomplete("session show", "session", "", member=env.member)
    assert all(len(c["name"]) <= 100 for c in choices)


async def test_without_create_events_the_session_is_saved_and_the_reply_says_what_to_grant(env) -> None:
    await configure(env)
    # The bot was invited the old way: Manage Events but not Create Events. Since 23 February 2026 Manage
    # Events alone no longer lets a bot create a scheduled event (Discord change log, 24 November 2025).
    await env.standin.set_bot_permissions((REQUIRED_PERMISSIONS.value & ~CREATE_EVENTS) | MANAGE_EVENTS)
    reply = await run(env, "organize session add", {"title": "No events", "when": "2026-12-10 09:30"})
    assert reply.text.startswith("Added session #1.")
    assert "grant the bot **Create Events**" in reply.text
    assert "Manage Events" not in reply.text
    assert await count_sessions(env) == 1
    assert env.scheduled_events() == []
    reply = await run(env, "organize session announce", {"session": 1})
    assert reply.text.startswith("Announced session #1")
    assert "Create Events" in reply.text
    # once granted, announcing again creates the missing event
    await env.standin.set_bot_permissions(REQUIRED_PERMISSIONS.value)
    reply = await run(env, "organize session announce", {"session": 1})
    assert "Create Events" not in reply.text
    (event,) = env.scheduled_events()
    assert event["name"] == "No events"


async def test_announce_needs_a_channel_and_reposts_a_deleted_message(env) -> None:
    session_id = await add_session(env, "Where", "2026-12-10 09:30")
    reply = await run(env, "organize session announce", {"session": session_id})
    assert is_ephemeral(reply)
    assert "/setup announcements" in reply.text
    reply = await run(env, "organize session announce", {"session": session_id, "channel": env.general})
    assert reply.text.startswith("Announced")
    assert len(env.messages_in(env.general)) == 1
    # moved to #announcements: posted there, the old one removed (no duplicate)
    await configure(env)
    reply = await run(env, "organize session announce", {"session": session_id, "channel": env.announcements})
    assert reply.text.startswith("Announced")
    assert len(announcements(env)) == 1
    assert env.messages_in(env.general) == []
    # someone deleted the announcement: announcing again posts a new one
    env.standin.fail_next("PATCH", r"/channels/\d+/messages/\d+$", status=404)
    reply = await run(env, "organize session announce", {"session": session_id})
    assert reply.text.startswith("Announced")
    assert len(env.standin.requests_to("POST", rf"/channels/{env.announcements.id}/messages$")) == 2


async def test_cancelled_and_past_sessions(env) -> None:
    session_id = await add_session(env, "Soon over", "tomorrow 17:00")
    reply = await run(
        env, "organize session recap", {"session": session_id, "recording_url": "https://youtu.be/x"}
    )
    assert is_ephemeral(reply)
    assert "has not happened yet" in reply.text
    await run(env, "organize session cancel", {"session": session_id})
    for name, options, message in [
        ("organize session cancel", {"session": session_id}, "already cancelled"),
        ("organize session announce", {"session": session_id}, "was cancelled"),
        ("organize session edit", {"session": session_id, "title": "x"}, "was cancelled"),
        ("organize session edit", {"session": session_id}, "was cancelled"),
    ]:
        reply = await run(env, name, options)
        assert is_ephemeral(reply), (name, reply.text)
        assert message in reply.text, (name, reply.text)


async def test_announce_where_the_bot_may_not_post(env) -> None:
    await configure(env)
    session_id = await add_session(env, "Blocked", "2026-12-10 09:30")
    env.standin.fail_next("POST", rf"/channels/{env.announcements.id}/messages$", status=403)
    reply = await run(env, "organize session announce", {"session": session_id})
    assert is_ephemeral(reply)
    assert "I can't post in" in reply.text
    assert "Send Messages" in reply.text
    assert announcements(env) == []
    env.standin.fail_next("POST", r"/messages/\d+/threads$", status=403)
    reply = await run(env, "organize session announce", {"session": session_id})
    assert reply.text.startswith("Announced")
    assert "could not open a discussion thread" in reply.text
    assert len(announcements(env)) == 1
    assert env.standin.threads == []
