"""Times out of range through the real discord.py client: /organize session add and edit, /organize reminder add (a time, or
an offset before a session) and /remind me refuse them with the window or the longest duration (never the
generic apology), and the `when` autocompletes preview the refusal instead of never answering."""

from __future__ import annotations

from typing import Any

import pytest

from bot.demo.botenv import BotEnv
from bot.tree import APOLOGY
from standin.state import Message

WINDOW = "Dates must be between 1 January 1926 and 31 December 2126."
LONGEST = "a duration can be at most 3650d (about 10 years)"
FAR_TIMES = ["9999-12-31 23:00", "0001-01-01 00:30", "in 1000000 weeks", "in 999999 w", "9999 5pm"]


async def final(env: BotEnv, name: str, options: dict[str, Any], member: Any = None) -> Message:
    return await (await env.invoke(name, options, member=member or env.organizer)).final()


async def a_session(env: BotEnv) -> None:
    added = await final(env, "organize session add", {"title": "Session one", "when": "tomorrow 17:00"})
    assert added.text.startswith("Added session #1"), added.text


@pytest.mark.parametrize("when", FAR_TIMES)
async def test_far_times_are_refused_with_the_window(discord_env: BotEnv, when: str) -> None:
    await a_session(discord_env)
    for name, options in (
        ("organize session add", {"title": "Far", "when": when}),
        ("organize session edit", {"session": 1, "when": when}),
        ("organize reminder add", {"when": when, "message": "x"}),
    ):
        reply = await final(discord_env, name, options)
        assert reply.content == WINDOW, (name, reply.content)
        assert reply.flags & 64


@pytest.mark.parametrize("offset", ["1000000w", "999999 weeks 999999 days", "99999999999999999999 minutes"])
async def test_offsets_before_a_session_are_refused_with_the_longest(
    discord_env: BotEnv, offset: str
) -> None:
    await a_session(discord_env)
    for name, options in (
        ("organize reminder add", {"when": offset, "message": "x", "session": 1}),
        ("remind me", {"session": 1, "before": offset}),
    ):
        reply = await final(discord_env, name, options, discord_env.member if name == "remind me" else None)
        assert LONGEST in reply.content, (name, reply.content)
        assert reply.content != APOLOGY


async def test_when_autocompletes_preview_refusals_and_readings(discord_env: BotEnv) -> None:
    await a_session(discord_env)
    for name, extra in (
        ("organize session add", {"title": "x"}),
        ("organize session edit", {"session": 1}),
        ("organize reminder add", {}),
    ):
        for when in FAR_TIMES:
            (choice,) = await discord_env.autocomplete(name, "when", when, options=extra)
            assert choice == {"name": f"{when} → ⚠ {WINDOW}", "value": when}, name
        (good,) = await discord_env.autocomplete(name, "when", "thursday 9:30am", options=extra)
        assert good["name"] == "thursday 9:30am → Thursday 3 December 2026, 9:30 AM PT / 5:30 PM GMT", name
        (past,) = await discord_env.autocomplete(name, "when", "2020-01-01 10:00", options=extra)
        assert "is in the past" in past["name"], name
        assert len(past["name"]) <= 100
    (far,) = await discord_env.autocomplete(
        "organize reminder add", "when", "1000000w", options={"session": 1}
    )
    assert LONGEST in far["name"]


async def test_the_session_add_preview_reads_in_the_timezone_option(discord_env: BotEnv) -> None:
    (choice,) = await discord_env.autocomplete(
        "organize session add", "when", "2026-12-10 09:30", options={"title": "x", "timezone": "UK"}
    )
    assert choice["name"] == "2026-12-10 09:30 → Thursday 10 December 2026, 1:30 AM PT / 9:30 AM GMT"
    (bad_zone,) = await discord_env.autocomplete(
        "organize session add", "when", "2026-12-10 09:30", options={"title": "x", "timezone": "Mars/Base"}
    )
    assert "I don't know the time zone" in bad_zone["name"]


async def test_the_session_edit_preview_reads_in_the_sessions_own_zone(discord_env: BotEnv) -> None:
    added = await final(
        discord_env, "organize session add", {"title": "London", "when": "2026-12-10 09:30", "timezone": "UK"}
    )
    assert added.text.startswith("Added session #1"), added.text
    (choice,) = await discord_env.autocomplete(
        "organize session edit", "when", "2026-12-11 09:30", options={"session": 1}
    )
    assert choice["name"] == "2026-12-11 09:30 → Friday 11 December 2026, 1:30 AM PT / 9:30 AM GMT"
