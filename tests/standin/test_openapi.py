"""Every request the stand-in answers is checked against Discord's OpenAPI description, and a violation
fails the test that caused it, naming the operation and the JSON pointer of the offending value."""

from __future__ import annotations

import copy
import importlib
import json
import textwrap
import tomllib
from pathlib import Path

import aiohttp
import discord
import pytest
from multidict import MultiDict

from standin import StandIn, limits, spec_quirks
from standin.openapi import ApiSpec, SpecViolationError, Violation, load_spec
from standin.server import DefaultGuild
from tests.standin.helpers import BareBot

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]


def check(method: str, path: str, body: object = None, **query: str) -> list[Violation]:
    _, violations = load_spec().check(method, path, MultiDict(query), body, has_body=body is not None)
    return violations


def where(violations: list[Violation]) -> list[tuple[str, str]]:
    return [(v.operation_id, v.pointer) for v in violations]


# -- the matcher and the validators, directly -------------------------------------------------------------
def test_matching_prefers_literal_segments_and_names_the_operation() -> None:
    spec = load_spec()
    found = spec.match("GET", "/users/@me")
    assert found is not None
    assert found[0].operation_id == "get_my_user"
    found = spec.match("GET", "/users/80351110224678912")
    assert found is not None
    assert (found[0].operation_id, found[1]) == ("get_user", {"user_id": "80351110224678912"})
    found = spec.match("PATCH", "/webhooks/1/tok/messages/@original")
    assert found is not None
    assert found[0].operation_id == "update_original_webhook_message"
    found = spec.match("PUT", "/channels/1/messages/2/reactions/%F0%9F%91%8D/@me")
    assert found is not None
    assert found[1]["emoji_name"] == "👍"
    assert spec.match("POST", "/users/@me") is None  # no such method on that path


def test_body_path_and_query_violations_carry_operation_and_pointer() -> None:
    assert check("POST", "/channels/1/messages", {"content": "hi", "embeds": [{"title": "t"}]}) == []
    bad_body = {"embeds": [{"title": "t" * 257}], "components": [{"type": 1, "components": [{"type": 99}]}]}
    assert where(check("POST", "/channels/1/messages", bad_body)) == [
        ("create_message", "/body/embeds/0/title"),
        ("create_message", "/body/components/0/components/0/type"),
    ]
    assert where(check("GET", "/channels/general/messages")) == [("list_messages", "/path/channel_id")]
    assert where(check("GET", "/channels/1/messages", limit="500")) == [("list_messages", "/query/limit")]
    assert where(check("GET", "/channels/1/messages", limit="ten")) == [("list_messages", "/query/limit")]
    assert check("GET", "/guilds/1", with_counts="true") == []
    assert where(check("GET", "/guilds/1", with_counts="maybe")) == [("get_guild", "/query/with_counts")]
    assert where(check("POST", "/channels/1/messages")) == [("create_message", "/body")]
    [unknown] = check("GET", "/channels/1/nothing-here")
    assert unknown.operation_id == "(no operation)"


def test_a_union_member_is_checked_against_its_own_branch_only() -> None:
    button = {"type": 2, "style": 1, "label": "x" * 81, "custom_id": "remind"}
    [violation] = check("POST", "/channels/1/messages", {"components": [{"type": 1, "components": [button]}]})
    assert violation.pointer == "/body/components/0/components/0/label"
    assert "is too long" in violation.message


def test_formats_are_checked() -> None:
    event = {
        "name": "Reading",
        "privacy_level": 2,
        "entity_type": 3,
        "entity_metadata": {"location": "Room 4"},
        "scheduled_start_time": "2026-12-03T16:00:00+00:00",
        "scheduled_end_time": "2026-12-03T17:00:00Z",
    }
    assert check("POST", "/guilds/1/scheduled-events", event) == []
    event["scheduled_start_time"] = "next Thursday"
    assert where(check("POST", "/guilds/1/scheduled-events", event)) == [
        ("create_guild_scheduled_event", "/body/scheduled_start_time")
    ]
    embed = {"title": "Paper", "url": "arxiv.org/abs/1706.03762"}  # no scheme: not a URI
    assert where(check("POST", "/channels/1/messages", {"embeds": [embed]})) == [
        ("create_message", "/body/embeds/0/url")
    ]


def test_a_union_refusing_every_type_names_the_types_it_takes() -> None:
    [violation] = check("POST", "/channels/1/messages", {"message_reference": {"message_id": 1.5}})
    assert violation.pointer == "/body/message_reference/message_id"
    assert violation.message == "1.5 is not of type 'string', 'integer'"


