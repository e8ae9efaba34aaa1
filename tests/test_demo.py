"""`paperclub demo` runs offline, prints every scene's key lines, prints the same tour every time, and fails
naming the scene when one cannot show what it is about."""

from __future__ import annotations

import asyncio
import difflib
import io
import logging
import re
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.demo import runner
from bot.demo.runner import discover_tours, run_demo
from bot.demo.stage import Demo
from bot.demo.tours import setup
from bot.demo.tours.reading import club_programme
from bot.logs import AT_MOST_INFO, QUIET_UNLESS_DEBUG

ROOT = Path(__file__).resolve().parents[1]
RUNS = 5
HEADING = re.compile(r"\n─{78}\n▶ (.+)\n─{78}\n")


def split_scenes(text: str) -> dict[str, str]:
    """The tour's scenes, heading → what the scene printed."""
    parts = HEADING.split(text)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def scene(scenes: dict[str, str], start: str) -> str:
    """What the one scene whose heading starts with ``start`` printed."""
    found = [body for heading, body in scenes.items() if heading.startswith(start)]
    assert len(found) == 1, f"{len(found)} scenes start with {start!r}: {list(scenes)}"
    return found[0]


def reply_to(body: str, action: str) -> str:
    """The lines a scene printed from ``action`` (a use or a press) up to the next blank line."""
    assert action in body, f"{action!r} not in:\n{body}"
    return body[body.index(action) :].split("\n\n")[0]


@pytest.fixture(scope="module", autouse=True)
def kept_log_levels() -> Iterator[None]:
    """The demo sets the log levels as its command does (ERROR): give this process's back after the file."""
    names = ["", *QUIET_UNLESS_DEBUG, *AT_MOST_INFO]
    levels = {name: logging.getLogger(name).level for name in names}
    try:
        yield
    finally:
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


@pytest.fixture(scope="module")
def tour() -> str:
    """One run of the demo, read by the tests of each tour."""
    out, err = io.StringIO(), io.StringIO()
    assert asyncio.run(run_demo(out=out, err=err)) == 0, err.getvalue()
    assert err.getvalue() == ""
    return out.getvalue()


def test_every_scene_shows_something(tour: str) -> None:
    scenes = split_scenes(tour)
    assert all(body.strip() for body in scenes.values()), [
        h for h, body in scenes.items() if not body.strip()
    ]
    assert tour.rstrip().endswith(f"Demo finished: {len(scenes)} scenes.")
    assert "Traceback" not in tour
    intro = tour[: tour.index("▶")]
    for service in ("Discord", "arXiv", "Semantic Scholar", "Hugging Face", "OpenReview"):
        assert service in intro
    assert intro.count("stand-in") == 1  # said once, at the start
    assert not any("stand-in" in body for body in scenes.values())


def test_setup_scenes(tour: str) -> None:
    scenes = split_scenes(tour)
    first = scene(scenes, "An admin sets the club up")
    assert "@Adam uses /setup ping_role role:@Readers" in first
    checked = scene(scenes, "An organizer checks the settings")
    assert "Only members with Manage Server can change the club's settings." in checked
    # the quiet steps before it were waited for: the first settings card has them all
    card = first[first.index("Saved.") :]
    assert "**Announcements channel:** #announcements" in card[: card.index("└")]
    assert "not set" not in card[: card.index("└")]


def test_the_demo_session_is_announced(tour: str) -> None:
    """The demo's own session (not the club's): papers titled by the local arXiv, the announcement with its
    three buttons, its thread with the presenter, its Discord event."""
    scenes = split_scenes(tour)
    added = scene(scenes, "An organizer adds the demo's session")
    assert "Demo session: agents in real software" in added
    assert "SWE-bench: Can Language Models Resolve Real-World" in added
    assert (
        "arXiv:2310.06770" not in added.split("uses /organize session add")[1].split("\n", 2)[2]
    )  # titles, not ids

    announced = scene(scenes, "…and announces it")
    post = announced[announced.index("#announcements  PaperClub (bot):") :]
    assert "Thursday 3 December, 9:30 AM PT / 5:30 PM GMT / 11:00 PM IST" in post
    assert "Thursday 3 December 2026, 5:30 PM UTC (in 3 days)" in post  # each reader's own time
    assert (
        "[ Sign up ↗ ] [ ⏰ Remind me ] [ 🙈 Keep me out of the recording ] [ ❓ Ask the presenter ] "
        "[ 📅 Add to calendar ]"
    ) in post
    assert "🧵 thread: Demo session: agents in real software" in post
    assert "(@Sam, the presenter, is added to the thread)" in post
    assert "— the server's Events —\n  📅 Demo session: agents in real software" in post
    assert "Thursday 3 December 2026, 5:30 PM UTC · https://lu.ma/paperclub" in post

    pressed = scene(scenes, "Rita presses Remind me")
    remind = reply_to(pressed, "@Rita presses [⏰ Remind me]")
    assert "[ephemeral]" in remind
    assert "I'll remind you by DM an hour before **Demo session" in remind
    calendar = reply_to(pressed, "@Rita presses [📅 Add to calendar]")
    assert "📎 paperclub-session-1.ics" in calendar

    kept_out = reply_to(
        scene(scenes, "Tom asks to stay out"), "@Tom presses [🙈 Keep me out of the recording]"
    )
    assert "[ephemeral]" in kept_out
    assert "the presenter gets your name before it starts" in kept_out
    assert "[ Always keep me out ]" in kept_out

    listed = scene(scenes, "Tom lists what is coming")
    assert "Demo session: agents in real software" in reply_to(listed, "@Tom uses /session list")
    refused = reply_to(listed, "@Rita uses /organize session cancel session:1")
    assert "[ephemeral]" in refused
    assert "Only organizers" in refused
    assert "cancelled" not in refused.lower()


