"""The text of each reminder (pure): club times, the ping, papers, the (delayed) mark, Discord's limits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.services.reminders import texts as r
from bot.services.sessions.members import Question
from bot.timeutil import DEFAULT_DISPLAY_ZONES

NOV5 = datetime(2026, 11, 5, 16, 0, tzinfo=UTC)
FACTS = r.SessionFacts(
    id=12,
    title="Building data recipes for terminal agents",
    starts_at=NOV5,
    ends_at=NOV5 + timedelta(hours=1),
    signup_url="https://lu.ma/paperclub",
    presenter_name="Hamish Ivison",
    papers=(r.PaperLink("TMax", "https://arxiv.org/abs/2401.12345"), r.PaperLink("Terminal-World", None)),
)
CLUB_TIME = "Thursday 5 November, 8:00 AM PT / 4:00 PM GMT / 9:30 PM IST"


def test_session_reminder_with_ping_time_signup_and_papers() -> None:
    text = r.session_channel_text(FACTS, DEFAULT_DISPLAY_ZONES, ping_role_id=7001, with_papers=True)
    assert text.splitlines() == [
        "<@&7001> ⏰ **Building data recipes for terminal agents** starts <t:1793894400:R>",
        f"🗓️ {CLUB_TIME}",
        "🎤 Presented by Hamish Ivison",
        "✍️ Sign up: <https://lu.ma/paperclub>",
        "📄 Read beforehand:",
        "• [TMax](<https://arxiv.org/abs/2401.12345>)",
        "• Terminal-World",
    ]


def test_session_reminder_without_papers_or_ping_and_delayed() -> None:
    text = r.session_channel_text(
        FACTS, DEFAULT_DISPLAY_ZONES, ping_role_id=None, with_papers=False, delayed=True
    )
    assert text.startswith(
        "⏰ **Building data recipes for terminal agents** starts <t:1793894400:R> (delayed)"
    )
    assert "TMax" not in text
    assert "<@&" not in text


def test_many_long_papers_are_cut_to_fit_one_message() -> None:
    papers = tuple(r.PaperLink("P" * 300, "https://example.org/" + "x" * 200) for _ in range(30))
    facts = r.SessionFacts(**{**FACTS.__dict__, "papers": papers})
    text = r.session_channel_text(facts, DEFAULT_DISPLAY_ZONES, ping_role_id=1, with_papers=True)
    assert len(text) <= r.CONTENT_LIMIT
    assert "more" in text.splitlines()[-1]


def test_titles_are_escaped() -> None:
    facts = r.SessionFacts(**{**FACTS.__dict__, "title": "**bold** _x_ `y`"})
    assert "\\*\\*bold\\*\\* \\_x\\_ \\`y\\`" in r.personal_text(facts, DEFAULT_DISPLAY_ZONES)


def test_custom_text_keeps_the_message_and_names_the_session() -> None:
    assert r.custom_text("Vote @everyone", None, DEFAULT_DISPLAY_ZONES) == "⏰ **Reminder**\nVote @everyone"
    tied = r.custom_text("Read it", FACTS, DEFAULT_DISPLAY_ZONES, delayed=True)
    assert tied.startswith("⏰ **Reminder** (delayed)\nRead it\n— **Building data recipes")
    longest = r.custom_text("m" * 1800, FACTS, DEFAULT_DISPLAY_ZONES)
    assert len(longest) <= r.CONTENT_LIMIT


def test_presenter_and_recap_dms() -> None:
    assert CLUB_TIME in r.presenter_text(FACTS, DEFAULT_DISPLAY_ZONES, r.PresenterNotes((), ()))
    recap = r.recap_text(FACTS)
    assert "/organize session recap" in recap
    assert "#" not in recap  # the session by its title, never a number
    assert "recording" in recap


def test_one_nudge_names_each_thing_the_week_still_lacks() -> None:
    message = "presenter|Members can claim it here: https://discord.com/x\npaper|Set its paper with `/organize session edit`."
    bare = r.SessionFacts(**{**FACTS.__dict__, "presenter_name": None, "papers": ()})
    both = r.nudge_text(r.nudge_lines("nudge:week", message, bare), bare, DEFAULT_DISPLAY_ZONES)
    assert both.startswith(
        "🙋 **Building data recipes for terminal agents** still needs **a presenter** and **a paper**: "
    )
    assert both.endswith(
        "\n• Members can claim it here: https://discord.com/x\n• Set its paper with `/organize session edit`."
    )
    claimed = r.SessionFacts(**{**bare.__dict__, "presenter_id": 7})  # claimed since it was planned
    paper_only = r.nudge_text(r.nudge_lines("nudge:week", message, claimed), claimed, DEFAULT_DISPLAY_ZONES)
    assert paper_only.startswith("📄 **Building data recipes for terminal agents** still needs **a paper**: ")
    assert paper_only.endswith("\nSet its paper with `/organize session edit`.")
    full = r.SessionFacts(**{**claimed.__dict__, "papers": (r.PaperLink("TMax", None),)})
    assert r.nudge_lines("nudge:week", message, full) == []  # nothing lacking: not sent
    assert r.nudge_lines("nudge:paper", "Set it.", bare) == [
        ("paper", "Set it.")
    ]  # planned by a release before


def test_the_presenters_dm_lists_who_stays_out_and_the_questions_without_pinging() -> None:
    asked = (Question("Rita", "How does it scale?", NOV5), Question(None, "Is <@42> **right**?", NOV5))
    text = r.presenter_text(FACTS, DEFAULT_DISPLAY_ZONES, r.PresenterNotes(("Rita", "Sam_*bold*"), asked))
    assert "🙈 Keep out of the recording (2): Rita, Sam\\_\\*bold\\*" in text
    assert "❓ Questions from members (2):" in text
    assert "• How does it scale? — Rita" in text
    assert "• Is <@42\\> \\*\\*right\\*\\*? — anonymous" in text  # sent with mentions off: never a ping
    start = r.presenter_text(
        FACTS, DEFAULT_DISPLAY_ZONES, r.PresenterNotes((), (Question(None, "Late?", NOV5),), True)
    )
    assert start.startswith("🎤 **Building data recipes for terminal agents** starts <t:")
    assert "❓ New questions from members (1):" in start
    many = r.presenter_text(
        FACTS, DEFAULT_DISPLAY_ZONES, r.PresenterNotes((), (Question(None, "q" * 600, NOV5),) * 10)
    )
    assert len(many) <= 2000
    assert "…and" in many


def test_the_recording_dm() -> None:
    text = r.recording_text(FACTS, "https://youtu.be/x")
    assert text.startswith(
        "🎬 The recording of **Building data recipes for terminal agents** is up: <https://youtu.be/x>"
    )