def test_remembered_outcomes_keep_bodies_apart() -> None:
    bad = {"content": "hi", "flags": True}
    for _ in range(2):  # the second answer comes from the remembered outcome
        assert where(check("POST", "/channels/1/messages", bad)) == [("create_message", "/body/flags")]
    assert check("POST", "/channels/1/messages", {"content": "hi", "flags": 1}) == []
    assert where(check("PATCH", "/channels/1/messages/2", bad)) == [("update_message", "/body/flags")]


def test_messages_cut_the_offending_value_short() -> None:
    [violation] = check("POST", "/channels/1/messages", {"content": "x" * 5000})
    assert violation.pointer == "/body/content"
    assert "(5000 long) is too long" in violation.message
    assert len(violation.message) < 120


def test_quirks_patch_the_loaded_copy_narrowly() -> None:
    option = {"type": 7, "name": "forum", "description": "Where", "channel_types": [15, 16]}
    command = {"name": "setup", "description": "Set up", "options": [option]}
    assert check("PUT", "/applications/1/commands", [command]) == []
    option["channel_types"] = [17]
    assert where(check("PUT", "/applications/1/commands", [command])) == [
        ("bulk_set_application_commands", "/body/0/options/0/channel_types/0")
    ]
    mentions = {"content": "hi", "allowed_mentions": {"parse": [], "users": [80351110224678912]}}
    assert check("POST", "/channels/1/messages", mentions) == []
    mentions["allowed_mentions"]["users"] = ["@everyone"]  # type: ignore[index]
    assert where(check("POST", "/channels/1/messages", mentions)) == [
        ("create_message", "/body/allowed_mentions/users/0")
    ]
    mentions["allowed_mentions"]["users"] = [2**64]  # type: ignore[index]
    assert len(check("POST", "/channels/1/messages", mentions)) == 1


def test_every_quirk_has_a_reason_and_a_source_and_fails_loudly_when_its_gap_is_gone() -> None:
    names = [q.name for q in spec_quirks.QUIRKS]
    assert len(names) == len(set(names))
    for quirk in spec_quirks.QUIRKS:
        assert len(quirk.reason) > 40
        assert quirk.sources
        assert all(s.startswith(("discord-api-docs:", "discord.py:")) for s in quirk.sources)
    document = json.loads((ROOT / "standin" / "spec" / "openapi.json").read_text(encoding="utf-8"))
    spec_quirks.apply_all(document)
    ApiSpec(copy.deepcopy(document))  # the patched document still builds
    with pytest.raises(spec_quirks.QuirkTargetChanged):
        spec_quirks.apply_all(document)  # applied twice: each target is already patched


def test_rules_the_spec_is_looser_on_are_held_by_the_limits() -> None:
    for looser in spec_quirks.LOOSER_THAN_DISCORD:
        module, _, name = looser.held_by.rpartition(".")
        holder = importlib.import_module(f"standin.{module}") if module else limits
        assert hasattr(holder, name), looser.what
    assert check("POST", "/channels/1/messages", {"content": "x" * 2001}) == []  # the spec lets it by
    assert limits.CONTENT_MAX == 2000


def test_the_vendored_copy_is_the_pinned_upstream_file() -> None:
    notice = (ROOT / "standin" / "spec" / "README.md").read_text(encoding="utf-8")
    assert "74fda0fad044407ea280043a03ffc9bc64c4e49e" in notice
    assert "MIT" in notice
    assert "Copyright 2023 Discord" in notice
    document = json.loads((ROOT / "standin" / "spec" / "openapi.json").read_text(encoding="utf-8"))
    assert document["openapi"].startswith("3.1")
    assert document["info"]["license"]["identifier"] == "MIT"
    # Installed with the package (not only in a checkout), since `paperclub demo` runs the stand-in.
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert {"spec/openapi.json", "spec/README.md"} <= set(package_data["standin"])


