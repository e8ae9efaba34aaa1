"""What /organize session add and edit tell the organizer about their input, through the stand-in: how a papers
text with commas was read, other sessions at the same time (a warning, not a refusal), and the edit
form that never loses what the member did not touch."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, update

from bot.demo.botenv import BotEnv
from bot.services.sessions import store as svc
from bot.services.sessions.rules import new_session
from db.models import Paper
from tests.sessions.helpers import OCTOBER, add_session, count_sessions, is_ephemeral, run

SPLIT_NOTE = "Papers: read as 3 papers, split at the commas: “TMax” · “Terminal-World” · “T1”."
HOW_TO_SEPARATE = "one per line or separate them with `;`"


async def stored_keys(env: BotEnv, session_id: int) -> list[str]:
    async with env.bot.session_factory() as s:
        info = await svc.get_session(s, env.guild.id, session_id)
    return [paper.key for paper in info.papers]


async def test_commas_between_short_names_separate_papers_and_the_reply_says_so(env) -> None:
    await env.clock.set(OCTOBER)
    reply = await run(
        env,
        "organize session add",
        {"title": "Terminal agents", "when": "2026-11-05 08:00", "papers": "TMax, Terminal-World, T1"},
    )
    assert is_ephemeral(reply)
    assert reply.text.startswith("Added session #1.")
    assert SPLIT_NOTE in reply.text
    assert "one paper per line or `;` between papers always separates them" in reply.text
    assert await stored_keys(env, 1) == ["title:tmax", "title:terminal world", "title:t1"]

    # a title whose commas are its own stays one paper, and the reply shows how to give several
    reply = await run(
        env, "organize session edit", {"session": 1, "papers": "Read, Watch and Learn: agents from video"}
    )
    assert reply.text.startswith("Saved session #1: changed papers.")
    assert "Papers: read as 1 paper: “Read, Watch and Learn: agents from video”." in reply.text
    assert HOW_TO_SEPARATE in reply.text
    assert await stored_keys(env, 1) == ["title:read watch and learn agents from video"]

    # the club page's way of writing lists, on edit
    reply = await run(env, "organize session edit", {"session": 1, "papers": "TMax, Terminal-World and T1"})
    assert SPLIT_NOTE in reply.text
    assert await stored_keys(env, 1) == ["title:tmax", "title:terminal world", "title:t1"]

    # lines or ';' leave nothing to tell
    reply = await run(env, "organize session edit", {"session": 1, "papers": "TMax; T1"})
    assert "Papers: read as" not in reply.text
    assert await stored_keys(env, 1) == ["title:tmax", "title:t1"]


async def test_sessions_at_the_same_time_are_kept_with_a_warning(env) -> None:
    await env.clock.set(OCTOBER)
    first = await add_session(env, "First", "2026-12-10 09:30", timezone="PT")  # 9:30–10:30 PT
    reply = await run(
        env, "organize session add", {"title": "Second", "when": "2026-12-10 10:00", "timezone": "PT"}
    )
    assert reply.text.startswith("Added session #2.")
    assert "Heads up: this overlaps session “First” (<t:" in reply.text
    assert "Both are kept" in reply.text
    assert await count_sessions(env) == 2

    # right after the first one ends is no overlap; moved into both, it warns of both
    third = await add_session(env, "Third", "2026-12-10 10:30", timezone="PT")
    reply = await run(
        env, "organize session add", {"title": "Right after", "when": "2026-12-10 11:00", "timezone": "PT"}
    )
    assert "Heads up" in reply.text  # Third runs 10:30–11:30
    reply = await run(env, "organize session edit", {"session": third, "when": "2026-12-10 09:45"})
    assert reply.text.startswith(f"Saved session #{third}: changed time.")
    assert "Heads up: this overlaps sessions “First”" in reply.text
    assert "“Second”" in reply.text

    # an edit that does not move it says nothing of the others; a cancelled one no longer counts
    reply = await run(env, "organize session edit", {"session": third, "title": "Third, renamed"})
    assert "Heads up" not in reply.text
    await run(env, "organize session cancel", {"session": first})
    reply = await run(env, "organize session edit", {"session": third, "duration": 30})
    assert "Heads up: this overlaps session “Second”" in reply.text
    assert "First" not in reply.text


# ---------------------------------------------------------------- the edit form


def text_input(modal: dict[str, Any], custom_id: str) -> tuple[str | None, dict[str, Any]]:
    """(label, component) of one of the form's text inputs (action rows or labels)."""
    for row in modal["components"]:
        for component in row.get("components") or [row.get("component")]:
            if component and component.get("custom_id") == custom_id:
                return component.get("label") or row.get("label"), component
    raise AssertionError(f"no {custom_id} in the form")


