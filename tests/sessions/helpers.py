"""Helpers for the /session end-to-end tests."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import icalendar
from sqlalchemy import func, select

from bot.demo.botenv import BotEnv
from db.models import ClubSession, SessionSubscription
from standin.state import EPHEMERAL, Json, Message

# Tuesday 20 October 2026, before the club page's two November sessions.
OCTOBER = datetime(2026, 10, 20, 12, 0, tzinfo=UTC)
CLUB_NOV5 = "Thursday 5 November, 8:00 AM PT / 4:00 PM GMT / 9:30 PM IST"
CLUB_NOV19 = "Thursday 19 November, 9:30 AM PT / 5:30 PM GMT / 11:00 PM IST"
EVENT_SCHEDULED, EVENT_CANCELED = 1, 4


async def subscriber_ids(session: Any, session_id: int) -> list[int]:
    """The members to be reminded of the session, first subscribed first."""
    query = select(SessionSubscription.user_id).where(SessionSubscription.session_id == session_id)
    return list((await session.scalars(query.order_by(SessionSubscription.created_at))).all())


async def configure(env: BotEnv) -> None:
    """The admin points announcements at #announcements."""
    reply = await (
        await env.invoke("setup announcements", {"channel": env.announcements}, member=env.admin)
    ).final()
    assert "Saved" in reply.text


async def run(env: BotEnv, name: str, options: dict[str, Any] | None = None, member: Any = None) -> Message:
    """Invoke a command and return what the user finally sees (after any defer)."""
    result = await env.invoke(name, options or {}, member=member or env.organizer)
    return await result.final()


def is_ephemeral(message: Message) -> bool:
    return bool(message.flags & EPHEMERAL)


def session_id_in(text: str) -> int:
    match = re.search(r"#(\d+)", text)
    assert match, text
    return int(match.group(1))


async def add_session(env: BotEnv, title: str, when: str, **options: Any) -> int:
    reply = await run(env, "organize session add", {"title": title, "when": when, **options})
    assert is_ephemeral(reply), reply.text
    assert reply.text.startswith("Added session #"), reply.text
    return session_id_in(reply.text)


async def count_sessions(env: BotEnv) -> int:
    async with env.bot.session_factory() as session:
        return int(await session.scalar(select(func.count()).select_from(ClubSession)) or 0)


def ics_events(data: bytes) -> list[icalendar.Event]:
    calendar = icalendar.Calendar.from_ical(data)
    assert calendar["VERSION"] == "2.0"
    return list(calendar.walk("VEVENT"))


def button_ids(message: Message) -> list[str]:
    """The buttons in the message's rows (a card's actions; not the links beside its papers)."""
    rows = message.components_of_type(1)
    return [b.get("custom_id") or f"link:{b.get('url')}" for row in rows for b in row["components"]]


def card_title(message: Message) -> str:
    """A card's heading as shown (the first heading of its text displays)."""
    heading = next(
        line for text in message.text_displays for line in text.splitlines() if line.startswith("#")
    )
    return heading.lstrip("#").strip()


def card_items(message: Message) -> list[Json]:
    """The children of the message's card (its one Container)."""
    (container,) = message.components_of_type(17)
    return list(container["components"])


def paper_entries(message: Message) -> list[tuple[str, str | None]]:
    """Each paper on a card: its text, and the URL of the link button beside it (None: no link)."""
    entries: list[tuple[str, str | None]] = []
    for item in card_items(message)[1:]:
        if item["type"] == 9 and item["accessory"].get("style") == 5:
            entries.append((item["components"][0]["content"], item["accessory"]["url"]))
        elif item["type"] == 10 and item["content"].startswith(("**", "-# read against\n**")):
            entries.append((item["content"], None))
    return entries


def announcements(env: BotEnv) -> list[Message]:
    return env.messages_in(env.announcements)


def papers_of(message: Message) -> str:
    """A card's papers as one text (each paper's line and its link), for ``in`` checks."""
    return "\n".join(f"{text} {url or ''}" for text, url in paper_entries(message))
