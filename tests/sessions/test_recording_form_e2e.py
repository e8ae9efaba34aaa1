"""*Add the recording and notes* through the stand-in with the real discord.py client (SQLite and PostgreSQL):
the presenter's DM after the session carries the form, organizers find it on the past session's card, anyone
else is refused; submitting does what ``/organize session recap`` does, and the members reminded of the session get
one DM that the recording is up (not a second one when it is changed)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from db.models import ClubSession
from tests.sessions.helpers import add_session, announcements, configure, is_ephemeral, run

STARTS = datetime(2026, 12, 10, 17, 0, tzinfo=UTC)
LINKS = {"recording": "https://youtu.be/worlds", "notes": "", "wiki": ""}


def from_bot(env, messages) -> list:
    return [m for m in messages if m.author_id == env.standin.bot_user.id]


async def test_the_presenter_adds_the_recording_from_the_dm(env) -> None:
    await configure(env)
    presenter, reminded, other = env.members[0], env.members[1], env.members[2]
    session_id = await add_session(env, "Worlds", "2026-12-10 17:00", timezone="UTC", presenter=presenter)
    await run(env, "organize session announce", {"session": session_id})
    (posted,) = announcements(env)
    await (await env.click(posted, f"session:remind:{session_id}", member=reminded)).final()
    await env.bot.get_cog("RemindersCog").settle()

    await env.clock.set(STARTS + timedelta(hours=2))
    recap = from_bot(env, env.dm_messages(presenter))[-1]
    assert "Thanks for presenting" in recap.content
    form = f"session:recap:{session_id}"
    assert form in [b.get("custom_id") for b in recap.buttons]

    card = await run(env, "session show", {"session": session_id}, member=other)  # the past session's card
    refused = await (await env.click(card, form, member=other)).final()
    assert is_ephemeral(refused)
    assert refused.text == "Only the session's presenter or an organizer can add its recording and notes."

    opened = await env.click(recap, form, member=presenter)
    assert (await opened.response()).modal is not None
    bad = await (
        await env.submit_modal(opened, {**LINKS, "recording": "ftp://files/worlds"}, member=presenter)
    ).final()
    assert "must be an http(s) link" in bad.text
    async with env.bot.session_factory() as db:
        assert (await db.get(ClubSession, session_id)).recording_url is None

    opened = await env.click(recap, form, member=presenter)
    saved = await (await env.submit_modal(opened, LINKS, member=presenter)).final()
    assert saved.text.startswith("Thank you: saved.")
    async with env.bot.session_factory() as db:
        assert (await db.get(ClubSession, session_id)).recording_url == LINKS["recording"]
    await env.bot.get_cog("RemindersCog").settle()
    await env.clock.advance(timedelta(minutes=1))  # the runner's next look
    (up,) = [m for m in from_bot(env, env.dm_messages(reminded)) if "🎬" in m.content]
    assert f"<{LINKS['recording']}>" in up.content

    # an organizer changes it from the card: the members are not told twice
    card = await run(env, "session show", {"session": session_id}, member=env.organizer)
    opened = await env.click(card, form, member=env.organizer)
    changed = {**LINKS, "recording": "https://youtu.be/worlds-v2"}
    await (await env.submit_modal(opened, changed, member=env.organizer)).final()
    await env.bot.get_cog("RemindersCog").settle()
    await env.clock.advance(timedelta(minutes=1))
    assert len([m for m in from_bot(env, env.dm_messages(reminded)) if "🎬" in m.content]) == 1
    async with env.bot.session_factory() as db:
        url = await db.scalar(select(ClubSession.recording_url).where(ClubSession.id == session_id))
    assert url == "https://youtu.be/worlds-v2"