def test_the_reminders_go_out(tour: str) -> None:
    scenes = split_scenes(tour)
    added = scene(scenes, "An organizer schedules a reminder")
    assert "⏰ Reminder **#1** will go out in #general" in added  # the organizers' first is #1
    asked = scene(scenes, "Tom asks for a DM two hours before")
    assert "[ephemeral]" in reply_to(asked, "@Tom uses /remind me session:1 before:2h")
    listed = reply_to(asked, "@Olivia uses /organize reminder list")
    assert "│ Reminders: 1 pending" in listed  # what organizers made; the automatic ones behind an option
    assert "Also 8 automatic reminders" in listed

    chat = scene(scenes, "Fast-forward to Tuesday 1 December, 9:00 AM PT")
    assert "#general  PaperClub (bot):" in chat
    assert "@everyone\n  (pinged: nobody)" in chat
    assert "DM @Sam  PaperClub (bot):" in chat  # the presenter's, three days before

    day = scene(scenes, "Fast-forward to Wednesday 2 December, 9:30 AM PT, a day before")
    post = day[day.index("#announcements  PaperClub (bot):") :]
    assert post.split("\n")[1].startswith("  @Readers ")
    assert "Demo session: agents in real software" in post
    assert post.rstrip().endswith("(pinged: @Readers)")

    two = scene(scenes, "Thursday 3 December, 7:30 AM PT, two hours before")
    assert "DM @Tom  PaperClub (bot):" in two
    assert "You asked for this DM with `/remind me`" in two  # what Tom did
    hour = scene(scenes, "Thursday 3 December, 8:30 AM PT, an hour before")
    assert "#announcements  PaperClub (bot):" in hour
    assert "DM @Rita  PaperClub (bot):" in hour
    assert "You pressed Remind me on the session's" in hour  # what Rita did


def test_the_series_and_the_nudge(tour: str) -> None:
    scenes = split_scenes(tour)
    assert "Demo Thursdays" in scene(scenes, "An organizer makes a weekly series")
    skipped = scene(scenes, "Christmas Eve is a holiday")
    assert "Skipped Thursday 24 December (Christmas Eve)." in skipped  # this year's date: no year
    assert "~~Thursday 24 December~~ — **skipped**: Christmas Eve" in skipped
    claimed = scene(scenes, "The open weeks go up")
    board = claimed[: claimed.index("@Tom presses")]
    assert "**Thursday 17 December, 9:30 AM PT / 5:30 PM GMT  [ 🙋 I'll present ]" in board
    assert board.count("[ 🙋 I'll present ]") == 7  # one way to claim each open week: its button
    assert "✓" not in claimed  # a green button is not "done"
    assert not re.search(r"#\d+\b", board.replace("#5865F2", ""))  # no ids members cannot use
    nudge = scene(scenes, "A week before the next open week")
    posts = [p for p in nudge.split("\n#") if "PaperClub (bot):" in p.split("\n")[0]]
    assert len(posts) == 1, nudge  # one post for the week, naming all it lacks
    assert "🙋 **Demo Thursdays** still needs **a presenter** and **a paper**:" in posts[0]
    assert "Thursday 10 December" in posts[0]
    assert "session:" not in posts[0]  # the session by its title, not its number
    assert "@Tom" in scene(scenes, "Everyone can see the programme")


def test_the_programme_papers_and_site(tour: str) -> None:
    scenes = split_scenes(tour)
    imported = scene(scenes, "An operator imports the club's real programme")
    assert "$ paperclub import examples/club.yaml --guild " in imported
    assert "sessions 15 new" in imported
    # the papers tour: the club's "TMax" resolved to its arXiv paper, then the card the sources filled
    resolve = scene(scenes, "The programme names a paper only as “TMax”")
    assert "Tmax: A simple recipe for terminal agents" in resolve
    assert "Lovelace" not in tour
    card = scene(scenes, "Seconds later the sources' answers have landed")
    card = card[card.index("@Rita uses /paper show paper:TMax") : card.index("└")]
    for shown in (
        "Hamish Ivison, Junjie Oscar Yin",
        "**TLDR:**",
        "2 models",
        "Models: allenai/tmax-8b, allenai/tmax-sft-8b",
        "[ Code ↗ ]",
        "Building data recipes for terminal agents",
    ):
        assert shown in card
    assert "Demo session" not in card  # the demo's session never read the club's TMax
    # the website tour: the home page's address and text, a Session page link
    assert "Website on: https://club.example.org/paper-club/." in tour
    home = scene(scenes, "Anyone opens the home page")
    assert "GET https://club.example.org/paper-club/ → 200 text/html; charset=utf-8" in home
    assert "  │ • 16 October — Sandbox infrastructure for environments at scale." in home
    assert "  │ • Where. A video call; sign up on Luma beforehand" in home
    shown = scene(scenes, "A session's card now links its page")
    assert "[ Session page ↗ ]" in shown
    assert "ICLR 2024 oral" in shown  # OpenReview, found by SWE-bench's title
    assert "review's text" not in tour


