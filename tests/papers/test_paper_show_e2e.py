"""/paper show through the stand-in with the real discord.py client (SQLite and PostgreSQL): the card of a
paper with every source field filled (hostile source text inert), the club's history with it (the session
and what it was read against, who suggested and offered to present it, the lists), autocomplete, a paper
given by title, arXiv link or id, an unknown paper refused ephemerally, and the public answer."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from bot.layouts import count_components
from db.models import Paper
from db.models.suggestions import Suggestion
from standin.arxiv import ArxivStandin
from standin.render import render_message
from tests.sessions.helpers import OCTOBER, add_session, button_ids, card_title, configure, is_ephemeral, run
from tests.suggestions.helpers import post_of, suggest, use_channel


@pytest.fixture
def arxiv(arxiv: ArxivStandin) -> ArxivStandin:
    """The local arXiv stand-in, knowing the paper suggested here."""
    arxiv.add("2401.12345", "TMax: <b>terminal</b> agents @here", ["Hamish Ivison", "Ada_Lovelace"])
    return arxiv


HOSTILE_TLDR = "<script>alert(1)</script> @everyone **bold** <@123> [x](https://evil.example)"
S2_PAGE = "https://www.semanticscholar.org/paper/abc?utm_source=api"


async def enrich(env, key: str, **fields) -> int:
    """Store what the sources would have said about a paper (no source on the path)."""
    async with env.bot.session_factory() as db, db.begin():
        paper = await db.scalar(select(Paper).where(Paper.key == key))
        assert paper is not None, key
        for name, value in fields.items():
            setattr(paper, name, value)
        return paper.id


async def club_with_history(env) -> dict[str, int]:
    """A session reading 2401.12345 against Terminal-World and T1 (the organizer said so: `vs`); a suggestion
    of it with a volunteer; a reading list holding it."""
    await configure(env)
    await env.clock.set(OCTOBER)
    await use_channel(env)
    answer = await suggest(env, env.members[0], paper="https://arxiv.org/abs/2401.12345")
    assert "is saved and posted" in str(answer.content), answer.content
    async with env.bot.session_factory() as db:
        suggestion_id = int(await db.scalar(select(Suggestion.id)) or 0)
    post = await post_of(env, suggestion_id)
    await (await env.click(post, f"sugg:present:{suggestion_id}", member=env.members[2])).response()
    session_id = await add_session(
        env,
        "Terminal agents",
        "2026-11-05 08:00",
        papers="https://arxiv.org/abs/2401.12345 vs Terminal-World, T1",  # roles given, as members do
    )
    at = datetime(2026, 10, 20, tzinfo=UTC).isoformat()
    paper_id = await enrich(
        env,
        "arxiv:2401.12345",
        title="TMax: <b>terminal</b> agents @here",
        authors="Hamish Ivison, Ada_Lovelace",
        tldr=HOSTILE_TLDR,
        year=2026,
        venue="ICLR 2026",
        decision="Oral",
        citation_count=42,
        influential_citation_count=7,
        code_url="https://github.com/example/tmax",
        hf_url="https://huggingface.co/papers/2401.12345",
        hf_models=3,
        hf_datasets=1,
        hf_spaces=1,
        hf_upvotes=41,
        hf_top=[
            "example/tmax_7b",
            "example/tmax-1b",
            "datasets/example/terminal-tasks",
            "spaces/a/b",
            "../x y",
        ],
        openreview_url="https://openreview.net/forum?id=tmax",
        s2_url=S2_PAGE,
        field_sources={"tldr": ["semantic_scholar", at], "code_url": ["huggingface", at]},
    )
    added = await run(env, "organize reading add", {"list": "Agents *2026*", "paper": "2401.12345"})
    assert "Added" in added.text, added.text
    return {"session": session_id, "paper": paper_id}


async def test_paper_card_with_every_source_and_the_club_history(discord_env) -> None:
    env = discord_env
    ids = await club_with_history(env)
    shown = await run(env, "paper show", {"paper": str(ids["paper"])}, member=env.members[1])
    assert is_ephemeral(shown)
    assert shown.is_components_v2
    assert sum(count_components(c) for c in shown.components) <= 40
    assert card_title(shown) == "TMax: \\<b>terminal\\</b> agents @here"
    text = shown.text
    assert "Hamish Ivison, Ada\\_Lovelace" in text
    assert "ICLR 2026 · Oral\n" in text  # the year said once, by the venue
    assert "Thursday 5 November — **Terminal agents**" in text  # the club's date style
    assert "<t:" not in text
    assert "Paper #" not in text
    assert (
        "42 citations (7 influential) · 3 models · 1 data set · 1 Space · 41 upvotes on Hugging Face" in text
    )
    # the most liked by name, escaped, never a link made of a name; a path not of the Hub's form left out
    assert (
        "Models: example/tmax\\_7b, example/tmax-1b · Data sets: example/terminal-tasks · Spaces: a/b" in text
    )
    assert "x y" not in text
    assert "**TLDR:** \\<script>alert(1)\\</script> @everyone \\*\\*bold\\*\\* \\<@123>" in text
    assert "\\[x](https://evil.example)" in text  # shown as typed: no masked link
    assert ", read against **Terminal-World** and **T1**" in text
    assert f"**Suggested by** <@{env.members[0].id}>" in text
    assert f"**Offered to present:** <@{env.members[2].id}>" in text
    assert "**On the reading lists:** **Agents \\*2026\\***" in text
    assert "Data from Semantic Scholar" in text
    assert S2_PAGE in text
    assert button_ids(shown) == [
        "link:https://arxiv.org/abs/2401.12345",
        "link:https://arxiv.org/pdf/2401.12345",
        "link:https://github.com/example/tmax",
        "link:https://huggingface.co/papers/2401.12345",
        "link:https://openreview.net/forum?id=tmax",
    ]
    labels = [b["label"] for b in shown.buttons]
    assert labels == ["arXiv", "PDF", "Code", "Hugging Face", "OpenReview"]
    posted = env.standin.requests_to("POST", r"/interactions/\d+/.+/callback$")[-1]
    assert posted.json["data"]["allowed_mentions"]["parse"] == []  # @everyone, <@id>: nobody pinged
    assert "alert(1)" in render_message(shown, env.standin.state)


async def test_paper_by_title_link_and_autocomplete(discord_env) -> None:
    env = discord_env
    ids = await club_with_history(env)
    choices = await env.autocomplete("paper show", "paper", "terminal", member=env.members[1])
    names = {c["name"]: c["value"] for c in choices}
    assert "Terminal-World" in names
    assert any(name.endswith("· arXiv:2401.12345") for name in names)
    assert all(len(name) <= 100 for name in names)
    assert len(choices) <= 25
    by_arxiv = await env.autocomplete("paper show", "paper", "2401.123", member=env.members[1])
    assert [c["value"] for c in by_arxiv] == [str(ids["paper"])]

    other = await run(env, "paper show", {"paper": names["Terminal-World"]}, member=env.members[1])
    assert card_title(other) == "Terminal-World"
    assert ", read against **TMax" in other.text  # the session's main paper
    assert "Not read, suggested or listed" not in other.text
    typed = await run(env, "paper show", {"paper": "terminal world"}, member=env.members[1])
    assert card_title(typed) == "Terminal-World"
    for given in ("https://arxiv.org/abs/2401.12345v2", "2401.12345", "arXiv:2401.12345"):
        found = await run(env, "paper show", {"paper": given}, member=env.members[1])
        assert "ICLR 2026" in found.text, given


async def test_unknown_paper_is_refused_ephemerally_and_public_is_posted(discord_env) -> None:
    env = discord_env
    await club_with_history(env)
    missing = await run(env, "paper show", {"paper": "A paper @everyone never heard of"}, member=env.member)
    assert is_ephemeral(missing)
    assert missing.text.startswith("No paper “A paper @everyone never heard of” on this server yet")
    missing_id = await run(env, "paper show", {"paper": "999999"}, member=env.member)
    assert is_ephemeral(missing_id)
    assert "No paper" in missing_id.text
    public = await run(env, "paper show", {"paper": "T1", "public": True}, member=env.member)
    assert not is_ephemeral(public)
    assert card_title(public) == "T1"