# -- through the stand-in ---------------------------------------------------------------------------------
async def test_bad_body_from_discord_py_is_refused_like_invalid_form_body(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    channel = bot.get_channel(world.general.id)
    assert isinstance(channel, discord.TextChannel)
    with pytest.raises(discord.HTTPException) as info:
        await channel.send(embed=discord.Embed(title="t" * 300))
    assert info.value.status == 400
    assert info.value.code == 50035
    assert "create_message /body/embeds/0/title" in info.value.text
    [violation] = standin.take_violations()
    assert (violation.operation_id, violation.pointer) == ("create_message", "/body/embeds/0/title")
    assert standin.messages_in(world.general) == []


async def test_the_hand_written_limits_stay_a_second_line(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    channel = bot.get_channel(world.general.id)
    assert isinstance(channel, discord.TextChannel)
    with pytest.raises(discord.HTTPException) as info:
        await channel.send("x" * 2001)  # the spec allows 4000 here; Discord (and standin.limits) 2000
    assert info.value.code == 50035
    assert "2000" in info.value.text
    assert standin.violations == []


async def test_bad_path_and_query_params_are_refused(standin: StandIn, world: DefaultGuild) -> None:
    api = standin.base_url + "/api/v10"
    async with aiohttp.ClientSession(headers={"Authorization": "Bot sandbox-token"}) as http:
        async with http.get(f"{api}/channels/general/messages") as resp:
            assert resp.status == 400
            body = await resp.json()
        async with http.get(f"{api}/channels/{world.general.id}/messages", params={"limit": "500"}) as resp:
            assert resp.status == 400
            query_body = await resp.json()
    assert body["code"] == 50035
    assert "list_messages /path/channel_id" in body["errors"]["channel_id"]["_errors"][0]["message"]
    assert "list_messages /query/limit" in query_body["errors"]["limit"]["_errors"][0]["message"]
    assert where(standin.take_violations()) == [
        ("list_messages", "/path/channel_id"),
        ("list_messages", "/query/limit"),
    ]


async def test_multipart_payload_json_is_checked(standin: StandIn, world: DefaultGuild) -> None:
    form = aiohttp.FormData()
    form.add_field("payload_json", json.dumps({"content": "x", "attachments": [{"id": 0}], "tts": "no"}))
    form.add_field("files[0]", b"BEGIN:VCALENDAR", filename="s.ics", content_type="text/calendar")
    async with aiohttp.ClientSession() as http:
        url = f"{standin.base_url}/api/v10/channels/{world.general.id}/messages"
        async with http.post(url, data=form) as resp:
            assert resp.status == 400
    assert where(standin.take_violations()) == [("create_message", "/body/tts")]


async def test_a_violation_fails_at_exit_even_when_the_client_swallowed_it() -> None:
    standin = await StandIn().__aenter__()
    world = await standin.create_default_guild()
    async with aiohttp.ClientSession() as http:
        url = f"{standin.base_url}/api/v10/channels/{world.general.id}/messages?limit=0"
        async with http.get(url) as resp:
            assert resp.status == 400  # the "bot" shrugs this off
    with pytest.raises(SpecViolationError, match="list_messages /query/limit") as info:
        await standin.__aexit__(None, None, None)
    [violation] = info.value.violations
    assert violation.message == "0 is less than the minimum of 1"
    assert standin.violations == []  # raised once, not again


async def test_validation_can_be_switched_off_for_a_baseline() -> None:
    async with StandIn(validate_requests=False) as standin:
        guild = await standin.create_default_guild()
        async with aiohttp.ClientSession() as http:
            url = f"{standin.base_url}/api/v10/channels/{guild.general.id}/messages?limit=0"
            async with http.get(url) as resp:
                assert resp.status == 200
        assert standin.violations == []


# -- the harness fails the test that caused it --------------------------------------------------------------
def test_the_fixtures_fail_the_test_that_sent_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both fixtures (the bare stand-in's and the bot's `discord_env`) fail a test whose request broke the
    description, even when the test (or the bot's own error handling) swallowed the 400."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.delenv("TEST_DATABASE_URL", raising=False)
    pytester.makeini("[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makeconftest(
        'pytest_plugins = ["tests.harness"]\n'
        "from tests.conftest import sqlite_template, store_info  # noqa: F401\n"
        "from tests.standin.conftest import standin, world  # noqa: F401\n"
    )
    pytester.makepyfile(
        test_inner=textwrap.dedent(
            """
            import contextlib
            import aiohttp
            import discord
            from discord.http import Route

            async def test_bare_standin(standin, world):
                async with aiohttp.ClientSession() as http:
                    url = f"{standin.base_url}/api/v10/channels/{world.general.id}/messages?limit=500"
                    async with http.get(url) as resp:
                        assert resp.status == 400

            async def test_bot_swallows_it(discord_env):
                route = Route("GET", "/channels/{channel_id}/messages", channel_id=discord_env.general.id)
                with contextlib.suppress(discord.HTTPException):  # like a cog's catch-all
                    await discord_env.bot.http.request(route, params={"limit": 0})

            async def test_clean(standin):
                assert standin.violations == []
            """
        )
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=3, errors=2, skipped=1)  # skipped: the PostgreSQL variant
    output = result.stdout.str()
    assert output.count("list_messages /query/limit") >= 2
    assert "ERROR at teardown of test_bare_standin" in output
    assert "ERROR at teardown of test_bot_swallows_it[sqlite]" in output
