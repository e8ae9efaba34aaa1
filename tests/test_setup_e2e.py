"""/setup end to end through the stand-in with the real discord.py client."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.tree import APOLOGY

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
    embed = response.embeds[0]
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert fields["Time zone"] == "America/Los_Angeles"
    assert fields["Announcements channel"] == "not set"
    assert fields["Reminder offsets"] == "24h,1h"


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
    assert ok.content == "Saved."
    ok = await (await env.invoke("setup timezone", {"zone": "ET"}, member=env.admin)).response()
    fields = {f["name"]: f["value"] for f in ok.embeds[0]["fields"]}
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
    fields = {f["name"]: f["value"] for f in shown.embeds[0]["fields"]}
    assert fields["Time zone"] == "America/Los_Angeles"
    assert fields["Reminder offsets"] == "24h,1h"


async def test_timezone_autocomplete(discord_env) -> None:
    choices = await discord_env.autocomplete("setup timezone", "zone", "kolk", member=discord_env.admin)
    assert any(c["value"] == "Asia/Kolkata" for c in choices)
    assert len(choices) <= 25


async def test_settings_survive_restart_without_resync(discord_env) -> None:
    env = discord_env
    await (await env.invoke("setup timezone", {"zone": "IST"}, member=env.admin)).response()
    await env.restart_bot()
    shown = await (await env.invoke("setup show", member=env.admin)).response()
    fields = {f["name"]: f["value"] for f in shown.embeds[0]["fields"]}
    assert fields["Time zone"] == "Asia/Kolkata"
    puts = env.standin.requests_to("PUT", r"/applications/\d+/commands$")
    assert len(puts) == 1  # the command set did not change: no second sync


async def test_unexpected_error_is_logged_and_apologised(discord_env, monkeypatch, caplog) -> None:
    env = discord_env
    from cogs.setup import _cog as setup_cog

    def explode(*args, **kwargs):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(setup_cog, "render_settings_embed", explode)
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
    assert response.embeds
    assert response.embeds[0]["title"] == "Paper club settings"
    with pytest.raises(PermissionError):
        await env.invoke("setup show", member=env.members[0])


async def test_everything_the_bot_calls_is_local(discord_env) -> None:
    settings = discord_env.bot.settings
    assert settings.discord_api_base is not None
    assert settings.discord_api_base.startswith("http://127.0.0.1:")
    assert settings.arxiv_api_url.startswith("http://127.0.0.1:")
