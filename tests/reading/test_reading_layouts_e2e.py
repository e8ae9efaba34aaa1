"""The /reading cards as Components V2 layouts through the stand-in with the real discord.py client (SQLite
and PostgreSQL): each card from a fresh post, ◀ ▶ on a layout page, an old embed page rewritten in place,
hostile text shown as typed and pinging no one, and many long titles within Discord's limits."""

from __future__ import annotations

import json
import re
from typing import Any

import discord
import pytest

from bot.demo.botenv import BotEnv
from bot.paging import PageButton
from bot.services.programme.files import import_text
from bot.services.reading import lists as svc
from bot.views import PaperclubView
from cogs.reading._render import ACCENT
from standin.render import render_message
from standin.state import Message
from tests.cards import card_title
from tests.reading.layouts import page_line, sections, within_limits

HOSTILE = "**Bold** _it_ @everyone <@1> [click](https://evil.example) `code` ||spoiler||"
NOTE = "@everyone read [this](https://evil.example) *now*"
ARXIV = "https://arxiv.org/abs/2401.12345"
OPENREVIEW = "https://openreview.net/forum?id=abc"
WIKI = "https://wiki.example/session-1"
RECORDING = "https://video.example/rec-1"
NOTES = "https://notes.example/1"
FIXED_LABELS = {"arXiv", "OpenReview", "DOI", "PDF", "Link"}
# A masked link Discord would render: one whose "[" is not escaped.
MASKED = re.compile(r"(?<!\\)\[([^\]]*)\]\(")


def as_shown(text: str) -> str:
    """A Text Display's markdown as its characters show: each backslash escape leaves the character."""
    return re.sub(r"\\([^A-Za-z0-9\s])", r"\1", text)


def programme() -> dict[str, Any]:
    """Two sessions (one with every link, one with a recording only) and a list, with hostile text."""
    return {
        "settings": {"timezone": "UTC"},
        "sessions": [
            {
                "title": HOSTILE,
                "starts_at": "2026-11-20 17:00",
                "presenter": "Ada_Lovelace @everyone",
                "recording_url": RECORDING,
                "notes_url": NOTES,
                "wiki_url": WIKI,
                "papers": [
                    {"paper": ARXIV, "title": HOSTILE},
                    {"paper": OPENREVIEW, "title": "Plain paper"},
                    "Titled only",
                ],
            },
            {
                "title": "Recording only",
                "starts_at": "2026-11-13 17:00",
                "recording_url": "https://video.example/rec-2",
                "papers": ["Another"],
            },
        ],
        "lists": [
            {
                "name": "Hostile *list*",
                "description": "@everyone [x](https://evil.example)",
                "papers": [{"paper": ARXIV, "note": NOTE}, {"paper": OPENREVIEW}, {"paper": "Titled only"}],
            }
        ],
    }


async def load(env: BotEnv, document: dict[str, Any]) -> None:
    await import_text(env.bot.session_factory, json.dumps(document), suffix=".json", guild_id=env.guild.id)


@pytest.fixture
async def env(discord_env: BotEnv) -> BotEnv:
    await load(discord_env, programme())
    return discord_env


async def post(env: BotEnv, name: str, options: dict[str, Any]) -> Message:
    """A public /reading answer, as it stands in the channel."""
    answer = await (await env.invoke(name, {**options, "public": True}, member=env.member)).final()
    posted = env.standin.message(answer.id)
    within_limits(posted)
    (container,) = posted.components
    assert container["type"] == 17
    assert container["accent_color"] == ACCENT.value
    assert not posted.payload.get("mention_everyone")
    assert posted.payload.get("mentions") == []
    assert posted.payload.get("mention_roles") == []
    callback = env.standin.requests_to("POST", r"/interactions/\d+/.+/callback$")[-1]
    assert callback.json["data"]["allowed_mentions"]["parse"] == []
    for text in posted.text_displays:  # links only behind our own labels, never member text
        assert set(MASKED.findall(text)) <= FIXED_LABELS, text
    return posted


