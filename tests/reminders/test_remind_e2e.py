"""/remind end to end through the stand-in with the real discord.py client (SQLite and PostgreSQL):
fire on time without pings, restarts, downtime, retries after 429/500, a crash mid-send, DST, two runners."""

from __future__ import annotations

import asyncio
import re
import types
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select

from bot.metrics import metric, parse_metrics
from bot.services.reminders import delivery
from bot.services.reminders.runner import ReminderRunner
from cogs.reminders._transport import DiscordTransport
from db.engine import create_session_factory
from db.models.reminders import Reminder
from standin.components import text_displays
from standin.state import EPHEMERAL, SEND_MESSAGES
from tests.reminders.helpers import ManualClock, run, settle

MESSAGES = r"/channels/\d+/messages$"


def is_ephemeral(message) -> bool:
    return bool(message.flags & EPHEMERAL)


async def stored(env) -> list[Reminder]:
    async with env.bot.session_factory() as db:
        return list((await db.execute(select(Reminder).order_by(Reminder.id))).scalars())


async def add(env, when: str, message: str = "Read the paper before Thursday", **options):
    reply = await run(env, "remind add", {"when": when, "message": message, **options})
    assert is_ephemeral(reply), reply.content
    return reply


def shown(message) -> str:
    """The text of a layout (a message, or the response that edited one)."""
    return "\n".join(text_displays(message.components))


def posted(env, channel=None) -> list:
    return [m for m in env.messages_in(channel or env.general) if m.author_id == env.standin.bot_user.id]


async def test_a_reminder_goes_out_at_its_time_and_never_pings(env) -> None:
    text = f"Vote now @everyone @here <@&{env.world.readers.id}> <@{env.member.id}>"
    reply = await add(env, "tomorrow 9am", text)
    assert reply.content.startswith("⏰ Reminder **#1** will go out in <#")
    assert "Tuesday 1 December, 9:00 AM PT / 5:00 PM GMT / 10:30 PM IST" in reply.content
    assert "<t:1796144400:F>" in reply.content
    await env.clock.advance(timedelta(hours=23, minutes=59))
    assert posted(env) == []
    await env.clock.advance(timedelta(minutes=1))
    (message,) = posted(env)
    assert message.content == f"⏰ **Reminder**\n{text}"
    assert message.payload["mentions"] == []
    assert message.payload["mention_roles"] == []
    assert message.payload["mention_everyone"] is False
    assert message.payload["nonce"] == "pc-rem-1-0"
    await env.clock.advance(timedelta(days=2))
    assert len(posted(env)) == 1
    assert [(r.status, r.attempts) for r in await stored(env)] == [("sent", 1)]


async def test_the_when_autocomplete_previews_the_time(env) -> None:
    choices = await env.autocomplete("remind add", "when", "thursday 9:30am")
    assert choices == [
        {
            "name": "thursday 9:30am → Thursday 3 December 2026, 9:30 AM PT / 5:30 PM GMT",
            "value": "thursday 9:30am",
        }
    ]
    (bad,) = await env.autocomplete("remind add", "when", "someday")
    assert bad["name"].startswith("someday → ⚠ I couldn't read")
    assert len(bad["name"]) <= 100


async def test_bad_input_gets_a_clear_ephemeral_refusal_and_nothing_is_stored(env) -> None:
    cases = {
        ("2026-11-01 09:00", "x"): "is in the past",
        ("whenever it suits", "x"): "I couldn't read",
        ("2029-06-01 09:00", "x"): "too far ahead",
        ("tomorrow 9am", "    "): "message is empty",
    }  # over 1,800 characters Discord's client does not send (test_service checks the bot's own refusal)
    for (when, message), expected in cases.items():
        reply = await run(env, "remind add", {"when": when, "message": message})
        assert is_ephemeral(reply), reply.content
        assert expected in reply.content, reply.content
    member_reply = await run(env, "remind add", {"when": "tomorrow 9am", "message": "x"}, member=env.member)
    assert is_ephemeral(member_reply)
    assert member_reply.content.startswith("Only organizers")
    assert await stored(env) == []


