"""Automatic session reminders end to end (SQLite and PostgreSQL): the ping role and nothing else, papers
in the 24-hour one, members' and the presenter's DMs, re-planning on edit, cancel and new offsets."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from db.models.reminders import Reminder
from standin.state import EPHEMERAL
from tests.reminders.helpers import run, setup_club

# The clock starts on Monday 30 November 2026, 9:00 AM PT; the session is that Thursday at 9:30 AM PT.
STARTS = datetime(2026, 12, 3, 17, 30, tzinfo=UTC)
CLUB_TIME = "Thursday 3 December, 9:30 AM PT / 5:30 PM GMT / 11:00 PM IST"


def from_bot(env, messages) -> list:
    return [m for m in messages if m.author_id == env.standin.bot_user.id]


def reminders_in_announcements(env) -> list:
    return [m for m in from_bot(env, env.messages_in(env.announcements)) if "⏰" in m.content]


async def add_session(env, when: str = "Thursday 9:30am", **options) -> int:
    reply = await run(
        env,
        "organize session add",
        {"title": "Building data recipes for terminal agents", "when": when, **options},
    )
    match = re.search(r"session #(\d+)", reply.text)
    assert match, reply.text
    return int(match.group(1))


async def pending(env) -> list[Reminder]:
    async with env.bot.session_factory() as db:
        query = select(Reminder).where(Reminder.status == "pending").order_by(Reminder.due_at, Reminder.id)
        return list((await db.execute(query)).scalars())


async def test_a_session_gets_channel_reminders_dms_and_the_presenter_is_asked_for_a_recap(env) -> None:
    await setup_club(env)
    presenter, subscriber, clicker = env.members
    session_id = await add_session(
        env,
        presenter=presenter,
        papers="arXiv:2401.12345; Terminal-World",
        signup_url="https://lu.ma/paperclub",
    )
    reply = await run(env, "remind me", {"session": session_id}, member=subscriber)
    assert reply.flags & EPHEMERAL
    assert reply.text.startswith("I'll DM you: 1h before **Building data")
    await run(env, "organize session announce", {"session": session_id})
    announcement = from_bot(env, env.messages_in(env.announcements))[-1]
    await (await env.click(announcement, f"session:remind:{session_id}", member=clicker)).final()
    await run(env, "organize reminder list")  # settles the planning the click started
    kinds = sorted((r.kind, r.user_id) for r in await pending(env))
    assert kinds == sorted(
        [
            ("presenter", presenter.id),
            ("session", None),
            ("session", None),
            ("personal", subscriber.id),
            ("personal", clicker.id),
            ("recap", presenter.id),
        ]
    )
    listing = await run(
        env, "organize reminder list"
    )  # what organizers made: none; the automatic ones behind an option
    assert listing.text_displays[0].startswith("## Reminders: 0 pending\nNo pending reminders.")
    assert "-# Also 6 automatic reminders before sessions" in listing.text_displays[0]
    everything = await run(env, "organize reminder list", {"automatic": True})
    assert everything.text_displays[0] == "## Reminders, automatic ones too: 6 pending"
    assert sum(text.startswith("**Automatic** · ") for text in everything.text_displays) == 6

    await env.clock.set(STARTS - timedelta(days=3))  # the presenter hears 3 days ahead
    (heads_up,) = from_bot(env, env.dm_messages(presenter))
    assert heads_up.content.startswith("🎤 You are presenting **Building data recipes for terminal agents**")
    assert CLUB_TIME in heads_up.content

    await env.clock.set(STARTS - timedelta(hours=24))
    (day_before,) = reminders_in_announcements(env)
    readers = env.world.readers.id
    assert day_before.content.startswith(
        f"<@&{readers}> ⏰ **Building data recipes for terminal agents** starts"
    )
    assert f"starts <t:{int(STARTS.timestamp())}:R>\n🗓️ {CLUB_TIME}\n" in day_before.content
    assert "✍️ Sign up: <https://lu.ma/paperclub>" in day_before.content
    assert "📄 Read beforehand:" in day_before.content
    assert "arxiv.org/abs/2401.12345" in day_before.content
    assert day_before.payload["mention_roles"] == [str(readers)]  # the ping role, and nothing else
    assert day_before.payload["mentions"] == []
    assert day_before.payload["mention_everyone"] is False
    assert from_bot(env, env.dm_messages(subscriber)) == []

    await env.clock.set(STARTS - timedelta(hours=1))
    day_before, hour_before = reminders_in_announcements(env)
    assert hour_before.content.startswith(f"<@&{readers}> ⏰")
    assert "Read beforehand" not in hour_before.content
    for member in (subscriber, clicker):
        (dm,) = from_bot(env, env.dm_messages(member))
        assert dm.content.startswith("⏰ **Building data recipes for terminal agents** starts")
        assert dm.payload["mentions"] == []
    # each DM says what its member did, and how to undo it
    (by_command,) = from_bot(env, env.dm_messages(subscriber))
    assert by_command.content.endswith(
        "You asked for this DM with `/remind me`; run it again on this session to stop these."
    )
    (by_button,) = from_bot(env, env.dm_messages(clicker))
    assert by_button.content.endswith(
        "You pressed Remind me on the session's announcement; press it again to stop these."
    )

    await env.clock.set(STARTS + timedelta(hours=2))  # an hour after the end
    recap = from_bot(env, env.dm_messages(presenter))[-1]
    assert "Thanks for presenting" in recap.content
    assert "`/organize session recap`, picking the session by its title" in recap.content
    assert await pending(env) == []
    assert len(reminders_in_announcements(env)) == 2


async def test_editing_the_time_replans_and_cancelling_cancels(env) -> None:
    await setup_club(env)
    session_id = await add_session(env)
    (preview,) = await env.autocomplete(
        "organize reminder add", "when", "2h", options={"session": session_id}
    )
    assert preview["name"].endswith(
        " before Building data recipes for terminal agents"
    )  # named, not numbered
    tied = await run(
        env, "organize reminder add", {"when": "2h", "message": "Grab a coffee", "session": session_id}
    )
    assert "tied to **Building data recipes for terminal agents**" in tied.content
    await run(env, "organize session edit", {"session": session_id, "when": "Friday 9:30am"})
    friday = STARTS + timedelta(days=1)
    assert [r.due_at for r in await pending(env)] == [
        friday - timedelta(hours=24),
        friday - timedelta(hours=2),
        friday - timedelta(hours=1),
    ]
    await env.clock.set(STARTS - timedelta(hours=24) + timedelta(minutes=1))
    assert reminders_in_announcements(env) == []
    await env.clock.set(friday - timedelta(hours=24))
    (first,) = reminders_in_announcements(env)
    assert "Friday 4 December, 9:30 AM PT" in first.content

    await run(env, "organize session cancel", {"session": session_id})
    assert await pending(env) == []
    await env.clock.set(friday + timedelta(hours=3))
    assert len(reminders_in_announcements(env)) == 1
    assert [m.content for m in from_bot(env, env.messages_in(env.general))] == []


async def test_new_reminder_offsets_replan_upcoming_sessions(env) -> None:
    await setup_club(env)
    await add_session(env)
    await run(env, "setup reminder_offsets", {"offsets": "2h"}, member=env.admin)
    assert [(r.plan_key, r.due_at) for r in await pending(env)] == [
        ("session:120", STARTS - timedelta(hours=2))
    ]
    await env.clock.set(STARTS - timedelta(hours=2))
    assert len(reminders_in_announcements(env)) == 1


async def test_closed_dms_end_as_failed_and_are_not_retried(env) -> None:
    await setup_club(env)
    closed = await env.standin.create_member(env.guild, "dora", dms_closed=True)
    session_id = await add_session(env)
    await run(env, "remind me", {"session": session_id, "before": "30m"}, member=closed)
    await env.clock.set(STARTS - timedelta(minutes=30))
    await env.clock.advance(timedelta(hours=1))
    assert env.dm_messages(closed) == []
    dm_posts = [r for r in env.standin.requests_to("POST", r"/channels/\d+/messages$") if r.status == 403]
    assert len(dm_posts) == 1
    listing = await run(env, "organize reminder list")
    assert "Failed" in listing.text
    assert "50007" in listing.text


async def test_remind_me_again_turns_it_off_and_bad_offsets_are_refused(env) -> None:
    await setup_club(env)
    session_id = await add_session(env)
    member = env.member
    on = await run(env, "remind me", {"session": session_id, "before": "2h"}, member=member)
    assert on.content.startswith("I'll DM you: 2h before")
    moved = await run(env, "remind me", {"session": session_id, "before": "1h"}, member=member)
    assert moved.content.startswith("Moved your reminder: 1h before")
    off = await run(env, "remind me", {"session": session_id}, member=member)
    assert off.content == "OK, no DM before **Building data recipes for terminal agents**."
    too_early = await run(env, "remind me", {"session": session_id, "before": "5d"}, member=member)
    assert too_early.flags & EPHEMERAL
    assert "already past" in too_early.content
    nonsense = await run(env, "remind me", {"session": session_id, "before": "soonish"}, member=member)
    assert "couldn't read" in nonsense.content
    await env.clock.set(STARTS)
    assert from_bot(env, env.dm_messages(member)) == []