async def test_history_card(env: BotEnv) -> None:
    posted = await post(env, "reading history", {})
    assert card_title(posted) == "Reading so far"
    assert posted.text_displays[0] == "## Reading so far\n2 sessions, newest first."
    (first, second) = sections(posted)
    assert as_shown(first[0]) == (
        f"**20 November — {HOSTILE}**\n"
        "Presented by Ada_Lovelace @everyone\n"
        f"📄 {HOSTILE} · [arXiv]({ARXIV})\n"
        f"📄 Plain paper · [OpenReview]({OPENREVIEW})\n"
        "📄 Titled only"
    )
    assert first[1] == WIKI
    assert second == ("**13 November — Recording only**\n📄 Another", "https://video.example/rec-2")
    labels = [(b["label"], b["url"]) for b in posted.buttons]
    assert labels == [
        ("Session page", WIKI),
        ("Recording", RECORDING),
        ("Notes", NOTES),
        ("Recording", "https://video.example/rec-2"),
    ]
    assert page_line(posted) is None  # one page: no ◀ ▶
    shown = render_message(posted, env.standin.state)
    assert "[ Session page ↗ ]" in shown


async def test_list_card(env: BotEnv) -> None:
    posted = await post(env, "reading show", {"list": "hostile *LIST*"})
    assert card_title(posted) == "Hostile \\*list\\*"
    head = as_shown(posted.text_displays[0])
    assert head == "## Hostile *list*\n@everyone [x](https://evil.example)\n3 papers:"
    entries = [(as_shown(text), url) for text, url in sections(posted)]
    assert entries == [
        (f"1. **{HOSTILE}** — {NOTE}", ARXIV),
        ("2. **Plain paper**", OPENREVIEW),
        ("3. **Titled only**", None),
    ]
    assert [b["label"] for b in posted.buttons] == ["arXiv", "OpenReview"]


async def test_lists_and_search_cards(env: BotEnv) -> None:
    lists = await post(env, "reading lists", {})
    assert card_title(lists) == "Reading lists"
    assert [as_shown(text) for text, _ in sections(lists)] == [
        "**Hostile *list*** — 3 papers · @everyone [x](https://evil.example)"
    ]
    found = await post(env, "reading search", {"query": "spoiler"})
    assert card_title(found) == "Search: spoiler"
    paper = next(entry for entry in sections(found) if entry[1] == ARXIV)
    assert as_shown(paper[0]).startswith(f"📄 **{HOSTILE}** — read 20 November; on **Hostile *list***")
    assert [b["label"] for b in found.buttons] == ["arXiv"]


def long_list(count: int, title: str, note: str) -> dict[str, Any]:
    papers = [
        {"paper": f"https://example.org/papers/{n}.pdf", "title": f"{title} {n:03d}"[-300:], "note": note}
        for n in range(count)
    ]
    return {"lists": [{"name": "Long", "description": "d" * 300, "papers": papers}]}


async def list_id(env: BotEnv, name: str) -> int:
    async with env.bot.session_factory() as session:
        return (await svc.named_list(session, env.guild.id, name, per_page=1)).summary.id


@pytest.mark.parametrize(
    ("title", "note"),
    [("Environments " + "x" * 187, "n" * 300), ("*_`|~" * 60, "<@1>*" * 60)],
    ids=["long", "all-markup"],
)
async def test_many_long_titles_page_within_the_limits(env: BotEnv, title: str, note: str) -> None:
    await load(env, long_list(25, title, note))
    first = await post(env, "reading show", {"list": "Long"})
    arg = await list_id(env, "Long")
    assert page_line(first) == "Page 1 of 3"
    assert [b["custom_id"] for b in first.buttons if "custom_id" in b] == [
        f"pg:reading_list:{arg}:0:p",
        f"pg:reading_list:{arg}:1:n",
    ]
    assert first.component(f"pg:reading_list:{arg}:0:p")["disabled"] is True
    entries = sections(first)
    assert len(entries) == 10  # every paper of the page is there, none dropped for space
    assert [text.split(".")[0] for text, _ in entries] == [str(n) for n in range(1, 11)]
    assert [url for _, url in entries] == [f"https://example.org/papers/{n}.pdf" for n in range(10)]

    # ▶ and ◀ edit the same message, each page a layout within the limits
    second = await (await env.click(first, f"pg:reading_list:{arg}:1:n", member=env.member)).final()
    assert second.id == first.id
    within_limits(second)
    assert page_line(second) == "Page 2 of 3"
    assert sections(second)[0][0].startswith("11. **")
    third = await (await env.click(second, f"pg:reading_list:{arg}:2:n", member=env.member)).final()
    within_limits(third)
    assert page_line(third) == "Page 3 of 3"
    assert len(sections(third)) == 5
    assert third.component(f"pg:reading_list:{arg}:2:n")["disabled"] is True
    back = await (await env.click(third, f"pg:reading_list:{arg}:1:p", member=env.member)).final()
    within_limits(back)
    assert page_line(back) == "Page 2 of 3"