def test_a_member_sees_and_deletes_her_data(tour: str) -> None:
    privacy = scene(split_scenes(tour), "Rita asks what the bot keeps about her")
    shown = reply_to(privacy, "@Rita uses /privacy")
    assert "In Paper Club" in shown
    assert "- **Suggestions** · 1 — The papers you suggested" in shown
    assert "[ Delete my data… ]" in shown
    asked = reply_to(privacy, "@Rita presses [Delete my data…]")
    assert "**Delete your data in Paper Club?** This cannot be undone." in asked
    done = reply_to(privacy, "@Rita presses [Delete my data]")
    assert "Your data in Paper Club is deleted:" in done
    assert "credited to “a member”" in done


async def test_demo_is_the_same_every_run() -> None:
    """Byte for byte, nothing ignored: the tour waits for each step (quiet ones too) and the stand-in's
    ids follow the demo's FakeClock. (Before, the first settings card often showed "not set".)"""
    outputs = []
    for _ in range(RUNS):
        out = io.StringIO()
        assert await run_demo(out=out) == 0
        outputs.append(out.getvalue())
    first = outputs[0]
    for other in outputs[1:]:
        assert other == first, "".join(difflib.unified_diff(first.splitlines(True), other.splitlines(True)))


async def _run_with(monkeypatch: pytest.MonkeyPatch, *steps: Any) -> tuple[int, str, str]:
    modules = [setup, *(types.SimpleNamespace(tour=step) for step in steps)]
    monkeypatch.setattr(runner, "discover_tours", lambda: modules)
    out, err = io.StringIO(), io.StringIO()
    code = await run_demo(out=out, err=err)
    return code, out.getvalue(), err.getvalue()


async def test_a_scene_that_finds_nothing_fails_the_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    async def looks_for_a_session(demo: Demo) -> None:
        demo.narrate("An organizer announces a session that was never added")
        await demo.session_titled("No such session")

    code, out, err = await _run_with(monkeypatch, looks_for_a_session)
    assert code == 1
    assert err.strip() == (
        "The demo failed: the scene “An organizer announces a session that was never added” found no session "
        "titled “No such session” in the store."
    )
    assert "Demo finished" not in out


async def test_a_scene_that_shows_nothing_fails_the_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    async def silent(demo: Demo) -> None:
        demo.narrate("A scene that returns early")

    code, _, err = await _run_with(monkeypatch, silent)
    assert code == 1
    assert "the scene “A scene that returns early” showed nothing" in err


async def test_a_scene_that_breaks_names_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    async def breaks(demo: Demo) -> None:
        demo.narrate("A scene whose step breaks")
        demo.show("something")
        raise KeyError("no such message")

    code, _, err = await _run_with(monkeypatch, breaks)
    assert code == 1
    assert "The demo failed in the scene “A scene whose step breaks”:" in err
    assert "KeyError: 'no such message'" in err


async def test_an_error_the_bot_logs_fails_its_scene(monkeypatch: pytest.MonkeyPatch) -> None:
    """Work a scene sets off in the background can fail without a reply saying so: the bot's log tells."""

    async def logs_an_error(demo: Demo) -> None:
        demo.narrate("A scene whose background work fails")
        demo.show("something")
        logging.getLogger("paperclub.reminders").error("could not send reminder 7")

    code, _, err = await _run_with(monkeypatch, logs_an_error)
    assert code == 1
    assert (
        "the scene “A scene whose background work fails” made the bot log an error: paperclub.reminders: could "
        "not send reminder 7"
    ) in err


def test_the_packaged_programme_is_examples_club_yaml() -> None:
    """One programme: the demo imports the package's copy (bot/demo/club.yaml, installed with the package);
    examples/club.yaml, where the README points admins, must stay the same file."""
    assert (ROOT / "examples" / "club.yaml").read_text(encoding="utf-8") == club_programme(), (
        "examples/club.yaml and bot/demo/club.yaml differ: edit one and copy it over the other"
    )


def test_tours_are_ordered() -> None:
    orders = [getattr(m, "ORDER", 100) for m in discover_tours()]
    assert orders == sorted(orders)
    assert orders[0] == 10
