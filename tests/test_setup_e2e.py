"""/setup end to end through the stand-in with the real discord.py client."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from bot.permissions import REQUIRED_PERMISSIONS
from bot.tree import APOLOGY
from standin.components import text_displays
from standin.state import (
    CREATE_EVENTS,
    CREATE_PUBLIC_THREADS,
    EMBED_LINKS,
    MANAGE_EVENTS,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
)
from tests.cards import card_fields, card_report, card_title

EPHEMERAL = 1 << 6


async def test_commands_synced_and_valid(discord_env) -> None:
    names = {c["name"] for c in discord_env.standin.commands()}
    assert "setup" in names
    puts = discord_env.standin.requests_to("PUT", r"/applications/\d+/commands$")
    assert len(puts) == 1
    assert puts[0].status == 200


async def test_setup_show_defaults_for_new_guild(discord_env) -> None:
    result = await discord_env.invoke("setup show", member=discord_env.organizer)
    response = await result.response()
    assert response.ephemeral
    fields = card_fields(response)
    assert fields["Time zone"] == "America/Los_Angeles"
    assert fields["Announcements channel"] == "not set"
    assert fields["Reminders"] == "24 hours and 1 hour before each session"


async def test_setup_changes_need_manage_server(discord_env) -> None:
    env = discord_env
    refused = await (await env.invoke("setup timezone", {"zone": "ET"}, member=env.organizer)).response()
    assert refused.ephemeral
    assert "Manage Server" in refused.content
    refused = await (await env.invoke("setup show", member=env.members[0])).response()
    assert refused.ephemeral
    assert "organizers" in refused.content.lower()

    ok = await (
        await env.invoke("setup announcements", {"channel": env.announcements}, member=env.admin)
    ).response()
    assert ok.ephemeral
    assert card_title(ok) == "Saved."
    ok = await (await env.invoke("setup timezone", {"zone": "ET"}, member=env.admin)).response()
    fields = card_fields(ok)
    assert fields["Time zone"] == "America/New_York"
    assert fields["Announcements channel"] == f"<#{env.announcements.id}>"


async def test_setup_bad_input_is_ephemeral_and_stores_nothing(discord_env) -> None:
    env = discord_env
    bad = await (await env.invoke("setup timezone", {"zone": "Mars/Olympus"}, member=env.admin)).response()
    assert bad.ephemeral
    assert "Mars/Olympus" in bad.content
    bad = await (await env.invoke("setup reminder_offsets", {"offsets": "soon"}, member=env.admin)).response()
    assert bad.ephemeral
    shown = await (await env.invoke("setup show", member=env.admin)).response()
    fields = card_fields(shown)
    assert fields["Time zone"] == "America/Los_Angeles"
    assert fields["Reminders"] == "24 hours and 1 hour before each session"


async def test_timezone_autocomplete(discord_env) -> None:
    choices = await discord_env.autocomplete("setup timezone", "zone", "kolk", member=discord_env.admin)
    assert any(c["value"] == "Asia/Kolkata" for c in choices)
    assert len(choices) <= 25


async def test_settings_survive_restart_without_resync(discord_env) -> None:
    env = discord_env
    await (await env.invoke("setup timezone", {"zone": "IST"}, member=env.admin)).response()
    await env.restart_bot()
    shown = await (await env.invoke("setup show", member=env.admin)).response()
    fields = card_fields(shown)
    assert fields["Time zone"] == "Asia/Kolkata"
    puts = env.standin.requests_to("PUT", r"/applications/\d+/commands$")
    assert len(puts) == 1  # the command set did not change: no second sync


async def test_unexpected_error_is_logged_and_apologised(discord_env, monkeypatch, caplog) -> None:
    env = discord_env
    from cogs.setup import _cog as setup_cog

    def explode(*args, **kwargs):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(setup_cog, "settings_card", explode)
    with caplog.at_level(logging.INFO):
        response = await (await env.invoke("setup show", member=env.admin)).response()
    assert response.ephemeral
    assert response.content == APOLOGY
    record = next(r for r in caplog.records if r.levelno == logging.ERROR)
    assert "command=setup show" in record.getMessage()
    assert f"guild={env.guild.id}" in record.getMessage()
    assert any("outcome=error" in r.getMessage() for r in caplog.records)
    assert "sandbox-token" not in caplog.text


@pytest.mark.parametrize("command", ["setup show"])
async def test_interaction_log_line(discord_env, caplog, command) -> None:
    completed = asyncio.ensure_future(discord_env.bot.wait_for("app_command_completion", timeout=5))
    with caplog.at_level(logging.INFO, logger="paperclub.interactions"):
        await (await discord_env.invoke(command, member=discord_env.admin)).response()
        await completed
    lines = [r.getMessage() for r in caplog.records if r.name == "paperclub.interactions"]
    assert any(
        f"command={command}" in line and "outcome=ok" in line and "latency_ms=" in line for line in lines
    )


async def test_default_permissions_let_organizers_see_setup(discord_env) -> None:
    env = discord_env
    env.standin.enforce_command_permissions = True
    response = await (await env.invoke("setup show", member=env.organizer)).response()
    assert card_title(response) == "Paper club settings"
    with pytest.raises(PermissionError):
        await env.invoke("setup show", member=env.members[0])


async def test_everything_the_bot_calls_is_local(discord_env) -> None:
    settings = discord_env.bot.settings
    assert settings.discord_api_base is not None
    assert settings.discord_api_base.startswith("http://127.0.0.1:")
    assert settings.arxiv_api_url.startswith("http://127.0.0.1:")


# -- what the bot lacks, computed from the roles and overwrites the gateway gave ---------------------------------


async def _setup(env, command: str, options: dict):
    return await (await env.invoke(command, options, member=env.admin)).response()


def _settings_fields(response) -> dict[str, str]:
    return card_fields(response)


async def test_setup_show_says_nothing_is_missing_with_the_invites_permissions(discord_env) -> None:
    env = discord_env
    for command, options in [
        ("setup announcements", {"channel": env.announcements}),
        ("setup suggestions", {"channel": env.suggestions}),
        ("setup ping_role", {"role": env.world.readers}),
    ]:
        saved = await _setup(env, command, options)
        assert card_title(saved) == "Saved."
    shown = await (await env.invoke("setup show", member=env.organizer)).response()
    assert card_report(shown) == "✅ The bot has every permission the club's settings need."


async def test_a_channel_the_bot_cannot_post_in_is_refused_with_the_fix(discord_env) -> None:
    env = discord_env
    # a private channel: @everyone may not see it, and the bot's role was not let in
    await env.standin.set_overwrite(env.announcements, env.guild.everyone, deny=VIEW_CHANNEL)
    refused = await _setup(env, "setup announcements", {"channel": env.announcements})
    assert refused.ephemeral
    channel = env.announcements.id
    assert refused.content.startswith(f"Not saved: I can't see <#{channel}> (channel id {channel}).")
    assert "Grant the bot **View Channels** there (Edit Channel → Permissions)" in refused.content
    assert "Send Messages" not in refused.content  # judged once the bot can see the channel
    assert "run `/setup announcements` again" in refused.content
    shown = await _setup(env, "setup show", {})
    assert _settings_fields(shown)["Announcements channel"] == "not set"

    # let the bot's role in, but read-only
    await env.standin.set_overwrite(
        env.announcements, env.world.bot_role, allow=VIEW_CHANNEL, deny=SEND_MESSAGES
    )
    refused = await _setup(env, "setup announcements", {"channel": env.announcements})
    assert "Grant the bot **Send Messages**" in refused.content
    assert "Embed Links" not in refused.content  # implied by Send Messages
    # allowed to post: saved
    await env.standin.set_overwrite(env.announcements, env.world.bot_role, allow=VIEW_CHANNEL)
    saved = await _setup(env, "setup announcements", {"channel": env.announcements})
    assert card_title(saved) == "Saved."
    assert _settings_fields(saved)["Announcements channel"] == f"<#{env.announcements.id}>"


async def test_lesser_gaps_are_saved_and_said_prominently(discord_env) -> None:
    env = discord_env
    await env.standin.set_overwrite(
        env.announcements, env.world.bot_role, deny=EMBED_LINKS | CREATE_PUBLIC_THREADS
    )
    saved = await _setup(env, "setup announcements", {"channel": env.announcements})
    assert saved.ephemeral
    assert card_title(saved) == "Saved."  # said once: the report names what is missing
    assert card_report(saved).startswith("⚠️ **The bot is missing permissions:**")
    assert _settings_fields(saved)["Announcements channel"] == f"<#{env.announcements.id}>"
    lines = card_report(saved).splitlines()
    channel = f"<#{env.announcements.id}>"
    assert lines[0] == "⚠️ **The bot is missing permissions:**"
    assert lines[1:] == [
        f"• Grant the bot **Embed Links** in {channel} (an announcement is an embed; Edit Channel → Permissions)",
        f"• Grant the bot **Create Public Threads** in {channel} "
        "(each announcement opens a discussion thread; Edit Channel → Permissions)",
    ]
    # /setup show says the same; granting them clears the list
    shown = await (await env.invoke("setup show", member=env.organizer)).response()
    assert card_report(shown).splitlines() == lines
    await env.standin.set_overwrite(env.announcements, env.world.bot_role)
    shown = await (await env.invoke("setup show", member=env.organizer)).response()
    assert card_report(shown).startswith("✅")


async def test_server_forum_and_ping_role_gaps(discord_env) -> None:
    env = discord_env
    quiet = await env.standin.create_role(env.guild, "Quiet readers", 0, mentionable=False)
    await _setup(env, "setup announcements", {"channel": env.announcements})
    await _setup(env, "setup suggestions", {"channel": env.suggestions})
    saved = await _setup(env, "setup ping_role", {"role": quiet})
    assert card_title(saved) == "Saved."  # said once: the report names what is missing
    assert card_report(saved).startswith("⚠️ **The bot is missing permissions:**")
    assert f"• Make <@&{quiet.id}> mentionable" in card_report(saved)
    assert "reminders cannot ping it" in card_report(saved)
    # an older invite: Manage Events, no Create Events; and no posting in the forum's threads
    await env.standin.set_bot_permissions((REQUIRED_PERMISSIONS.value & ~CREATE_EVENTS) | MANAGE_EVENTS)
    await env.standin.set_overwrite(env.suggestions, env.world.bot_role, deny=SEND_MESSAGES_IN_THREADS)
    shown = await (await env.invoke("setup show", member=env.organizer)).response()
    lines = card_report(shown).splitlines()
    assert lines[1] == (
        "• Grant the bot **Create Events** in the server "
        "(each session gets a Discord event; Server Settings → Roles)"
    )
    assert f"• Grant the bot **Send Messages in Threads** in <#{env.suggestions.id}>" in lines[3]
    assert len(lines) == 4, lines


async def test_a_configured_channel_that_is_gone(discord_env) -> None:
    env = discord_env
    await _setup(env, "setup announcements", {"channel": env.general})
    channel = env.general
    del env.guild.channels[channel.id]  # deleted by an admin: Discord says CHANNEL_DELETE
    await env.standin.gateway.dispatch("CHANNEL_DELETE", channel.payload())
    shown = await (await env.invoke("setup show", member=env.organizer)).response()
    assert f"<#{env.general.id}> is gone: run `/setup announcements` with another channel" in (
        card_report(shown)
    )


async def test_a_stale_first_read_of_the_synced_hash_does_not_sync_again(discord_env, monkeypatch) -> None:
    """Processes starting together: one read the hash before another process's sync committed it, then
    takes the lease after that process released it. It reads the hash again under the lease: no second
    sync. (Seen as two syncs with three processes at load 7 before the second read.)"""
    env = discord_env
    from bot import command_sync

    real = command_sync.synced_digest
    reads: list[str | None] = []

    async def stale_first(session, key):
        value = await real(session, key)
        reads.append(value)
        return None if len(reads) == 1 else value  # the first read predates the other process's commit

    monkeypatch.setattr(command_sync, "synced_digest", stale_first)
    await env.restart_bot()
    assert len(reads) == 2
    assert reads[1] is not None
    puts = env.standin.requests_to("PUT", r"/applications/\d+/commands$")
    assert len(puts) == 1  # only the first start's sync
    shown = await (await env.invoke("setup show", member=env.admin)).response()
    assert card_title(shown) == "Paper club settings"


def _next_steps(message: Any) -> list[str]:
    return [
        line
        for text in text_displays(message.components)
        for line in text.split("\n")
        if line.startswith("Next:")
    ]


async def test_setup_show_lists_the_steps_still_missing_as_commands(discord_env) -> None:
    env = discord_env
    shown = await (await env.invoke("setup show", member=env.organizer)).response()
    assert _next_steps(shown) == [
        "Next: `/setup announcements` — where sessions are announced",
        "Next: `/setup suggestions` — where members' suggestions are posted",
        "Next: `/setup organizer_role` — who may run the club's organizer commands",
        "Next: `/setup ping_role` — the role session reminders ping",
    ]
    text = "\n".join(text_displays(shown.components))
    assert "America/Los_Angeles=" not in text  # settings as an organizer reads them
    assert "24h" not in text
    assert card_fields(shown)["Times shown in"] == "PT, London, IST"
    await _setup(env, "setup suggestions", {"channel": env.suggestions})
    saved = await _setup(env, "setup announcements", {"channel": env.announcements})
    assert _next_steps(saved) == [
        "Next: `/setup organizer_role` — who may run the club's organizer commands",
        "Next: `/setup ping_role` — the role session reminders ping",
    ]
    await _setup(env, "setup organizer_role", {"role": env.world.readers})
    await _setup(env, "setup ping_role", {"role": env.world.readers})
    shown = await (await env.invoke("setup show", member=env.organizer)).response()
    assert _next_steps(shown) == []
