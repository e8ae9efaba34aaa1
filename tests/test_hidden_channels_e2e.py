"""Channels Discord hides from the bot (obfuscated since 16 November 2026), through the stand-in and the real
discord.py client, on both stores: /setup refuses one and its self-check names one by id; announcing,
suggesting and reminders in one say so, post nothing there and log it once; seen again, all works."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from datetime import timedelta
from typing import Any

from sqlalchemy import func, select

from bot.hidden_channels import CHANNEL_OBFUSCATED
from db.models.reminders import Reminder
from db.models.suggestions import Suggestion
from standin.state import HIDDEN_NAME, VIEW_CHANNEL
from tests.cards import card_fields, card_report, card_title

HIDDEN_LOG = "hidden from the bot"


async def _as(env: Any, command: str, options: dict[str, Any], member: Any = None) -> Any:
    """What the member finally sees (after a defer)."""
    return await (await env.invoke(command, options, member=member or env.admin)).final()


async def _applied(env: Any, channel: Any, change: Awaitable[None]) -> None:
    """Make ``change`` and wait until the bot's discord.py has applied its CHANNEL_UPDATE."""
    waiter = asyncio.ensure_future(
        env.bot.wait_for("guild_channel_update", check=lambda _, after: after.id == channel.id, timeout=5)
    )
    await change
    await waiter


async def _hide(env: Any, channel: Any) -> None:
    """A private channel: @everyone may not view it, and the bot's role was not let in."""
    await _applied(env, channel, env.standin.set_overwrite(channel, env.guild.everyone, deny=VIEW_CHANNEL))


async def _let_the_bot_in(env: Any, channel: Any) -> None:
    await _applied(env, channel, env.standin.set_overwrite(channel, env.world.bot_role, allow=VIEW_CHANNEL))


def _cannot_see(channel: Any) -> str:
    return f"I can't see <#{channel.id}> (channel id {channel.id})"


def _posts_in(env: Any, channel: Any) -> list[Any]:
    return env.standin.requests_to("POST", rf"/channels/{channel.id}/")


def _hidden_logs(caplog: Any, channel: Any) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "paperclub.channels" and f"channel {channel.id} " in r.getMessage()
    ]


async def test_choosing_a_channel_hidden_from_the_bot_is_refused(discord_env) -> None:
    env = discord_env
    await _hide(env, env.announcements)
    forum = await env.standin.create_channel(env.guild, "reading-room", type=15, tags=["other"])
    await _hide(env, forum)
    # the bot's own copy is the obfuscated one; the option's resolved data (not obfuscated) names it whole
    cached = env.bot.get_channel(env.announcements.id)
    assert cached.name == HIDDEN_NAME
    assert env.bot.get_channel(forum.id).flags.value & CHANNEL_OBFUSCATED

    for command, channel in [("setup announcements", env.announcements), ("setup suggestions", forum)]:
        refused = await _as(env, command, {"channel": channel})
        assert refused.flags & (1 << 6)  # ephemeral
        assert refused.content == (
            f"Not saved: {_cannot_see(channel)}. Discord hides it from the bot, so nothing could be posted "
            "there.\n"
            f"• Grant the bot **View Channels** there (Edit Channel → Permissions), then run `/{command}` "
            "again; or pick another channel."
        )
        assert HIDDEN_NAME not in refused.content
    fields = card_fields(await _as(env, "setup show", {}))
    assert fields["Announcements channel"] == "not set"
    assert fields["Suggestions channel"] == "not set"

    await _let_the_bot_in(env, env.announcements)
    saved = await _as(env, "setup announcements", {"channel": env.announcements})
    assert card_title(saved) == "Saved."


