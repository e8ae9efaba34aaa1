"""/session end to end through the stand-in with the real discord.py client (SQLite and PostgreSQL):
add → announce → edit → announce again → recap → cancel, with the scheduled event in step."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from tests.sessions.helpers import (
    CLUB_NOV5,
    CLUB_NOV19,
    EVENT_CANCELED,
    EVENT_SCHEDULED,
    OCTOBER,
    add_session,
    announcements,
    button_ids,
    card_title,
    configure,
    ics_events,
    is_ephemeral,
    paper_entries,
    run,
    subscriber_ids,
)


def event_for(env, title_start: str) -> dict:
    (event,) = [e for e in env.scheduled_events() if e["name"].startswith(title_start)]
    return event


async def test_add_announce_edit_reannounce_recap_cancel(env) -> None:
    await configure(env)
    await env.clock.set(OCTOBER)
    presenter = env.members[0]

    # add: an ephemeral preview in the club page's form, and an external scheduled event
    reply = await run(
        env,
        "organize session add",
        {
            "title": "Building data recipes for terminal agents",
            "when": "2026-11-05 08:00",
            "presenter": presenter,
            "papers": "TMax\narXiv:2401.12345v2; https://arxiv.org/pdf/2401.12345v3\nT1",
            "signup_url": "https://lu.ma/paperclub-tmax",
            "description": "Where tasks come from, how they are checked, what the reward sees.",
        },
    )
    assert is_ephemeral(reply)
    assert reply.text.startswith("Added session #1.")
    assert reply.is_components_v2
    assert not reply.embeds
    assert card_title(reply) == "Building data recipes for terminal agents"
    assert CLUB_NOV5 + "\n<t:1793894400:F> (<t:1793894400:R>)" in reply.text
    assert f"**Presenter:** <@{presenter.id}> · **Duration:** 1 hour" in reply.text
    assert len(paper_entries(reply)) == 3  # the two arXiv forms are one paper
    assert announcements(env) == []
    event = event_for(env, "Building data recipes")
    assert event["entity_type"] == 3
    assert event["status"] == EVENT_SCHEDULED
    assert event["entity_metadata"]["location"] == "https://lu.ma/paperclub-tmax"
    assert event["scheduled_start_time"].startswith("2026-11-05T16:00:00")
    assert event["scheduled_end_time"].startswith("2026-11-05T17:00:00")
    assert CLUB_NOV5 in event["description"]

    # announce: one message in #announcements with three buttons, and a thread with the presenter in it
    reply = await run(env, "organize session announce", {"session": 1})
    assert is_ephemeral(reply)
    assert reply.text.startswith("Announced session #1")
    (posted,) = announcements(env)
    assert posted.is_components_v2
    assert posted.content == ""
    assert not posted.embeds
    assert f"## Building data recipes for terminal agents\n{CLUB_NOV5}" in posted.text
    assert button_ids(posted) == [
        "link:https://lu.ma/paperclub-tmax",
        "session:remind:1",
        "session:out:1",
        "session:ask:1",
        "session:ics:1",
    ]
    (thread,) = env.standin.threads
    assert thread.name == "Building data recipes for terminal agents"
    assert thread.parent_id == env.announcements.id
    assert presenter.id in thread.thread_members

    # edit: time and title; the event follows at once, the announcement waits for announce
    reply = await run(
        env, "organize session edit", {"session": 1, "when": "2026-11-05 09:30", "title": "Terminal agents"}
    )
    assert "Saved session #1: changed time, title." in reply.text
    assert "/organize session announce" in reply.text
    event = event_for(env, "Terminal agents")
    assert event["scheduled_start_time"].startswith("2026-11-05T17:30:00")
    assert event["status"] == EVENT_SCHEDULED
    assert card_title(announcements(env)[0]) == "Building data recipes for terminal agents"

    # announce again: the same message is edited, no duplicate, no second thread
    reply = await run(env, "organize session announce", {"session": 1})
    assert reply.text.startswith("Updated the announcement of session #1")
    (posted,) = announcements(env)
    assert card_title(posted) == "Terminal agents"
    assert "## Terminal agents\nThursday 5 November, 9:30 AM PT / 5:30 PM GMT / 11:00 PM IST" in posted.text
    assert len(env.standin.threads) == 1
    assert len(env.standin.requests_to("POST", rf"/channels/{env.announcements.id}/messages$")) == 1

    # a second session, announced
    second = await add_session(
        env,
        "User models and user simulators",
        "Thursday 19 November 2026 9:30 AM",
        presenter_name="Guest Speaker",
    )
    await run(env, "organize session announce", {"session": second})
    assert len(announcements(env)) == 2
    assert CLUB_NOV19 in announcements(env)[1].text

    # recap after the first session: the announcement links the recording, the thread gets a post
    await env.clock.set(datetime(2026, 11, 5, 19, 0, tzinfo=UTC))
    reply = await run(
        env,
        "organize session recap",
        {
            "session": 1,
            "recording_url": "https://youtu.be/tmax",
            "notes_url": "https://club.example/notes/tmax",
        },
    )
    assert "Saved the recap of session #1." in reply.text
    posted = announcements(env)[0]
    assert "[Recording](https://youtu.be/tmax)" in posted.text
    assert button_ids(posted) == ["session:recap:1"]  # over: only the recording form (presenter, organizers)
    (recap,) = env.messages_in(thread)
    assert "https://youtu.be/tmax" in recap.text
    assert "https://club.example/notes/tmax" in recap.text
    shown = await run(env, "session show", {"session": 1}, member=env.member)
    assert "[Notes](https://club.example/notes/tmax)" in shown.text

    # cancel the second: a notice in the channel, the announcement marked, the event cancelled
    reply = await run(env, "organize session cancel", {"session": second, "reason": "The presenter is ill"})
    assert reply.text.startswith(f"Cancelled session #{second}.")
    notice = announcements(env)[-1]
    assert notice.text.startswith("**Cancelled:** User models and user simulators (" + CLUB_NOV19)
    assert "The presenter is ill" in notice.text
    assert card_title(announcements(env)[1]) == "Cancelled: User models and user simulators"
    assert button_ids(announcements(env)[1]) == [f"session:ics:{second}"]
    assert event_for(env, "User models")["status"] == EVENT_CANCELED
    assert event_for(env, "Terminal agents")["status"] != EVENT_CANCELED
    assert len(env.scheduled_events()) == 2


async def test_events_are_dispatched_for_other_features(env) -> None:
    seen: list[tuple] = []

    def recorder(name: str):
        async def listener(*args) -> None:
            seen.append((name, *args))

        return listener

    for name in ("session_saved", "session_cancelled", "session_subscription_changed"):
        env.bot.add_listener(recorder(name), f"on_{name}")
    session_id = await add_session(env, "Events", "tomorrow 17:00")
    await run(env, "organize session edit", {"session": session_id, "duration": 90})
    await run(env, "organize session edit", {"session": session_id, "duration": 90})  # no change: no event
    await run(env, "session show", {"session": session_id, "public": True}, member=env.member)
    shown = env.messages_in(env.general)[-1]
    await (await env.click(shown, f"session:remind:{session_id}", member=env.member)).final()
    await run(env, "organize session cancel", {"session": session_id})
    await asyncio.sleep(0)
    guild = env.guild.id
    assert seen == [
        ("session_saved", guild, session_id),
        ("session_saved", guild, session_id),
        ("session_subscription_changed", guild, session_id, env.member.id, True),
        ("session_cancelled", guild, session_id),
    ]


async def test_remind_me_toggles_and_survives_restart(env) -> None:
    await configure(env)
    session_id = await add_session(env, "Reminders", "Thursday 9:30am")
    await run(env, "organize session announce", {"session": session_id})
    (posted,) = announcements(env)
    custom_id = f"session:remind:{session_id}"

    first = await (await env.click(posted, custom_id, member=env.members[1])).final()
    assert is_ephemeral(first)
    assert first.text.startswith("I'll remind you by DM an hour before **Reminders**")
    async with env.bot.session_factory() as db:
        assert list(await subscriber_ids(db, session_id)) == [env.members[1].id]

    await env.restart_bot()
    second = await (await env.click(posted, custom_id, member=env.members[1])).final()
    assert is_ephemeral(second)
    assert second.text == "OK, no reminder for **Reminders**."
    third = await (await env.click(posted, custom_id, member=env.members[2])).final()
    assert third.text.startswith("I'll remind you")
    async with env.bot.session_factory() as db:
        assert list(await subscriber_ids(db, session_id)) == [env.members[2].id]


async def test_add_to_calendar_button_gives_an_ics(env) -> None:
    await configure(env)
    session_id = await add_session(env, "Calendar", "2026-12-10 09:30", signup_url="https://lu.ma/c")
    await run(env, "organize session announce", {"session": session_id})
    await env.restart_bot()
    reply = await (
        await env.click(announcements(env)[0], f"session:ics:{session_id}", member=env.member)
    ).final()
    assert is_ephemeral(reply)
    (event,) = ics_events(reply.file(f"paperclub-session-{session_id}.ics"))
    assert str(event["SUMMARY"]) == "Calendar"
    assert str(event["STATUS"]) == "CONFIRMED"
    assert event.decoded("DTSTART") == datetime(2026, 12, 10, 17, 30, tzinfo=UTC)
    assert str(event["LOCATION"]) == "https://lu.ma/c"


async def test_calendar_command_lists_upcoming_with_sequence_and_cancellations(env) -> None:
    kept = await add_session(env, "Kept", "2026-12-10 09:30")
    moved = await add_session(env, "Moved", "2026-12-17 09:30")
    dropped = await add_session(env, "Dropped", "2027-01-07 09:30")
    await run(env, "organize session edit", {"session": moved, "when": "2026-12-17 10:00"})
    await run(env, "organize session cancel", {"session": dropped})
    reply = await run(env, "calendar file", member=env.member)
    assert is_ephemeral(reply)
    assert reply.text.startswith("2 upcoming sessions.")
    events = {str(e["SUMMARY"]): e for e in ics_events(reply.file("paperclub-sessions.ics"))}
    assert set(events) == {"Kept", "Moved", "Dropped"}
    assert int(events["Kept"]["SEQUENCE"]) == 0
    assert int(events["Moved"]["SEQUENCE"]) == 1
    assert events["Moved"].decoded("DTSTART") == datetime(2026, 12, 17, 18, 0, tzinfo=UTC)
    assert str(events["Dropped"]["STATUS"]) == "CANCELLED"
    assert len({str(e["UID"]) for e in events.values()}) == 3
    assert kept
    assert all(e.decoded("DTSTART").utcoffset() == timedelta(0) for e in events.values())


async def test_list_paginates_beyond_ten_and_pages_survive_restart(env) -> None:
    empty = await run(env, "session list", member=env.member)
    assert empty.text_displays == [
        "## Upcoming sessions\nNo sessions are scheduled yet. Organizers add them with `/organize session add`."
    ]
    for week in range(12):
        await add_session(env, f"Week {week + 1}", f"2026-12-{3 + week % 4 * 7:02d} {9 + week // 4}:30")
    listing = await run(env, "session list", member=env.member)
    assert is_ephemeral(listing)
    assert listing.embeds == []
    assert listing.text_displays[-1] == "-# Page 1 of 2 · 12 upcoming"
    assert listing.text.count("**Week ") == 10
    assert listing.text.index("**Week 1**") < listing.text.index("**Week 5**")  # soonest first
    await env.restart_bot()
    next_id = next(b["custom_id"] for b in listing.buttons if "Next" in b["label"])
    page2 = await (await env.click(listing, next_id, member=env.member)).final()
    assert page2.text_displays[-1] == "-# Page 2 of 2 · 12 upcoming"
    assert page2.text.count("**Week ") == 2
    public = await run(env, "session list", {"public": True}, member=env.member)
    assert not is_ephemeral(public)


async def test_show_and_autocomplete(env) -> None:
    await env.clock.set(OCTOBER)
    past = await add_session(env, "Sandbox infrastructure", "2026-10-22 09:30")
    soon = await add_session(env, "Building data recipes for terminal agents", "2026-11-05 08:00")
    later = await add_session(env, "User models and user simulators", "2026-11-19 09:30")
    await env.clock.set(datetime(2026, 10, 30, 12, 0, tzinfo=UTC))
    choices = await env.autocomplete("session show", "session", "", member=env.member)
    assert [c["value"] for c in choices] == [soon, later, past]
    assert choices[0]["name"] == f"#{soon} · Thu 5 Nov 2026 · Building data recipes for terminal agents"
    assert [
        c["value"] for c in await env.autocomplete("session show", "session", "user", member=env.member)
    ] == [later]
    shown = await run(env, "session show", {"session": soon}, member=env.member)
    assert is_ephemeral(shown)
    assert CLUB_NOV5 in shown.text
    assert button_ids(shown) == [f"session:remind:{soon}", f"session:out:{soon}", f"session:ics:{soon}"]
    zones = await env.autocomplete("organize session add", "timezone", "kolk", member=env.organizer)
    assert {"name": "Asia/Kolkata", "value": "Asia/Kolkata"} in zones


async def test_edit_in_a_modal(env) -> None:
    session_id = await add_session(
        env, "Modal", "2026-12-10 09:30", papers="TMax", signup_url="https://lu.ma/m"
    )
    opened = await env.invoke("organize session edit", {"session": session_id}, member=env.organizer)
    modal = (await opened.response()).modal
    assert modal is not None
    assert modal["title"] == f"Edit session #{session_id}"
    submitted = await env.submit_modal(
        opened,
        {
            "session_edit:title": "Modal, renamed",
            "session_edit:signup_url": "",
            "session_edit:papers": "TMax\nT1",
        },
        member=env.organizer,
    )
    reply = await submitted.final()
    assert "changed papers, sign-up link, title" in reply.text
    shown = await run(env, "session show", {"session": session_id})
    assert card_title(shown) == "Modal, renamed"
    assert "Sign up" not in str(shown.buttons)
    assert "**T1**" in [text for text, _ in paper_entries(shown)]
    assert "## Modal, renamed\nThursday 10 December, 9:30 AM PT" in shown.text  # time untouched


async def test_edit_options_clear_fields_with_a_dash(env) -> None:
    session_id = await add_session(
        env, "Clearing", "2026-12-10 09:30", presenter=env.members[0], description="Soon gone", papers="TMax"
    )
    reply = await run(
        env,
        "organize session edit",
        {"session": session_id, "presenter_name": "-", "description": "-", "papers": "-", "duration": 90},
    )
    assert "changed description, duration, papers, presenter" in reply.text
    assert "Presenter" not in reply.text
    assert paper_entries(reply) == []
    assert "Soon gone" not in reply.text
    assert "**Duration:** 1 h 30 min" in reply.text
    (event,) = env.scheduled_events()
    assert event["scheduled_end_time"].startswith("2026-12-10T19:00:00")
