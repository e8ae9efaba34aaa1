"""The README's invite alone carries every flow that posts in a channel: with @everyone granting the bot
nothing, its permissions are exactly bot.permissions.REQUIRED_PERMISSIONS, and the setup, a session's
event, announcement, thread, reminders, cancellation reply and recap, a forum suggestion and its thread
note, and a poll's result reply all go through the stand-in's permission checks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.permissions import REQUIRED_PERMISSIONS
from standin.state import USE_APPLICATION_COMMANDS, member_permissions
from tests.cards import card_report, card_title
from tests.suggestions.helpers import invoke_to_completion, latest_suggestion_id, suggest

# The clock starts Monday 30 November 2026; the session is that Thursday at 9:30 AM PT.
STARTS = datetime(2026, 12, 3, 17, 30, tzinfo=UTC)


async def _final(env, name: str, options: dict | None = None, member=None):
    return await (await env.invoke(name, options or {}, member=member or env.organizer)).final()


def _from_bot(env, channel) -> list:
    return [m for m in env.messages_in(channel) if m.author_id == env.standin.bot_user.id]


def _refused(env) -> list:
    return [r for r in env.requests if r.status == 403]


async def test_the_invite_alone_is_enough(discord_env) -> None:
    env = discord_env
    # Members keep using commands; @everyone gives the bot nothing it could lean on.
    await env.standin.set_role_permissions(env.guild.everyone, USE_APPLICATION_COMMANDS)
    bot = env.guild.members[env.standin.bot_user.id]
    for channel in (env.announcements, env.suggestions, env.general):
        assert (
            member_permissions(env.guild, bot, channel)
            == REQUIRED_PERMISSIONS.value | USE_APPLICATION_COMMANDS
        )

    for command, options in [
        ("setup announcements", {"channel": env.announcements}),
        ("setup suggestions", {"channel": env.suggestions}),
        ("setup ping_role", {"role": env.world.readers}),
    ]:
        saved = await (await env.invoke(command, options, member=env.admin)).response()
        assert card_title(saved) == "Saved.", command
        assert card_report(saved).startswith("✅")

    # a session: its event, announcement (a layout), thread with the presenter in it
    presenter = env.members[0]
    added = await _final(
        env,
        "organize session add",
        {"title": "Terminal agents", "when": "Thursday 9:30am", "presenter": presenter},
    )
    assert added.text.startswith("Added session #1."), added.text
    assert "grant" not in added.text
    (event,) = env.scheduled_events()
    announced = await _final(env, "organize session announce", {"session": 1})
    assert announced.text.startswith("Announced session #1"), announced.text
    assert "could not" not in announced.text
    (post,) = _from_bot(env, env.announcements)
    assert post.is_components_v2
    assert post.text_displays[0].startswith("## Terminal agents\n")
    (thread,) = env.standin.threads
    assert presenter.id in thread.thread_members
    # an edit moves the bot's own event (Create Events is enough for it)
    edited = await _final(env, "organize session edit", {"session": 1, "when": "Thursday 10:30am"})
    assert "grant" not in edited.text, edited.text
    assert env.scheduled_events()[0]["scheduled_start_time"].startswith("2026-12-03T18:30:00")

    # the automatic reminder a day ahead pings the ping role (its planning follows the edit's event:
    # let it finish before the clock moves, or the alarm can run between the old plan and the new)
    await env.bot.get_cog("RemindersCog").settle()
    await env.clock.set(STARTS + timedelta(hours=1) - timedelta(hours=24))
    reminder = _from_bot(env, env.announcements)[-1]
    assert "⏰" in reminder.content
    assert reminder.payload["mention_roles"] == [str(env.world.readers.id)]

    # a second session, cancelled after its announcement: the notice replies to it
    await _final(env, "organize session add", {"title": "User simulators", "when": "2026-12-10 09:30"})
    await _final(env, "organize session announce", {"session": 2})
    cancelled = await _final(env, "organize session cancel", {"session": 2, "reason": "the presenter is ill"})
    assert "could not" not in cancelled.content, cancelled.content
    notice = _from_bot(env, env.announcements)[-1]
    assert (
        str(notice.payload["message_reference"]["message_id"])
        == _from_bot(env, env.announcements)[-2].payload["id"]
    )

    # after the first session, the recap goes into its thread
    await env.clock.set(STARTS + timedelta(hours=3))
    recap = await _final(
        env, "organize session recap", {"session": 1, "recording_url": "https://youtu.be/tmax"}
    )
    assert "could not" not in recap.content, recap.content
    assert "https://youtu.be/tmax" in env.messages_in(thread)[-1].content

    # a suggestion: a forum post (a layout), and a note in its thread when reviewed
    for member, title in zip(
        env.members[:2], ["Agent World Model: synthetic worlds", "Tau-Bench revisited"], strict=True
    ):
        await suggest(env, member, paper=title)
    sid = await latest_suggestion_id(env)
    forum_posts = [t for t in env.standin.threads if t.parent_id == env.suggestions.id]
    assert len(forum_posts) == 2
    assert all(env.messages_in(t)[0].is_components_v2 for t in forum_posts)
    await _final(env, "organize suggestions review", {"suggestion": str(sid), "decision": "shortlist"})
    assert any("Shortlisted" in m.content for t in forum_posts for m in env.messages_in(t)[1:])

    # a poll in #general, and its result replying to it when it ends
    await invoke_to_completion(env, "organize suggestions poll", {"hours": 1}, channel=env.general)
    await env.clock.advance(timedelta(hours=1, minutes=2))
    result = env.messages_in(env.general)[-1]
    assert "The paper poll has ended" in result.content
    assert (
        str(result.payload["message_reference"]["message_id"])
        == env.messages_in(env.general)[-2].payload["id"]
    )

    assert _refused(env) == []
