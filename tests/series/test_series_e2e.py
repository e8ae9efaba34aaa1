"""/series end to end through the stand-in with the real discord.py client and a FakeClock (SQLite and
PostgreSQL): add → show → skip → move → claim → nudge → edit → end, with the weeks' sessions, Discord events,
announcements, the open-weeks message and the organizers' thread in step."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from db.models import ClubSession
from db.models.reminders import NUDGE, PENDING, SENT, Reminder
from tests.series.helpers import (
    THURSDAY_CLUB,
    configure,
    from_bot,
    is_ephemeral,
    press,
    run,
    settle,
    thread_named,
    week_lines,
)

EVENT_SCHEDULED, EVENT_CANCELED = 1, 4
SESSION_DEC = {3: 1, 10: 2, 17: 3, 24: 4, 31: 5}  # the December weeks' session ids


def events_by_start(env) -> dict[str, tuple[str, int]]:
    return {e["scheduled_start_time"][:16]: (e["name"], e["status"]) for e in env.scheduled_events()}


async def nudges(env, status: str | None = None) -> list[tuple[int, str]]:
    async with env.bot.session_factory() as db:
        query = select(Reminder.session_id, Reminder.plan_key).where(Reminder.kind == NUDGE)
        if status is not None:
            query = query.where(Reminder.status == status)
        return sorted((await db.execute(query)).all())


async def test_add_show_skip_move_claim_nudge_edit_end(env) -> None:
    await configure(env)
    organizer, (sam, tom, uma) = env.organizer, env.members[:3]

    # add: eight weeks ahead, each an ordinary session with its Discord event; the organizers' thread opens
    reply = await run(
        env,
        "series add",
        {
            "name": "Thursday paper club",
            "day": "Thursday",
            "time": "9:30am",
            "signup_url": "https://lu.ma/pc",
        },
    )
    assert is_ephemeral(reply)
    assert reply.text.startswith(
        "Added series #1 **Thursday paper club**: Every Thursday at 9:30 AM PT, from Thursday 3 December 2026. "
        "The next 8 weeks have their sessions and Discord events"
    )
    thread = thread_named(env, "Programme · organizers")
    assert thread.parent_id == env.announcements.id
    assert organizer.id in thread.thread_members
    assert f"Nudges about open weeks go to <#{thread.id}>." in reply.text
    events = events_by_start(env)
    assert len(events) == 8
    assert events["2026-12-03T17:30"] == ("Thursday paper club", EVENT_SCHEDULED)
    assert events["2027-01-21T17:30"] == ("Thursday paper club", EVENT_SCHEDULED)

    # show (a member): every week open, no paper yet, in the club's three zones
    shown = await run(env, "series show", {"series": "Thursday paper club"}, member=sam)
    assert is_ephemeral(shown)
    lines = week_lines(shown)
    assert len(lines) == 8
    assert lines[0] == f"**{THURSDAY_CLUB}** — 🙋 **open** · 📄 **no paper yet** · #1"
    assert lines[5].startswith("**Thursday 7 January 2027, 9:30 AM PT / 5:30 PM GMT / 11:00 PM IST**")
    assert shown.is_components_v2
    assert "\nEvery Thursday at 9:30 AM PT (America/Los_Angeles) · 1 hour" in shown.text_displays[0]

    # skip Christmas Eve: the week shows why, its session and event are cancelled, nothing is nudged for it
    reply = await run(env, "series skip", {"series": "1", "date": "2026-12-24", "reason": "Christmas Eve"})
    assert reply.text.startswith("Skipped Thursday 24 December 2026 (Christmas Eve).")
    lines = week_lines(await run(env, "series show", {"series": "1"}, member=sam))
    assert lines[3] == "~~Thursday 24 December 2026~~ — **skipped**: Christmas Eve"
    assert events_by_start(env)["2026-12-24T17:30"] == ("Thursday paper club", EVENT_CANCELED)
    async with env.bot.session_factory() as db:
        christmas = await db.get(ClubSession, SESSION_DEC[24])
        assert christmas is not None
        assert christmas.status == "cancelled"
        assert christmas.cancel_reason == "Christmas Eve"
    assert not [n for n in await nudges(env, PENDING) if n[0] == SESSION_DEC[24]]

    # move 17 December to 8:00 AM (its own time, like 5 November on the club page)
    reply = await run(env, "series move", {"series": "1", "date": "17 Dec", "when": "8:00am"})
    assert "now on Thursday 17 December, 8:00 AM PT / 4:00 PM GMT / 9:30 PM IST" in reply.text
    lines = week_lines(await run(env, "series show", {"series": "1"}, member=sam))
    assert lines[2].startswith(
        "**Thursday 17 December, 8:00 AM PT / 4:00 PM GMT / 9:30 PM IST** (moved from 9:30 AM) — 🙋 **open**"
    )
    assert events_by_start(env)["2026-12-17T16:00"] == ("Thursday paper club", EVENT_SCHEDULED)
    assert "2026-12-17T17:30" not in events_by_start(env)

    # claim: the week's announcement carries I'll present; Sam takes 10 December, Tom may not take it away
    await run(env, "session announce", {"session": SESSION_DEC[10]})
    (announcement,) = from_bot(env, env.messages_in(env.announcements))
    present_id = f"series:present:{SESSION_DEC[10]}"
    assert {b.get("custom_id"): b.get("label") for b in announcement.buttons}[present_id] == "I'll present"
    reply = await press(env, announcement, present_id, sam)
    assert is_ephemeral(reply)
    assert reply.text.startswith("🎤 You present **Thursday paper club** on Thursday 10 December, 9:30 AM PT")
    announcement = env.standin.message(announcement.id)
    assert f"**Presenter:** <@{sam.id}>" in announcement.text
    assert {b.get("custom_id"): b.get("label") for b in announcement.buttons}[
        present_id
    ] == "Step down as presenter"
    refused = await press(env, announcement, present_id, tom)
    assert is_ephemeral(refused)
    assert refused.content == (
        f"<@{sam.id}> presents Thursday 10 December 2026. Only they can step down; an organizer can change "
        "it with `/session edit`."
    )
    async with env.bot.session_factory() as db:
        week = await db.get(ClubSession, SESSION_DEC[10])
        assert week is not None
        assert week.presenter_id == sam.id
    assert (SESSION_DEC[10], "nudge:presenter") not in await nudges(env, PENDING)
    # pressing again steps down; once more takes it back
    assert "no longer present" in (await press(env, announcement, present_id, sam)).content
    assert "You present" in (await press(env, announcement, present_id, sam)).content

    # the open weeks, one message with a claim button each; Uma takes 3 December from it
    reply = await run(env, "series open", {"series": "1"})
    assert reply.text.startswith(
        "Posted the open weeks of **Thursday paper club**: https://discord.com/channels/"
    )
    board = from_bot(env, env.messages_in(env.announcements))[-1]
    assert [b["label"] for b in board.buttons] == [
        "Thu 3 Dec", "Thu 17 Dec", "Thu 31 Dec", "Thu 7 Jan", "Thu 14 Jan", "Thu 21 Jan"
    ]  # fmt: skip
    reply = await press(env, board, f"series:present:{SESSION_DEC[3]}", uma)
    assert reply.text.startswith("🎤 You present")
    board = env.standin.message(board.id)
    assert "Thu 3 Dec" not in [b["label"] for b in board.buttons]
    again = await run(env, "series open", {"series": "1"})
    assert again.text.startswith("Updated the open weeks of")
    assert len(from_bot(env, env.messages_in(env.announcements))) == 2  # the announcement and the board

    # nudges: 3 December still has no paper, so the organizers hear at once; a week later, the moved
    # 17 December (no presenter, no paper) and 10 December (no paper); once each, never for 24 December
    await env.clock.advance(timedelta(minutes=1))
    await settle(env)
    posted = [m.content for m in from_bot(env, env.messages_in(thread))]
    assert posted[0].startswith("This thread is for the club's organizers.")
    assert posted[1].startswith("📄 **Thursday paper club** still has **no paper**: " + THURSDAY_CLUB)
    assert posted[1].endswith(f"Set it with `/session edit session:{SESSION_DEC[3]} papers:…`.")
    assert len(posted) == 2
    await env.clock.set(datetime(2026, 12, 10, 16, 1, tzinfo=UTC))  # a week before 17 December, 8:00 AM PT
    await settle(env)
    posted = [m.content for m in from_bot(env, env.messages_in(thread))][2:]
    board_url = f"https://discord.com/channels/{env.guild.id}/{env.announcements.id}/{board.id}"
    assert (
        "🙋 **Thursday paper club** still has **no presenter**: Thursday 17 December, 8:00 AM PT / 4:00 PM GMT / "
        "9:30 PM IST"
    ) in posted[-2] + posted[-1]
    assert any(text.endswith(f"Members can claim it here: {board_url}") for text in posted)
    sent = await nudges(env, SENT)
    assert sent == sorted(
        [
            (SESSION_DEC[3], "nudge:paper"),
            (SESSION_DEC[10], "nudge:paper"),
            (SESSION_DEC[17], "nudge:paper"),
            (SESSION_DEC[17], "nudge:presenter"),
        ]
    )
    # the daily job again (a restart): nothing is nudged twice
    await env.restart_bot()
    await env.bot.get_cog("SeriesCog").background.ready(env.guild.id).wait()
    await env.clock.advance(timedelta(minutes=1))
    await settle(env)
    assert await nudges(env, SENT) == sent
    assert len(from_bot(env, env.messages_in(thread))) == 1 + len(sent)

    # edit: the weeks ahead move to 10:00 AM; 17 December keeps its own time, 10 December has begun
    await env.clock.set(datetime(2026, 12, 10, 17, 45, tzinfo=UTC))
    reply = await run(env, "series edit", {"series": "1", "time": "10:00am"})
    assert reply.text.startswith("Saved **Thursday paper club**: changed time.")
    lines = week_lines(await run(env, "series show", {"series": "1"}, member=sam))
    assert lines[0].startswith("**Thursday 10 December, 9:30 AM PT / 5:30 PM GMT / 11:00 PM IST** — 🎤")
    assert lines[1].startswith(
        "**Thursday 17 December, 8:00 AM PT / 4:00 PM GMT / 9:30 PM IST** (moved from 10:00 AM)"
    )
    assert lines[2] == "~~Thursday 24 December 2026~~ — **skipped**: Christmas Eve"
    assert lines[3].startswith(
        "**Thursday 31 December, 10:00 AM PT / 6:00 PM GMT / 11:30 PM IST** — 🙋 **open**"
    )
    events = events_by_start(env)
    assert events["2026-12-31T18:00"] == ("Thursday paper club", EVENT_SCHEDULED)
    assert "2026-12-31T17:30" not in events
    assert events["2026-12-17T16:00"][1] == EVENT_SCHEDULED

    # end after 7 January: the later weeks and their events are cancelled
    reply = await run(env, "series end", {"series": "1", "after": "2027-01-07"})
    assert reply.text.startswith("**Thursday paper club** ends after Thursday 7 January 2027.")
    shown = await run(env, "series show", {"series": "1"}, member=sam)
    lines = week_lines(shown)
    assert lines[-1].startswith("**Thursday 7 January 2027, 10:00 AM PT")
    assert "until Thursday 7 January 2027" in shown.text
    events = events_by_start(env)
    assert events["2027-01-14T18:00"] == ("Thursday paper club", EVENT_CANCELED)
    assert events["2027-01-07T18:00"] == ("Thursday paper club", EVENT_SCHEDULED)
    listed = await run(env, "series list", member=sam)
    assert "**#1 · Thursday paper club** — Every Thursday at 10:00 AM PT · next Thu 17 Dec" in listed.text
