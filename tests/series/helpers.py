"""Helpers for the /series end-to-end tests. The FakeClock starts on Monday 30 November 2026, 9:00 AM PT."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from sqlalchemy import func, select

from bot.demo.botenv import BotEnv
from db.models import ClubSession
from db.models.reminders import NUDGE, Reminder
from db.models.series import Series, SeriesWeek
from standin.state import EPHEMERAL, Message

THURSDAY_CLUB = "Thursday 3 December, 9:30 AM PT / 5:30 PM GMT / 11:00 PM IST"


def background(env: BotEnv) -> Any:
    return env.bot.get_cog("SeriesCog").background


async def settle(env: BotEnv) -> None:
    """Let the work changes set off finish: the series' refreshes, the reminders' planning and sends."""
    for _ in range(3):
        await asyncio.sleep(0)
        await background(env).settle()
        await env.bot.get_cog("RemindersCog").settle()


async def run(env: BotEnv, name: str, options: dict[str, Any] | None = None, member: Any = None) -> Message:
    """Invoke a command and return what the user finally sees (after any defer)."""
    result = await env.invoke(name, options or {}, member=member or env.organizer)
    message = await result.final()
    await settle(env)
    return message


async def press(env: BotEnv, message: Message | int, custom_id: str, member: Any) -> Message:
    result = await env.click(message, custom_id, member=member)
    reply = await result.final()
    await settle(env)
    return reply


async def configure(env: BotEnv) -> None:
    """Announcements in #announcements, the Readers role pinged, Organizers the organizer role."""
    await run(env, "setup announcements", {"channel": env.announcements}, member=env.admin)
    await run(env, "setup ping_role", {"role": env.world.readers}, member=env.admin)
    await run(env, "setup organizer_role", {"role": env.world.organizers}, member=env.admin)


def is_ephemeral(message: Message) -> bool:
    return bool(message.flags & EPHEMERAL)


def series_id_in(text: str) -> int:
    match = re.search(r"series #(\d+)", text)
    assert match, text
    return int(match.group(1))


async def add_thursdays(env: BotEnv, name: str = "Thursday paper club", **options: Any) -> int:
    reply = await run(env, "series add", {"name": name, "day": "Thursday", "time": "9:30am", **options})
    assert is_ephemeral(reply), reply.text
    assert reply.text.startswith("Added series #"), reply.text
    return series_id_in(reply.text)


async def count(env: BotEnv, model: Any, *where: Any) -> int:
    async with env.bot.session_factory() as session:
        return int(await session.scalar(select(func.count()).select_from(model).where(*where)) or 0)


async def store_counts(env: BotEnv) -> tuple[int, int, int, int]:
    """(series, weeks, sessions, nudges) in the store: what a refused command must leave as it was."""
    return (
        await count(env, Series),
        await count(env, SeriesWeek),
        await count(env, ClubSession),
        await count(env, Reminder, Reminder.kind == NUDGE),
    )


def week_lines(message: Message) -> list[str]:
    """The week lines of a series card (/series show, or under an organizer's reply)."""
    # the layout: heading, rule (and description), separator, the weeks, the footer
    (container,) = message.components_of_type(17)
    texts = [c["content"] for c in container["components"] if c["type"] == 10]
    return texts[-2].split("\n")


def thread_named(env: BotEnv, name: str) -> Any:
    (thread,) = [t for t in env.standin.threads if t.name == name]
    return thread


def from_bot(env: BotEnv, messages: list[Message]) -> list[Message]:
    return [m for m in messages if m.author_id == env.standin.bot_user.id]