async def session_with_long_papers(env: BotEnv, count: int, length: int) -> tuple[int, list[str]]:
    """A session whose papers' links add up to more than a form field might hold."""
    links = [f"https://example.org/papers/{n}/" + "x" * (length - 30) for n in range(count)]
    return await _seed(env, links)


async def _seed(env: BotEnv, papers: list[str]) -> tuple[int, list[str]]:
    now = env.clock.now()
    draft = new_session(
        title="Long reading", when="2026-12-10 09:30", default_zone="UTC", now=now, papers=papers
    )
    async with env.bot.session_factory() as s, s.begin():
        created = await svc.create_session(s, env.guild.id, draft, created_by=env.organizer.id, now=now)
    return created.info.id, await stored_keys(env, created.info.id)


async def session_with_long_titles(env: BotEnv) -> tuple[int, list[str]]:
    """Ten papers under 400-character titles (the most the store keeps, as a programme import may give
    them): more than the 4,000 characters a form field holds."""
    session_id, keys = await _seed(env, [f"Paper {n}" for n in range(10)])
    async with env.bot.session_factory() as s, s.begin():
        await s.execute(
            update(Paper)
            .where(Paper.guild_id == env.guild.id)
            .values(title=func.substr(Paper.title + " " + "long " * 80, 1, 400))
        )
    return session_id, keys


async def test_the_form_keeps_papers_it_showed_whole_when_only_the_title_changes(env) -> None:
    await env.clock.set(OCTOBER)
    session_id, keys = await session_with_long_papers(env, count=6, length=380)  # ~2,300 characters
    opened = await env.invoke("organize session edit", {"session": session_id}, member=env.organizer)
    modal = (await opened.response()).modal
    assert modal is not None
    submitted = await env.submit_modal(opened, {"session_edit:title": "Long reading, renamed"})
    reply = await submitted.final()
    assert reply.text.startswith(f"Saved session #{session_id}: changed title.")
    assert await stored_keys(env, session_id) == keys
    label, papers = text_input(modal, "session_edit:papers")
    assert label == "Papers (one per line)"
    assert len(papers["value"]) > 2000  # shown whole: a text input holds up to 4,000
    assert papers["value"].count("\n") == 5


async def test_the_form_keeps_papers_too_long_to_show_unless_typed_in(env) -> None:
    await env.clock.set(OCTOBER)
    session_id, keys = await session_with_long_titles(env)  # 4,009 characters
    opened = await env.invoke("organize session edit", {"session": session_id}, member=env.organizer)
    modal = (await opened.response()).modal
    assert modal is not None
    label, papers = text_input(modal, "session_edit:papers")
    assert label == "Papers: 10 kept unless you type here"
    assert not papers.get("value")
    assert "too long to show here" in papers["placeholder"]
    assert len(papers["placeholder"]) <= 100

    # untouched (left empty), the ten papers stay
    submitted = await env.submit_modal(opened, {"session_edit:title": "Ten papers"})
    reply = await submitted.final()
    assert reply.text.startswith(f"Saved session #{session_id}: changed title.")
    assert await stored_keys(env, session_id) == keys

    # typed in, the list replaces them
    opened = await env.invoke("organize session edit", {"session": session_id}, member=env.organizer)
    assert (await opened.response()).modal is not None
    submitted = await env.submit_modal(opened, {"session_edit:papers": "TMax\nT1"})
    reply = await submitted.final()
    assert reply.text.startswith(f"Saved session #{session_id}: changed papers.")
    assert await stored_keys(env, session_id) == ["title:tmax", "title:t1"]