async def test_a_full_history_page_within_the_limits(discord_env: BotEnv) -> None:
    env = discord_env
    long_url = "https://example.org/" + "p" * 480
    sessions = [
        {
            "title": "*_" * 100,
            "starts_at": f"2026-10-{day:02d} 17:00",
            "presenter": "`" * 100,
            "recording_url": long_url,
            "notes_url": long_url + "n",
            "wiki_url": long_url + "w",
            "papers": [{"paper": f"{long_url}/{day}/{n}", "title": "*" * 300} for n in range(10)],
        }
        for day in range(1, 8)
    ]
    await load(env, {"sessions": sessions})
    posted = await post(env, "reading history", {})
    assert page_line(posted) == "Page 1 of 2"
    entries = sections(posted)
    assert len(entries) == 5
    assert entries[0][0].startswith("**7 October — \\*\\_")
    for text, url in entries:
        assert url == long_url + "w"
        assert text.endswith("\n-# … and 7 more papers")  # the rest past the entry's budget, counted
    assert len(posted.buttons) == 5 * 3 + 2  # each session's three links, and ◀ ▶


async def test_an_old_embed_page_is_rewritten_as_a_layout_in_place(env: BotEnv) -> None:
    await load(env, long_list(25, "A paper", "why"))
    arg = await list_id(env, "Long")
    # pages as the bot posted them before layouts: an embed, "Page 1 of 3" in its footer, ◀ ▶ in a row
    channel = env.bot.get_channel(env.general.id)
    assert isinstance(channel, discord.TextChannel)
    posted: dict[str, int] = {}
    for name, pager_arg in (("reading_list", str(arg)), ("reading_history", "")):
        view = PaperclubView(timeout=None)
        view.add_item(PageButton(name, pager_arg, 0, "p", disabled=True))
        view.add_item(PageButton(name, pager_arg, 1, "n"))
        embed = discord.Embed(title="Old page", description="…").set_footer(text="Page 1 of 3")
        posted[name] = (await channel.send(content="Old", embed=embed, view=view)).id
    old = env.standin.message(posted["reading_list"])
    assert not old.is_components_v2

    turned = await (await env.click(old, f"pg:reading_list:{arg}:1:n", member=env.member)).final()
    assert turned.id == old.id
    within_limits(env.standin.message(old.id))
    callback = env.standin.requests_to("POST", r"/interactions/\d+/.+/callback$")[-1]
    assert callback.json["type"] == 7  # the message is edited, not a new one
    assert callback.json["data"]["content"] is None
    assert callback.json["data"]["embeds"] == []
    assert page_line(turned) == "Page 2 of 3"
    assert sections(turned)[0][0] == "11. **A paper 010** — why"
    # the same custom ids, now in the layout's row
    assert turned.component(f"pg:reading_list:{arg}:2:n")["type"] == 2

    # a pager that now has one page: the old post becomes the card, with no ◀ ▶
    old = env.standin.message(posted["reading_history"])
    turned = await (await env.click(old, "pg:reading_history::1:n", member=env.member)).final()
    within_limits(env.standin.message(old.id))
    assert card_title(turned) == "Reading so far"
    assert turned.buttons == [b for b in turned.buttons if "url" in b]
