"""The text of each kind of reminder, from plain values (no discord import). Always within 2,000 characters."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from bot import timeutil
from bot.services.sessions.members import Question
from bot.text import CONTENT_LIMIT, cut, markdown_link
from bot.timeutil import DisplayZone

DELAYED = "(delayed)"
_MARKDOWN = re.compile(r"([\\*_~|`>\[\]])")


def escape(text: str) -> str:
    """Markdown-escape a title so it shows as typed."""
    return _MARKDOWN.sub(r"\\\1", " ".join(text.split()))


@dataclass(frozen=True)
class PaperLink:
    """A paper as a reminder links it."""

    title: str
    url: str | None


@dataclass(frozen=True)
class SessionFacts:
    """What a session reminder shows (read from the store when the reminder goes out)."""

    id: int
    title: str
    starts_at: datetime
    ends_at: datetime
    signup_url: str | None
    presenter_name: str | None
    papers: tuple[PaperLink, ...] = ()
    presenter_id: int | None = None
    recording_url: str | None = None


def _when(facts: SessionFacts, zones: Sequence[DisplayZone]) -> str:
    return f"{timeutil.format_club_time(facts.starts_at, zones)} ({timeutil.discord_timestamp(facts.starts_at, 'R')})"


def _delayed(delayed: bool) -> str:
    return f" {DELAYED}" if delayed else ""


def _title(facts: SessionFacts, limit: int = 200) -> str:
    return cut(escape(facts.title), limit)


def _starts(mark: str, facts: SessionFacts, delayed: bool) -> str:
    return f"{mark} **{_title(facts)}** starts {timeutil.discord_timestamp(facts.starts_at, 'R')}{_delayed(delayed)}"


def _fit_lines(head: list[str], tail: list[str]) -> str:
    """Join ``head`` and as many ``tail`` lines as fit in a message, marking what was left out."""
    text = "\n".join(head)
    for index, line in enumerate(tail):
        more = len(tail) - index - 1
        reserve = len(f"\n…and {more} more") if more else 0
        if len(text) + 1 + len(line) + reserve > CONTENT_LIMIT:
            return cut(text + f"\n…and {len(tail) - index} more", CONTENT_LIMIT)
        text += "\n" + line
    return cut(text, CONTENT_LIMIT)


def session_channel_text(
    facts: SessionFacts,
    zones: Sequence[DisplayZone],
    *,
    ping_role_id: int | None,
    with_papers: bool,
    delayed: bool = False,
) -> str:
    """The announcements-channel reminder: ping, title, time in every display zone, sign-up, papers."""
    ping = f"<@&{ping_role_id}> " if ping_role_id else ""
    head = [ping + _starts("⏰", facts, delayed), f"🗓️ {timeutil.format_club_time(facts.starts_at, zones)}"]
    if facts.presenter_name:
        head.append(f"🎤 Presented by {cut(escape(facts.presenter_name), 100)}")
    if facts.signup_url:
        head.append(f"✍️ Sign up: <{facts.signup_url}>")
    tail: list[str] = []
    if with_papers and facts.papers:
        head.append("📄 Read beforehand:")
        for paper in facts.papers:
            if paper.url:
                tail.append("• " + markdown_link(paper.title, paper.url, limit=200, preview=False))
            else:
                tail.append(f"• {cut(escape(paper.title), 200)}")
    return _fit_lines(head, tail)


ASKED_BUTTON, ASKED_COMMAND, ASKED_INTERESTED = "button", "command", "interested"
STOP_LINES = {
    ASKED_BUTTON: "You pressed Remind me on the session's announcement; press it again to stop these.",
    ASKED_COMMAND: "You asked for this DM with `/remind me`; run it again on this session to stop these.",
    ASKED_INTERESTED: "You marked Interested on the session's Discord event; unmark it to stop these.",
}


def personal_text(
    facts: SessionFacts, zones: Sequence[DisplayZone], *, how: str = ASKED_BUTTON, delayed: bool = False
) -> str:
    """The DM for a member who asked for it, saying how she did (``how``) and how to stop it."""
    lines = [_starts("⏰", facts, delayed), f"🗓️ {timeutil.format_club_time(facts.starts_at, zones)}"]
    if facts.signup_url:
        lines.append(f"✍️ Sign up: <{facts.signup_url}>")
    lines.append(STOP_LINES.get(how, STOP_LINES[ASKED_BUTTON]))
    return cut("\n".join(lines), CONTENT_LIMIT)


@dataclass(frozen=True)
class PresenterNotes:
    """The names kept out of the recording and the questions a presenter's DM lists (``new``: since the last)."""

    names: tuple[str, ...]
    questions: tuple[Question, ...]
    new: bool = False