async def test_the_form_submitted_untouched_changes_nothing(env) -> None:
    await env.clock.set(OCTOBER)
    session_id = await add_session(
        env, "As it was", "2026-12-10 09:30", papers="TMax, Terminal-World", description="Stays."
    )
    keys = await stored_keys(env, session_id)
    opened = await env.invoke("organize session edit", {"session": session_id}, member=env.organizer)
    assert (await opened.response()).modal is not None
    reply = await (await env.submit_modal(opened, {})).response()
    assert reply.ephemeral
    assert reply.content == f"Nothing changed in session #{session_id}."
    assert await stored_keys(env, session_id) == keys


async def test_a_link_longer_than_any_kept_is_refused_and_nothing_stored(env) -> None:
    await env.clock.set(OCTOBER)
    link = "https://example.org/papers/" + "x" * 500  # over MAX_URL_LENGTH (a 512-character one is kept)
    reply = await run(
        env,
        "organize session add",
        {"title": "Long link", "when": "2026-11-05 08:00", "papers": f"TMax\n{link}"},
    )
    assert is_ephemeral(reply)
    assert "That link is over 512 characters" in reply.text
    assert await count_sessions(env) == 0


async def _stored_presenter(env: BotEnv, session_id: int) -> tuple[int | None, str | None]:
    async with env.bot.session_factory() as s:
        info = await svc.get_session(s, env.guild.id, session_id)
    return info.presenter_id, info.presenter_name


async def test_the_form_labels_its_fields_and_picks_the_presenter_from_a_user_select(env) -> None:
    await env.clock.set(OCTOBER)
    first, second = env.members[0], env.members[1]
    session_id = await add_session(env, "Terminal agents", "2026-10-29 09:30", presenter=first)
    opened = await env.invoke("organize session edit", {"session": session_id}, member=env.organizer)
    modal = (await opened.response()).modal
    assert len(modal["components"]) == 5
    assert all(row["type"] == 18 for row in modal["components"])  # each field in a Label
    label, select = text_input(modal, "session_edit:presenter")
    assert label == "Presenter"
    assert select["type"] == 5  # a user select
    assert [(int(d["id"]), d["type"]) for d in select["default_values"]] == [(first.id, "user")]
    # unchanged: nothing to save
    reply = await (await env.submit_modal(opened, {})).final()
    assert reply.text == f"Nothing changed in session #{session_id}."
    # another member
    opened = await env.invoke("organize session edit", {"session": session_id}, member=env.organizer)
    reply = await (await env.submit_modal(opened, {"session_edit:presenter": [second]})).final()
    assert reply.text.startswith(f"Saved session #{session_id}: changed presenter."), reply.text
    assert await _stored_presenter(env, session_id) == (second.id, second.display_name)
    # cleared: no presenter
    opened = await env.invoke("organize session edit", {"session": session_id}, member=env.organizer)
    reply = await (await env.submit_modal(opened, {"session_edit:presenter": []})).final()
    assert reply.text.startswith(f"Saved session #{session_id}: changed presenter."), reply.text
    assert await _stored_presenter(env, session_id) == (None, None)


async def test_a_guest_presenter_stays_unless_a_member_is_picked(env) -> None:
    await env.clock.set(OCTOBER)
    session_id = await add_session(env, "Guest talk", "2026-10-29 09:30", presenter_name="Hamish Ivison")
    opened = await env.invoke("organize session edit", {"session": session_id}, member=env.organizer)
    modal = (await opened.response()).modal
    row = next(r for r in modal["components"] if r["component"]["custom_id"] == "session_edit:presenter")
    assert "Hamish Ivison" in row["description"]
    reply = await (await env.submit_modal(opened, {"session_edit:title": "Guest talk, renamed"})).final()
    assert reply.text.startswith(f"Saved session #{session_id}: changed title."), reply.text
    assert await _stored_presenter(env, session_id) == (None, "Hamish Ivison")