async def test_the_pending_cap_is_a_clear_refusal(env) -> None:
    now = env.clock.now()
    async with env.bot.session_factory() as db, db.begin():
        for i in range(env.bot.settings.max_pending_reminders):
            due = now + timedelta(days=1, minutes=i)
            db.add(
                Reminder(
                    guild_id=env.guild.id,
                    kind="custom",
                    channel_id=env.general.id,
                    message="m",
                    due_at=due,
                    next_attempt_at=due,
                    status="pending",
                    attempts=0,
                    occurrence=0,
                    delayed=False,
                )
            )
    reply = await run(env, "remind add", {"when": "tomorrow 9am", "message": "one more"})
    assert is_ephemeral(reply)
    assert "already has 500 pending reminders" in reply.content
    assert len(await stored(env)) == 500


async def test_a_channel_the_bot_cannot_post_in_is_refused_with_the_permission(env) -> None:
    await env.standin.set_overwrite(env.announcements, env.world.bot_role, deny=SEND_MESSAGES)
    reply = await run(
        env, "remind add", {"when": "tomorrow 9am", "message": "x", "channel": env.announcements}
    )
    assert is_ephemeral(reply)
    assert "give me Send Messages" in reply.content
    assert await stored(env) == []


async def test_list_pages_and_cancel_with_autocomplete(env) -> None:
    for hour in range(10):
        await add(env, f"tomorrow {hour + 8}:00", f"Reminder number {hour}")
    listing = await run(env, "remind list")
    assert is_ephemeral(listing)
    assert listing.is_components_v2
    assert listing.text_displays[0] == "## Reminders: 10 pending"
    assert "Reminder number 0" in shown(listing)
    next_button = [c for c in listing.buttons if c["custom_id"].endswith(":n")][0]
    page2 = await (await env.click(listing, next_button["custom_id"])).response()
    assert "Reminder number 9" in shown(page2)
    assert "-# Page 2 of 2" in shown(page2)

    choices = await env.autocomplete("remind cancel", "reminder", "number 3")
    assert [c["value"] for c in choices] == [4]
    assert choices[0]["name"].startswith("#4 · Tue 1 Dec 11:00")
    reply = await run(env, "remind cancel", {"reminder": 4})
    assert reply.content == "Cancelled reminder **#4** (Reminder number 3)."
    again = await run(env, "remind cancel", {"reminder": 4})
    assert again.content == "There is no pending reminder #4 in this server."
    await env.clock.advance(timedelta(days=1, hours=10))
    assert len(posted(env)) == 9
    assert all("number 3" not in m.content for m in posted(env))


async def test_restart_between_scheduling_and_due_time_loses_and_doubles_nothing(env) -> None:
    await add(env, "in 2 hours", "After the restart")
    await add(env, "in 3 hours", "After two restarts", channel=env.announcements)
    await env.clock.advance(timedelta(hours=1))
    await env.restart_bot()
    await env.clock.advance(timedelta(hours=1))
    await env.restart_bot()
    await env.clock.advance(timedelta(hours=1))
    await env.restart_bot()
    await env.clock.advance(timedelta(hours=1))
    assert [m.content for m in posted(env)] == ["⏰ **Reminder**\nAfter the restart"]
    assert [m.content for m in posted(env, env.announcements)] == ["⏰ **Reminder**\nAfter two restarts"]
    assert len(env.standin.requests_to("POST", MESSAGES)) == 2


async def test_downtime_within_grace_is_sent_delayed_beyond_it_is_missed(env) -> None:
    await add(env, "in 1 hour", "Due during a short outage")
    await add(env, "in 30 minutes", "Due during a long outage")
    await env.stop_bot()
    await env.clock.advance(timedelta(minutes=90))  # then 31 min after the first, 61 after the second
    await env.clock.advance(timedelta(minutes=1))
    await env.start_bot()
    await settle(env)
    assert [m.content for m in posted(env)] == ["⏰ **Reminder** (delayed)\nDue during a short outage"]
    listing = await run(env, "remind list")
    text = shown(listing)
    assert "Missed or failed in the last week (1)" in text
    assert "Missed" in text
    assert "The bot was offline when this fell due (more than 1h late)." in text


