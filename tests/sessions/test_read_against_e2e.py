""" "Read against": a session's papers keep their order and role, set from `papers` ("TMax vs Terminal-World,
T1", "A and B against C", or 'vs ' at the start of a line) and shown that way on the card, the club-page
line, the event and the edit form."""

from __future__ import annotations

import pytest

from bot.services.sessions import store as svc
from bot.services.sessions.rules import read_papers
from tests.sessions.helpers import OCTOBER, add_session, paper_entries, run


@pytest.mark.parametrize(
    ("text", "items", "against"),
    [
        (
            "TMax vs Terminal-World, T1",
            ["TMax", "Terminal-World", "T1"],
            ["title:terminal world", "title:t1"],
        ),
        ("TMax vs. T1", ["TMax", "T1"], ["title:t1"]),
        (
            "Tau-Bench, Tau2-Bench and EnterpriseOps-Gym against AutoForge and ScaleEnv",
            ["Tau-Bench", "Tau2-Bench", "EnterpriseOps-Gym", "AutoForge", "ScaleEnv"],
            ["title:autoforge", "title:scaleenv"],
        ),
        (
            "TMax\nvs Terminal-World\nagainst: T1",
            ["TMax", "Terminal-World", "T1"],
            ["title:terminal world", "title:t1"],
        ),
        ("2401.12345 versus 2310.06770", ["2401.12345", "2310.06770"], ["arxiv:2310.06770"]),
        # a title with the word in it stays one paper; all papers marked against means none is
        (
            "Humans vs. Machines: a study of agents in the wild",
            ["Humans vs. Machines: a study of agents in the wild"],
            [],
        ),
        ("vs TMax\nvs T1", ["TMax", "T1"], []),
        ("TMax, T1", ["TMax", "T1"], []),
    ],
)
def test_read_papers_reads_the_roles(text: str, items: list[str], against: list[str]) -> None:
    reading = read_papers(text)
    assert list(reading.items) == items
    assert list(reading.against) == against


async def test_a_session_read_against_others(env) -> None:
    await env.clock.set(OCTOBER)
    session_id = await add_session(
        env,
        "Terminal agents",
        "2026-10-29 08:00",
        presenter_name="Hamish Ivison",
        papers="TMax vs Terminal-World, T1",
    )
    shown = await run(env, "session show", {"session": session_id}, member=env.member)
    entries = [text for text, _ in paper_entries(shown)]
    assert entries == ["**TMax**", "-# read against\n**Terminal-World**", "**T1**"]
    async with env.bot.session_factory() as db:
        info = await svc.get_session(db, env.guild.id, session_id)
    assert [[p.title for p in info.main_papers], [p.title for p in info.against_papers]] == [
        ["TMax"],
        ["Terminal-World", "T1"],
    ]
    (event,) = env.scheduled_events()
    assert "Papers: TMax\nRead against: Terminal-World; T1" in event["description"]
    # the edit form shows the roles as it reads them back, and a change of role alone is saved
    opened = await env.invoke("session edit", {"session": session_id}, member=env.organizer)
    modal = (await opened.response()).modal
    papers = next(
        r["component"] for r in modal["components"] if r["component"]["custom_id"] == "session_edit:papers"
    )
    assert papers["value"] == "TMax\nvs Terminal-World\nvs T1"
    reply = await (
        await env.submit_modal(opened, {"session_edit:papers": "TMax\nTerminal-World\nvs T1"})
    ).final()
    assert reply.text.startswith(f"Saved session #{session_id}: changed papers."), reply.text
    async with env.bot.session_factory() as db:
        info = await svc.get_session(db, env.guild.id, session_id)
    assert [[p.title for p in info.main_papers], [p.title for p in info.against_papers]] == [
        ["TMax", "Terminal-World"],
        ["T1"],
    ]


async def test_the_paper_card_follows_the_stored_roles(env) -> None:
    await env.clock.set(OCTOBER)
    await add_session(env, "Tools", "2026-10-29 08:00", papers="TMax and T1 against Terminal-World")
    for name, expected in [
        ("TMax", "read against **Terminal-World**"),
        ("Terminal-World", "read against **TMax** and **T1**"),
    ]:
        shown = await run(env, "paper show", {"paper": name}, member=env.member)
        assert expected in shown.text, shown.text
        assert "read against **T1**" not in shown.text
