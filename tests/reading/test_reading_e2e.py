"""/reading end to end through the local Discord stand-in with the real discord.py client (SQLite and
PostgreSQL): history and its pages across a restart, lists and who may change them, search (ranking,
hostile text, pages, autocomplete), and exports parsed back."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import bibtexparser
import pytest

from bot.demo.botenv import BotEnv
from bot.services.reading.exports import history_markdown
from bot.services.reading.history import all_history
from bot.timeutil import resolve_timezone
from standin.state import EPHEMERAL, Message
from tests.cards import card_title
from tests.reading.conftest import import_club
from tests.reading.layouts import page_line, sections, within_limits


@pytest.fixture
async def env(discord_env: BotEnv) -> BotEnv:
    """The stand-in with the club's programme (examples/club.yaml) imported into its guild.
    The clock stands at Monday 30 November 2026, so all fifteen sessions have taken place."""
    await import_club(discord_env.bot.session_factory, discord_env.guild.id)
    return discord_env


async def run(env: BotEnv, name: str, options: dict[str, Any] | None = None, member: Any = None) -> Message:
    """Invoke a command and return what the user finally sees (after any defer)."""
    return await (await env.invoke(name, options or {}, member=member or env.member)).final()


def ephemeral(message: Message) -> bool:
    return bool(message.flags & EPHEMERAL)


def button(message: Message, label: str) -> str:
    return next(b["custom_id"] for b in message.buttons if label in b["label"])


async def test_reading_commands_are_synced(env: BotEnv) -> None:
    (reading,) = [c for c in env.standin.commands() if c["name"] == "reading"]
    subs = {o["name"]: o for o in reading["options"]}
    assert set(subs) == {"history", "lists", "show", "add", "remove", "search", "export"}
    for sub in subs.values():
        assert all(o.get("description") for o in sub.get("options", []))
    assert next(o for o in subs["search"]["options"] if o["name"] == "query")["max_length"] == 200


async def test_history_pages_survive_a_restart(env: BotEnv) -> None:
    first = await run(env, "reading history")
    assert ephemeral(first)
    within_limits(first)
    assert card_title(first) == "Reading so far"
    assert first.text_displays[0] == "## Reading so far\n15 sessions, newest first."
    assert page_line(first) == "Page 1 of 3"
    entries = [text for text, _ in sections(first)]
    assert len(entries) == 5
    assert entries[0].startswith("**19 November — User models and user simulators**\n")
    assert entries[1] == (
        "**5 November — Building data recipes for terminal agents**\n"
        "Presented by Hamish Ivison\n📄 TMax\n📄 Terminal-World\n📄 T1"
    )

    await env.restart_bot()
    second = await (await env.click(first, button(first, "Next"), member=env.member)).final()
    within_limits(second)
    assert page_line(second) == "Page 2 of 3"
    assert sections(second)[0][0].startswith("**9 June — Multi-turn tool-use benchmarks**")
    third = await run(env, "reading history", {"page": 9, "public": True})
    assert not ephemeral(third)
    assert page_line(third) == "Page 3 of 3"
    assert sections(third)[-1][0].startswith("**11 February — OS-Genesis: reverse task synthesis**")


async def test_history_previous_back_to_the_first_page(env: BotEnv) -> None:
    first = await run(env, "reading history", {"page": 2})
    back = await (await env.click(first, button(first, "Previous"), member=env.member)).final()
    assert page_line(back) == "Page 1 of 3"
    assert back.component(button(back, "Previous"))["disabled"] is True


async def test_lists_add_show_remove_and_permissions(env: BotEnv) -> None:
    lists = await run(env, "reading lists")
    within_limits(lists)
    assert card_title(lists) == "Reading lists"
    assert page_line(lists) is None  # two lists: one page, no buttons
    assert lists.buttons == []
    (listed,) = sections(lists)
    assert listed[0].startswith("**ITSMBench** — 4 papers")
    assert "\n**WorldSmith** — 6 papers" in listed[0]

    refused = await run(env, "reading add", {"list": "WorldSmith", "paper": "OMNI"}, member=env.member)
    assert ephemeral(refused)
    assert "Only organizers" in refused.content
    refused = await run(env, "reading remove", {"list": "WorldSmith", "paper": "AutoEnv"}, member=env.member)
    assert ephemeral(refused)
    assert "Only organizers" in refused.content

    added = await run(
        env,
        "reading add",
        {"list": "User sims", "paper": "https://arxiv.org/abs/2406.12045v2", "note": "@everyone read this"},
        member=env.organizer,
    )
    assert ephemeral(added)
    assert added.content.startswith("Added **arXiv:2406.12045** to **User sims** (a new list)")
    choices = await env.autocomplete("reading add", "paper", "persim", options={"list": "User sims"})
    assert [(c["name"], c["value"]) for c in choices] == [("Persimmon", "title:persimmon")]
    await run(env, "reading add", {"list": "user SIMS", "paper": "title:persimmon"}, member=env.organizer)

    shown = await run(env, "reading show", {"list": "user sims", "public": True})
    assert not ephemeral(shown)
    within_limits(shown)
    assert card_title(shown) == "User sims"
    assert sections(shown) == [
        ("1. **arXiv:2406.12045** — @everyone read this", "https://arxiv.org/abs/2406.12045"),
        ("2. **Persimmon**", None),
    ]
    assert [b["label"] for b in shown.buttons] == ["arXiv"]
    posted = env.standin.requests_to("POST", r"/interactions/\d+/.+/callback$")[-1]
    assert posted.json["data"]["allowed_mentions"]["parse"] == []  # the note's @everyone pings no one

    names = await env.autocomplete("reading show", "list", "I")
    assert [c["value"] for c in names] == ["ITSMBench", "User sims", "WorldSmith"]  # starts-with first
    on_list = await env.autocomplete("reading remove", "paper", "", options={"list": "User sims"})
    assert [c["name"] for c in on_list] == ["arXiv:2406.12045", "Persimmon"]
    removed = await run(
        env, "reading remove", {"list": "User sims", "paper": on_list[1]["value"]}, member=env.organizer
    )
    assert removed.content == "Removed **Persimmon** from **User sims**. It now has 1 paper."

    missing = await run(env, "reading show", {"list": "Nope"})
    assert ephemeral(missing)
    assert "no reading list called “Nope”" in missing.content
    assert "ITSMBench, User sims, WorldSmith" in missing.content


async def test_search_finds_both_sessions_that_read_autoenv(env: BotEnv) -> None:
    reply = await run(env, "reading search", {"query": "AutoEnv"})
    assert ephemeral(reply)
    within_limits(reply)
    assert reply.text_displays[0] == "## Search: AutoEnv\n3 results:"
    hits = [text for text, _ in sections(reply)]
    assert hits[0].startswith("📄 **AutoEnv** — read 17 March, 5 March; on **WorldSmith**")
    assert hits[1].startswith("🗓️ **17 March — Priorities in LLM-generated environments**")
    assert hits[2].startswith(
        "🗓️ **5 March — World models: high\\-fidelity enterprise environments**"
    ) or hits[2].startswith("🗓️ **5 March — World models: high-fidelity enterprise environments**")
    assert "**AutoEnv**" in hits[1]  # the snippet marks the match

    choices = await env.autocomplete("reading search", "query", "auto")
    assert sorted(c["value"] for c in choices) == ["AutoEnv", "AutoForge"]
    lists = await env.autocomplete("reading search", "query", "worldsmi")
    assert [(c["name"], c["value"]) for c in lists] == [("WorldSmith (reading list)", "WorldSmith")]


HOSTILE = [
    '"AutoEnv',
    "AutoEnv*",
    "NEAR(AutoEnv, OMNI)",
    "AutoEnv AND NOT OMNI",
    "((AutoEnv",
    "-AutoEnv",
    "'; --",
]


async def test_hostile_queries_never_fail(env: BotEnv) -> None:
    for query in HOSTILE:
        reply = await run(env, "reading search", {"query": query})
        within_limits(reply)
        assert card_title(reply).startswith("Search: "), (query, reply.text)
    common = await run(env, "reading search", {"query": "AND OR NOT"})
    assert "too common" in common.text
    with pytest.raises(ValueError, match="201 characters"):  # Discord's client sends at most 200
        await run(env, "reading search", {"query": "x" * 201})
    longest = await run(env, "reading search", {"query": "x" * 200})
    within_limits(longest)
    blank = await run(env, "reading search", {"query": "   "})
    assert ephemeral(blank)
    assert blank.content.startswith("Type something to search for")


async def test_search_pages_survive_a_restart(env: BotEnv) -> None:
    first = await run(env, "reading search", {"query": "environments"})
    assert page_line(first) == "Page 1 of 3"
    assert first.text_displays[0] == "## Search: environments\n12 results:"
    await env.restart_bot()
    second = await (await env.click(first, button(first, "Next"), member=env.member)).final()
    within_limits(second)
    assert page_line(second) == "Page 2 of 3"
    assert len(sections(second)) == 5  # five hits a page


async def test_exports_parse_back(env: BotEnv) -> None:
    result = await env.invoke("reading export", {"format": "bibtex", "list": "worldsmith"}, member=env.member)
    assert (await result.response()).deferred
    final = await result.final()
    assert ephemeral(final)
    assert final.content == "Here is “worldsmith” as BibTeX."
    entries = bibtexparser.loads(final.file("worldsmith.bib").decode()).entries
    assert [e["title"] for e in entries] == [
        "{Agent World Model}",
        "{AutoEnv}",
        "{AgentScaler}",
        "{AutoForge}",
        "{ScaleEnv}",
        "{Gym-Anything}",
    ]
    assert entries[1]["note"] == "Generating environments, tasks and reward logic (read 5 and 17 March)."

    markdown = await run(env, "reading export")
    async with env.bot.session_factory() as session:
        history = await all_history(session, env.guild.id, env.clock.now())
    expected = history_markdown(history, resolve_timezone("America/Los_Angeles"))
    assert markdown.file("reading-history.md").decode() == expected

    rows = list(
        csv.DictReader(
            io.StringIO(
                (await run(env, "reading export", {"format": "csv"})).file("reading-history.csv").decode()
            )
        )
    )
    assert len(rows) == 33 + 4  # a row per paper read in each session (four papers were read twice)
    data = json.loads((await run(env, "reading export", {"format": "json"})).file("reading-history.json"))
    assert len(data["sessions"]) == 15

    missing = await run(env, "reading export", {"list": "Nope"})
    assert ephemeral(missing)
    assert "no reading list" in missing.content