async def test_429_and_500_from_discord_are_retried_and_it_goes_out_once(env) -> None:
    await add(env, "in 10 minutes", "Through the storm")
    env.standin.fail_next("POST", MESSAGES, 500)  # discord.py waits 1 s, then tries again
    env.standin.fail_next("POST", MESSAGES, 429, retry_after=0.05)
    await env.clock.advance(timedelta(minutes=10))
    assert [m.content for m in posted(env)] == ["⏰ **Reminder**\nThrough the storm"]
    statuses = [r.status for r in env.standin.requests_to("POST", MESSAGES)]
    assert statuses == [500, 429, 200]
    assert [(r.status, r.attempts) for r in await stored(env)] == [("sent", 1)]


async def test_when_discord_keeps_failing_the_bot_backs_off_and_tries_again(env, monkeypatch) -> None:
    async def no_wait(_seconds: float) -> None:
        return None

    # discord.py itself retries a 500 five times with real sleeps; skip those waits in this test.
    import discord.http

    monkeypatch.setattr(discord.http, "asyncio", types.SimpleNamespace(**{**vars(asyncio), "sleep": no_wait}))
    await add(env, "in 10 minutes", "Eventually")
    env.standin.fail_next("POST", MESSAGES, 500, times=5)
    await env.clock.advance(timedelta(minutes=10))
    assert posted(env) == []
    (row,) = await stored(env)
    assert row.status == "pending"
    assert row.attempts == 1
    assert "Discord answered 500" in (row.last_error or "")
    await env.clock.advance(timedelta(seconds=30))
    assert [m.content for m in posted(env)] == ["⏰ **Reminder**\nEventually"]
    assert {r.json["nonce"] for r in env.standin.requests_to("POST", MESSAGES)} == {"pc-rem-1-0"}


async def test_a_crash_between_sending_and_recording_does_not_post_twice(env, monkeypatch) -> None:
    await add(env, "in 10 minutes", "Exactly once")
    original = delivery.finish_sent

    async def crash(*args, **kwargs):
        raise ConnectionError("the process died before recording the send")

    monkeypatch.setattr(delivery, "finish_sent", crash)
    await env.clock.advance(timedelta(minutes=10))
    assert len(posted(env)) == 1
    assert (await stored(env))[0].status == "sending"
    monkeypatch.setattr(delivery, "finish_sent", original)
    await env.restart_bot()
    await env.clock.advance(timedelta(minutes=2))  # the dead claim's lease runs out; it is sent again
    assert [m.content for m in posted(env)] == ["⏰ **Reminder**\nExactly once"]
    assert len(env.standin.requests_to("POST", MESSAGES)) == 2  # the resend was answered from the nonce
    assert (await stored(env))[0].status == "sent"


async def test_weekly_reminder_keeps_its_local_time_across_the_march_change(env) -> None:
    await env.clock.set(datetime(2027, 3, 10, 18, 0, tzinfo=UTC))
    reply = await add(env, "2027-03-11 09:30", "Paper club in an hour", repeat="weekly")
    assert "repeats weekly" in reply.content
    await env.clock.set(datetime(2027, 3, 11, 17, 30, tzinfo=UTC))  # 9:30 AM PST
    assert len(posted(env)) == 1
    await env.clock.set(datetime(2027, 3, 18, 16, 29, tzinfo=UTC))  # clocks sprang forward on 14 March
    assert len(posted(env)) == 1
    await env.clock.set(datetime(2027, 3, 18, 16, 30, tzinfo=UTC))  # 9:30 AM PDT
    assert len(posted(env)) == 2
    nonces = [m.payload["nonce"] for m in posted(env)]
    assert nonces == ["pc-rem-1-0", "pc-rem-1-1"]
    listing = await run(env, "remind list")
    assert "**#1** · Thursday 25 March, 9:30 AM PT" in shown(listing)


