"""Id-like input through the real discord.py client: every id autocomplete answers (never times out) on
numbers past 64 bits and on digits that are not ASCII; commands say "no such …"; the stand-in refuses an
integer option Discord's client would not send (outside the option's min/max, or past 2^53-1)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.demo.botenv import BotEnv
from bot.ids import MAX_ID
from standin.state import Message

HOSTILE_IDS = [
    "99999999999999999999999",  # past 64 bits
    str(2**63),
    str(MAX_ID + 1),
    "9" * 100,
    "²",
    "#²",
    "٣",
    "１",
    "0",
    "-1",
    "#",
    "   ",
    "\u200b",
    "@everyone",
]
# (command, option, extra options): every autocomplete that looks rows up by number.
ID_AUTOCOMPLETES: list[tuple[str, str, dict[str, Any]]] = [
    ("session show", "session", {}),
    ("session edit", "session", {}),
    ("session cancel", "session", {}),
    ("session announce", "session", {}),
    ("session recap", "session", {}),
    ("remind me", "session", {}),
    ("remind add", "session", {"when": "1h", "message": "x"}),
    ("remind cancel", "reminder", {}),
    ("suggestions show", "suggestion", {}),
    ("suggestions review", "suggestion", {"decision": "shortlist"}),
    ("suggestions withdraw", "suggestion", {}),
    ("series show", "series", {}),
    ("series skip", "series", {"date": "2026-12-10"}),
]


async def final(env: BotEnv, name: str, options: dict[str, Any], member: Any = None) -> Message:
    return await (await env.invoke(name, options, member=member or env.organizer)).final()


async def seed(env: BotEnv) -> None:
    """One session, one reminder and one suggestion, so the lookups have rows to (not) find."""
    await final(env, "setup suggestions", {"channel": env.suggestions}, env.admin)
    added = await final(env, "session add", {"title": "Session one", "when": "tomorrow 17:00"})
    assert added.text.startswith("Added session #1"), added.text
    reminded = await final(env, "remind add", {"when": "tomorrow 9am", "message": "Read it"})
    assert reminded.content.startswith("⏰ Reminder **#"), reminded.content
    thanks = await final(env, "suggest", {"paper": "https://example.org/p", "title": "Paper one"}, env.member)
    assert thanks.content.startswith("Thanks!"), thanks.content
    weekly = await final(env, "series add", {"name": "Weekly", "day": "Thursday", "time": "9:30am"})
    assert weekly.text.startswith("Added series #1"), weekly.text


async def test_every_id_autocomplete_answers_hostile_input(discord_env: BotEnv) -> None:
    await seed(discord_env)
    for command, option, extra in ID_AUTOCOMPLETES:
        for typed in HOSTILE_IDS:
            choices = await discord_env.autocomplete(command, option, typed, options=extra)
            assert isinstance(choices, list), (command, typed)
            assert len(choices) <= 25
            assert all(1 <= len(c["name"]) <= 100 for c in choices), (command, typed, choices)
        # A real number still finds its row.
        found = await discord_env.autocomplete(command, option, "#1", options=extra)
        assert found, (command, "#1")
        assert found[0]["value"] in (1, "1"), (command, found)


@pytest.mark.parametrize(
    ("typed", "reply"),
    [
        ("99999999999999999999999", "There is no suggestion #9999999999999999999… in this server."),
        (str(MAX_ID), f"There is no suggestion #{MAX_ID} in this server."),
        ("²", "Pick a suggestion from the list, or type its number (e.g. 12)."),
        ("٣", "Pick a suggestion from the list, or type its number (e.g. 12)."),
    ],
)
async def test_suggestion_options_refuse_what_is_not_an_id(
    discord_env: BotEnv, typed: str, reply: str
) -> None:
    await seed(discord_env)
    for command, extra in (("suggestions show", {}), ("suggestions withdraw", {})):
        answer = await final(discord_env, command, {"suggestion": typed, **extra}, discord_env.member)
        assert answer.content == reply, (command, answer.content)
        assert answer.flags & 64  # ephemeral


async def test_integer_ids_at_the_top_of_the_range_are_no_such_row(discord_env: BotEnv) -> None:
    await seed(discord_env)
    shown = await final(discord_env, "session show", {"session": MAX_ID}, discord_env.member)
    assert shown.content == f"There is no session #{MAX_ID} in this server."
    cancelled = await final(discord_env, "remind cancel", {"reminder": MAX_ID})
    assert cancelled.content == f"There is no pending reminder #{MAX_ID} in this server."


@pytest.mark.parametrize("value", [MAX_ID + 1, 2**53, 2**64, 0, -1])
async def test_the_standin_refuses_integers_discord_would_not_send(discord_env: BotEnv, value: int) -> None:
    """The session option is an INTEGER with min_value 1 and max_value 2^31-1 (our id column); Discord's
    client sends nothing outside that, nor any integer past ±(2^53-1) (docs: Application Command Option
    Type)."""
    (session,) = [c for c in discord_env.standin.commands() if c["name"] == "session"]
    show = next(o for o in session["options"] if o["name"] == "show")
    option = next(o for o in show["options"] if o["name"] == "session")
    assert (option["type"], option["min_value"], option["max_value"]) == (4, 1, MAX_ID)
    with pytest.raises(ValueError, match="option 'session'"):
        await discord_env.invoke("session show", {"session": value}, member=discord_env.member)
