"""Helpers for the /session end-to-end tests."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import icalendar
from sqlalchemy import func, select

from bot.demo.botenv import BotEnv
from db.models import ClubSession
from standin.state import EPHEMERAL, Message

# Tuesday 20 October 2026, before the club page's two November sessions.
OCTOBER = datetime(2026, 10, 20, 12, 0, tzinfo=UTC)
CLUB_NOV5 = "Thursday 5 November, 8:00 AM PT / 4:00 PM GMT / 9:30 PM IST"
CLUB_NOV19 = "Thursday 19 November, 9:30 AM PT / 5:30 PM GMT / 11:00 PM IST"
EVENT_SCHEDULED, EVENT_CANCELED = 1, 4


async def configure(env: BotEnv) -> None:
    """The admin points announcements at #announcements."""
    reply = await (
        await env.invoke("setup announcements", {"channel": env.announcements}, member=env.admin)
    ).final()
    assert "Saved" in reply.content


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
    reply = await run(env, "session add", {"title": title, "when": when, **options})
    assert is_ephemeral(reply), reply.content
    assert reply.content.startswith("Added session #"), reply.content
    return session_id_in(reply.content)


async def count_sessions(env: BotEnv) -> int:
    async with env.bot.session_factory() as session:
        return int(await session.scalar(select(func.count()).select_from(ClubSession)) or 0)


def ics_events(data: bytes) -> list[icalendar.Event]:
    calendar = icalendar.Calendar.from_ical(data)
    assert calendar["VERSION"] == "2.0"
    return list(calendar.walk("VEVENT"))


def button_ids(message: Message) -> list[str]:
    return [b.get("custom_id") or f"link:{b.get('url')}" for b in message.buttons]


def announcements(env: BotEnv) -> list[Message]:
    return env.messages_in(env.announcements)