async def test_the_self_check_names_a_channel_hidden_after_it_was_set(discord_env) -> None:
    env = discord_env
    await _as(env, "setup announcements", {"channel": env.announcements})
    await _as(env, "setup suggestions", {"channel": env.suggestions})
    quiet = await env.standin.create_role(env.guild, "Quiet readers", 0, mentionable=False)
    await _as(env, "setup ping_role", {"role": quiet})
    await _hide(env, env.announcements)
    await _hide(env, env.suggestions)
    expected = [
        "⚠️ **The bot is missing permissions:**",
        *(
            f"• The bot cannot see <#{channel.id}> (channel id {channel.id}): Discord hides it from the bot; "
            f"grant the bot **View Channels** there (Edit Channel → Permissions), or run `/setup {setting}` "
            "with another channel"
            for channel, setting in [(env.announcements, "announcements"), (env.suggestions, "suggestions")]
        ),
    ]  # nothing else judged in a channel the bot cannot see (no ping-role line)
    shown = await _as(env, "setup show", {}, member=env.organizer)
    assert card_report(shown).splitlines() == expected
    assert card_fields(shown)["Announcements channel"] == f"<#{env.announcements.id}>"
    # the reply to any change says it too
    changed = await _as(env, "setup timezone", {"zone": "Europe/London"})
    assert card_title(changed) == "Saved."  # said once: the report names what is missing
    assert card_report(changed).startswith("⚠️ **The bot is missing permissions:**")
    assert card_report(changed).splitlines() == expected
    # seen again: only what is left (the ping role) is reported
    await _let_the_bot_in(env, env.announcements)
    await _let_the_bot_in(env, env.suggestions)
    shown = await _as(env, "setup show", {}, member=env.organizer)
    assert card_report(shown).splitlines()[1:] == [
        f"• Make <@&{quiet.id}> mentionable (Server Settings → Roles → Quiet readers → Allow anyone to "
        "@mention this role), or reminders cannot ping it"
    ]


async def test_announce_and_suggest_in_a_channel_hidden_later(discord_env, caplog) -> None:
    env = discord_env
    await _as(env, "setup announcements", {"channel": env.announcements})
    await _as(env, "setup suggestions", {"channel": env.suggestions})
    added = await _as(
        env, "organize session add", {"title": "Terminal agents", "when": "in 3 days"}, env.organizer
    )
    assert added.text.startswith("Added session #1"), added.text
    await _hide(env, env.announcements)
    await _hide(env, env.suggestions)

    # the organizer who announces is told, by the channel's id, and nothing is posted or recorded
    reply = await _as(env, "organize session announce", {"session": 1}, env.organizer)
    assert reply.content == (
        f"Not announced: {_cannot_see(env.announcements)}: Discord hides it from the bot; grant the bot "
        "**View Channels** there (Edit Channel → Permissions), or pick another `channel`."
    )
    # a member's suggestion: refused before anything is stored, the log says it once
    with caplog.at_level(logging.WARNING, logger="paperclub.channels"):
        for _ in range(2):
            refused = await _as(env, "suggest paper", {"paper": "2406.12045"}, env.members[0])
            assert refused.content == (
                "Suggestions can't be posted right now: Discord hides the suggestions channel, "
                f"<#{env.suggestions.id}> (channel id {env.suggestions.id}), from the bot. An admin needs to "
                "grant the bot **View Channels** there, or run `/setup suggestions` with another channel."
            )
    assert len(_hidden_logs(caplog, env.suggestions)) == 1
    async with env.bot.session_factory() as session:
        assert await session.scalar(select(func.count()).select_from(Suggestion)) == 0
    assert _posts_in(env, env.announcements) == []
    assert _posts_in(env, env.suggestions) == []

    # seen again: both work
    await _let_the_bot_in(env, env.announcements)
    await _let_the_bot_in(env, env.suggestions)
    reply = await _as(env, "organize session announce", {"session": 1}, env.organizer)
    assert reply.content.startswith("Announced session #1"), reply.content
    assert [r.path.rsplit("/", 1)[1] for r in _posts_in(env, env.announcements)] == ["messages", "threads"]


async def test_reminders_to_a_hidden_channel_fail_once_with_the_reason(discord_env, caplog) -> None:
    env = discord_env
    for text in ("Read the paper", "Bring questions"):
        added = await _as(
            env,
            "organize reminder add",
            {"when": "in 1 hour", "message": text, "channel": env.general},
            env.organizer,
        )
        assert added.content.startswith("⏰ Reminder **#"), added.content
    await _hide(env, env.general)
    with caplog.at_level(logging.WARNING, logger="paperclub.channels"):
        await env.clock.advance(timedelta(hours=1))
        await env.bot.get_cog("RemindersCog").settle()
    assert _posts_in(env, env.general) == []
    async with env.bot.session_factory() as session:
        rows = list((await session.execute(select(Reminder))).scalars())
    assert [r.status for r in rows] == ["failed", "failed"]
    assert all(_cannot_see(env.general) in (r.last_error or "") for r in rows)
    assert len(_hidden_logs(caplog, env.general)) == 1  # two reminders, one warning
    # not tried again: later ticks ask Discord nothing
    await env.clock.advance(timedelta(minutes=30))
    assert _posts_in(env, env.general) == []
    listing = await _as(env, "organize reminder list", {}, env.organizer)
    assert (
        f"— {_cannot_see(env.general)}: Discord hides it from the bot; grant it View Channels there."
        in listing.text
    )
