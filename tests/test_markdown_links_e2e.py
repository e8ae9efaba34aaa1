"""Paper titles with markdown characters, through every view that links them, as Discord would show them
(tests/markdown_view.py): the masked link keeps the whole title, shows no backslash, is not formatted and
goes to the paper's URL, whose `)` cannot end it early."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.demo.botenv import BotEnv
from bot.services.reminders.texts import PaperLink, SessionFacts, session_channel_text
from bot.timeutil import DEFAULT_DISPLAY_ZONES
from standin.state import Message
from tests.cards import card_title
from tests.markdown_view import link_to
from tests.reading.layouts import sections

TITLE = "Tau *bench* _v2_ ~~old~~ ||spoiler|| [draft](notes) (a) `code` \\ back ] end <@1> __u__"
URL = "https://example.org/papers/tau_(2024)"
BARE_URL = "https://example.org/only_(link)"


async def final(env: BotEnv, name: str, options: dict[str, Any], member: Any = None) -> Message:
    return await (await env.invoke(name, options, member=member or env.organizer)).final()


def as_shown(text: str) -> str:
    """A Text Display's markdown as its characters show: each backslash escape leaves the character."""
    return re.sub(r"\\([^A-Za-z0-9\s])", r"\1", text)


async def suggest_the_paper(env: BotEnv) -> None:
    saved = await final(env, "setup suggestions", {"channel": env.suggestions}, env.admin)
    assert card_title(saved) == "Saved."
    thanks = await final(env, "suggest paper", {"paper": URL, "title": TITLE}, env.member)
    assert thanks.content.startswith("Thanks!"), thanks.content


async def test_suggestions_list_shows_the_title_as_typed(discord_env: BotEnv) -> None:
    await suggest_the_paper(discord_env)
    listed = await final(discord_env, "suggest list", {}, discord_env.member)
    # a layout: the title escaped once in its own text, the paper's link on the button beside it
    (entry,) = [text for text, link in sections(listed) if link == URL]
    assert as_shown(entry.splitlines()[0]) == f"**{TITLE}**"


async def test_reading_show_and_search_show_the_title_as_typed(discord_env: BotEnv) -> None:
    await suggest_the_paper(discord_env)
    added = await final(discord_env, "organize reading add", {"list": "Markdown", "paper": URL})
    assert added.content.startswith("Added **Tau"), added.content
    await final(discord_env, "organize reading add", {"list": "Markdown", "paper": BARE_URL})
    shown = await final(discord_env, "reading show", {"list": "Markdown"}, discord_env.member)
    # a layout: each title escaped once in its own text, its link on the button beside it
    (typed, bare) = sections(shown)
    assert (as_shown(typed[0]), typed[1]) == (f"1. **{TITLE}**", URL)
    # a paper known only by its link: the address as typed (a URL is left unescaped), and on the button
    assert bare == (f"2. **{BARE_URL}**", BARE_URL)
    found = await final(discord_env, "reading search", {"query": "spoiler"}, discord_env.member)
    (hit,) = [entry for entry in sections(found) if entry[1] == URL]
    assert as_shown(hit[0]).startswith(f"📄 **{TITLE}** — ")


async def test_session_card_and_announcement_show_the_title_as_typed(discord_env: BotEnv) -> None:
    await suggest_the_paper(discord_env)
    added = await final(
        discord_env,
        "organize session add",
        {"title": "Markdown night", "when": "tomorrow 17:00", "papers": URL},
    )
    assert added.text.startswith("Added session #1"), added.text
    card = await final(discord_env, "session show", {"session": 1}, discord_env.member)
    # a layout: the title escaped once in its own text, the link on the button beside it
    (section,) = card.components_of_type(9)
    assert as_shown(section["components"][0]["content"]) == f"**{TITLE}**"
    assert section["accessory"]["url"] == URL
    assert section["accessory"]["label"] == "Link"


def test_the_reminder_in_the_channel_links_the_title_as_typed() -> None:
    starts = datetime(2026, 12, 1, 17, 0, tzinfo=UTC)
    facts = SessionFacts(
        id=1,
        title="Markdown night",
        starts_at=starts,
        ends_at=starts + timedelta(hours=1),
        signup_url=None,
        presenter_name=None,
        papers=(PaperLink(TITLE, URL),),
    )
    text = session_channel_text(facts, DEFAULT_DISPLAY_ZONES, ping_role_id=None, with_papers=True)
    link = link_to(text, URL)
    assert link.as_typed == TITLE
    assert f"(<{URL.replace('(', '%28').replace(')', '%29')}>)" in link.raw_text  # no preview card