def presenter_text(
    facts: SessionFacts, zones: Sequence[DisplayZone], notes: PresenterNotes, *, delayed: bool = False
) -> str:
    """The presenter's DM: names kept out of the recording, questions (``new``: only what came since)."""
    names, questions, new = notes.names, notes.questions, notes.new
    if new:
        head = [_starts("🎤", facts, delayed)]
    else:
        head = [f"🎤 You are presenting **{_title(facts)}**{_delayed(delayed)}", f"🗓️ {_when(facts, zones)}"]
        if facts.papers:
            head.append("Papers: " + "; ".join(cut(escape(p.title), 120) for p in facts.papers[:10]))
    if names:
        listed = ", ".join(cut(escape(name), 100) for name in names)
        head.append(
            f"🙈 Keep out of the recording ({len(names)}): {cut(listed, 900)}"
            " — please leave them out of what you publish. Only you and the organizers get this list."
        )
    tail: list[str] = []
    if questions:
        head.append(f"❓ {'New questions' if new else 'Questions'} from members ({len(questions)}):")
        for asked in questions:
            who = cut(escape(asked.name), 100) if asked.name else "anonymous"
            tail.append(f"• {cut(escape(asked.text), 600)} — {who}")
    if not new:
        tail.append("Thank you! If anything changes, tell the organizers.")
    return _fit_lines(head, tail)


def recording_text(facts: SessionFacts, url: str, *, delayed: bool = False) -> str:
    """The DM to a member reminded of a session: its recording is up."""
    return cut(
        f"🎬 The recording of **{_title(facts)}** is up{_delayed(delayed)}: <{url}>\n"
        "You asked to be reminded of this session, so you get this once.",
        CONTENT_LIMIT,
    )


def recap_text(facts: SessionFacts, *, delayed: bool = False) -> str:
    """The presenter's DM after the session, asking for the recording and notes."""
    return cut(
        f"🙏 Thanks for presenting **{_title(facts)}**!{_delayed(delayed)}\n"
        "When the recording and notes are ready, press **Add the recording and notes** below (or use "
        "`/organize session recap`, picking the session by its title): the session's page and announcement "
        "link them, and the members who asked to be reminded hear that the recording is up.",
        CONTENT_LIMIT,
    )


def custom_text(
    message: str, facts: SessionFacts | None, zones: Sequence[DisplayZone], *, delayed: bool = False
) -> str:
    """An organizer's reminder: their text as written (it never pings), and the session when tied to one."""
    head = f"⏰ **Reminder**{_delayed(delayed)}\n"
    tail = ""
    if facts is not None:
        tail = f"\n— **{_title(facts, 150)}**, {_when(facts, zones)}"
    room = CONTENT_LIMIT - len(head) - len(tail)
    return head + cut(message, room) + tail


_GAP_WORDS = {"presenter": "a presenter", "paper": "a paper"}


def nudge_lines(plan_key: str, message: str, facts: SessionFacts) -> list[tuple[str, str]]:
    """(gap, how to fill it) for each thing the week still lacks: the planner's ``gap|line`` lines (or an older
    ``nudge:<gap>`` row's one line) that the session's facts still bear out."""
    if "|" in message or not message:
        planned = [tuple(line.split("|", 1)) for line in message.splitlines() if "|" in line]
    else:
        planned = [(plan_key.rpartition(":")[2], message)]
    lacking = {"presenter": not (facts.presenter_id or facts.presenter_name), "paper": not facts.papers}
    return [(gap, line) for gap, line in planned if lacking.get(gap, False)]


def nudge_text(
    lines: Sequence[tuple[str, str]],
    facts: SessionFacts,
    zones: Sequence[DisplayZone],
    *,
    delayed: bool = False,
) -> str:
    """The organizers' one nudge for a series week: what it still lacks (:func:`nudge_lines`), how to fill it."""
    gaps = [gap for gap, _ in lines]
    mark = "🙋" if "presenter" in gaps else "📄"
    needs = " and ".join(f"**{_GAP_WORDS.get(gap, gap)}**" for gap in gaps)
    head = f"{mark} **{_title(facts)}** still needs {needs}{_delayed(delayed)}: {_when(facts, zones)}"
    body = [f"• {line}" for _, line in lines] if len(lines) > 1 else [line for _, line in lines]
    return cut("\n".join([head, *body]), CONTENT_LIMIT)