async def test_two_runners_over_one_store_send_each_reminder_once(env, store_info) -> None:
    """A second process's runner (its own engine and connections) fires at the same moment as the bot's."""
    for i in range(12):
        channel = env.announcements if i % 2 else env.general
        await add(env, "in 5 minutes", f"Race {i}", channel=channel)
    other_engine = store_info.engine()
    try:
        clock = ManualClock(env.clock.now() + timedelta(minutes=5))
        second = ReminderRunner(
            session_factory=create_session_factory(other_engine),
            clock=clock,
            transport=DiscordTransport(env.bot),
            grace=timedelta(hours=1),
        )
        _, sent_by_second = await asyncio.gather(env.clock.advance(timedelta(minutes=5)), second.run_due())
    finally:
        await other_engine.dispose()
    contents = sorted(m.content for m in posted(env) + posted(env, env.announcements))
    assert contents == sorted(f"⏰ **Reminder**\nRace {i}" for i in range(12))
    async with env.bot.session_factory() as db:
        statuses = (await db.execute(select(Reminder.status, func.count()).group_by(Reminder.status))).all()
    assert statuses == [("sent", 12)]
    sent_by_bot = metric(
        parse_metrics(env.bot.metrics.render().decode()), "paperclub_reminders_total", outcome="sent"
    )
    assert sent_by_bot + sent_by_second == 12


async def test_cancel_autocomplete_shows_nothing_to_members(env) -> None:
    await add(env, "tomorrow 9am", "Organizers only: the secret agenda")
    assert await env.autocomplete("remind cancel", "reminder", "", member=env.member) == []
    assert await env.autocomplete("remind cancel", "reminder", "secret", member=env.member) == []
    (choice,) = await env.autocomplete("remind cancel", "reminder", "secret")
    assert choice["value"] == 1


async def test_list_page_buttons_refuse_members(env) -> None:
    for hour in range(10):
        await add(env, f"tomorrow {hour + 8}:00", f"Reminder number {hour}")
    listing = await run(env, "remind list")
    next_button = next(c for c in listing.buttons if c["custom_id"].endswith(":n"))
    refused = await (await env.click(listing, next_button["custom_id"], member=env.member)).response()
    assert refused.ephemeral
    assert refused.content.startswith("Only organizers")
    assert not refused.components
    page2 = await (await env.click(listing, next_button["custom_id"])).response()
    assert "Reminder number 9" in shown(page2)


async def test_list_is_a_layout_showing_typed_text_as_typed(env) -> None:
    typed = "[click](https://evil.example/x) **b** <@1> @everyone"
    await add(env, "tomorrow 9am", typed)
    listing = await run(env, "remind list")
    assert listing.is_components_v2
    assert listing.content == ""
    assert listing.embeds == []
    (entry,) = [text for text in listing.text_displays if text.startswith("**#1**")]
    assert re.sub(r"\\([^A-Za-z0-9\s])", r"\1", entry.split("\n")[1]) == f"└ {typed}"
    assert not re.search(r"(?<!\\)\[click\]\(", entry)  # no masked link Discord would render
    cancelled = await run(env, "remind cancel", {"reminder": 1})
    assert "\\[click]" in cancelled.content
    assert not re.search(r"(?<!\\)\[click\]\(", cancelled.content)


async def test_add_defers_before_checking_the_channel_and_still_answers(env) -> None:
    result = await env.invoke("remind add", {"when": "tomorrow 9am", "message": "x"}, member=env.organizer)
    first = await result.response()
    assert first.deferred
    assert first.ephemeral
    assert (await result.final()).content.startswith("⏰ Reminder **#1**")
    await env.standin.set_overwrite(env.general, env.world.bot_role, deny=SEND_MESSAGES)
    refused = await env.invoke("remind add", {"when": "tomorrow 9am", "message": "y"}, member=env.organizer)
    assert (await refused.response()).deferred
    final = await refused.final()
    assert is_ephemeral(final)
    assert "give me Send Messages" in final.content
