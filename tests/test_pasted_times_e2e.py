"""A pasted Discord timestamp (`<t:N:F>`, as the message box's @time picker writes it) in every `when`,
through the real discord.py client: /session add, /session edit and its form, /series move (and a series'
first date), /remind add (alone and before a session) take the exact instant, whatever zone the command
reads typed times in; each `when` autocomplete echoes it in the club's display zones; a malformed one, one
out of range and one in the past get their clear ephemeral message and nothing is stored."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest
from sqlalchemy import func, select

from bot.demo.botenv import BotEnv
from bot.timeutil import DEFAULT_DISPLAY_ZONES, format_club_time
from db.models import ClubSession
from db.models.reminders import CUSTOM, Reminder
from db.models.series import SeriesWeek
from standin.state import EPHEMERAL, Message
from tests.series.helpers import add_thursdays, run

# The FakeClock starts on Monday 30 November 2026, 9:00 AM PT.
THURSDAY = datetime(2026, 12, 3, 18, 0, tzinfo=UTC)
FRIDAY = datetime(2026, 12, 4, 13, 45, tzinfo=UTC)
WEDNESDAY = datetime(2026, 12, 16, 17, 0, tzinfo=UTC)
ECHO = "Thursday 3 December 2026, 10:00 AM PT / 6:00 PM GMT / 11:30 PM IST"
MALFORMED = "is not a Discord timestamp I can read"
WINDOW = "Dates must be between 1 January 1926 and 31 December 2126."
BAD = [("<t:abc>", MALFORMED), ("<t:99999999999999:F>", WINDOW), ("<t:1000000000:F>", "is in the past")]


def stamp(at: datetime, style: str = ":F") -> str:
    return f"<t:{int(at.timestamp())}{style}>"


async def final(env: BotEnv, name: str, options: dict[str, Any]) -> Message:
    return await run(env, name, options, member=env.organizer)


async def session_row(env: BotEnv, session_id: int) -> ClubSession:
    async with env.bot.session_factory() as session:
        row = await session.get(ClubSession, session_id)
    assert row is not None
    return row


async def count(env: BotEnv, model: Any) -> int:
    async with env.bot.session_factory() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


async def custom_reminders(env: BotEnv) -> list[Reminder]:
    async with env.bot.session_factory() as session:
        return list(
            await session.scalars(select(Reminder).where(Reminder.kind == CUSTOM).order_by(Reminder.id))
        )


def test_the_echo_is_the_club_time_line() -> None:
    assert format_club_time(THURSDAY, DEFAULT_DISPLAY_ZONES, with_year=True) == ECHO


@pytest.mark.parametrize("style", ["", ":t", ":d", ":F", ":s", ":R"])
async def test_session_add_takes_the_instant_whatever_its_zone(discord_env: BotEnv, style: str) -> None:
    reply = await final(
        discord_env, "session add", {"title": "Pasted", "when": stamp(THURSDAY, style), "timezone": "UK"}
    )
    assert reply.text.startswith("Added session #1"), reply.text
    row = await session_row(discord_env, 1)
    assert (row.starts_at, row.timezone) == (THURSDAY, "Europe/London")


async def test_session_edit_and_its_form_take_the_instant(discord_env: BotEnv) -> None:
    env = discord_env
    added = await final(
        env, "session add", {"title": "Moving", "when": "2026-12-10 09:30", "timezone": "IST"}
    )
    assert added.text.startswith("Added session #1"), added.text
    reply = await final(env, "session edit", {"session": 1, "when": stamp(THURSDAY, ":f")})
    assert reply.text.startswith("Saved session #1: changed time."), reply.text
    row = await session_row(env, 1)
    assert (row.starts_at, row.timezone) == (THURSDAY, "Asia/Kolkata")  # the session's zone stays

    opened = await env.invoke("session edit", {"session": 1}, member=env.organizer)
    assert (await opened.response()).modal is not None
    submitted = await (await env.submit_modal(opened, {"session_edit:when": stamp(FRIDAY, ":S")})).final()
    assert submitted.text.startswith("Saved session #1: changed time."), submitted.text
    assert (await session_row(env, 1)).starts_at == FRIDAY

    for bad, message in BAD:
        opened = await env.invoke("session edit", {"session": 1}, member=env.organizer)
        assert (await opened.response()).modal is not None
        refused = await (await env.submit_modal(opened, {"session_edit:when": bad})).final()
        assert refused.flags & EPHEMERAL
        assert message in refused.content, (bad, refused.content)
    assert (await session_row(env, 1)).starts_at == FRIDAY


async def test_series_move_and_first_take_the_instant(discord_env: BotEnv) -> None:
    env = discord_env
    # `first` as a pasted timestamp: its date in the series' zone (Thursday 10 December, 6 PM in LA)
    series_id = await add_thursdays(env, first=stamp(datetime(2026, 12, 11, 2, 0, tzinfo=UTC), ":D"))
    async with env.bot.session_factory() as session:
        weeks = list(
            await session.scalars(select(SeriesWeek.week_date).where(SeriesWeek.series_id == series_id))
        )
    assert min(weeks) == date(2026, 12, 10)

    reply = await final(
        env, "series move", {"series": str(series_id), "date": "2026-12-17", "when": stamp(WEDNESDAY)}
    )
    assert "is now on Wednesday 16 December, 9:00 AM PT / 5:00 PM GMT / 10:30 PM IST" in reply.text, (
        reply.text
    )
    async with env.bot.session_factory() as session:
        moved = await session.scalar(
            select(ClubSession.starts_at)
            .join(SeriesWeek, SeriesWeek.session_id == ClubSession.id)
            .where(SeriesWeek.series_id == series_id, SeriesWeek.week_date == date(2026, 12, 17))
        )
    assert moved == WEDNESDAY

    for bad, message in BAD:
        refused = await final(
            env, "series move", {"series": str(series_id), "date": "2026-12-24", "when": bad}
        )
        assert refused.flags & EPHEMERAL
        assert message in refused.content, (bad, refused.content)
    async with env.bot.session_factory() as session:
        christmas = await session.scalar(
            select(ClubSession.starts_at)
            .join(SeriesWeek, SeriesWeek.session_id == ClubSession.id)
            .where(SeriesWeek.series_id == series_id, SeriesWeek.week_date == date(2026, 12, 24))
        )
    assert christmas == datetime(2026, 12, 24, 17, 30, tzinfo=UTC)  # still 9:30 AM PT


async def test_remind_add_takes_the_instant_alone_and_before_a_session(discord_env: BotEnv) -> None:
    env = discord_env
    reply = await final(env, "remind add", {"when": stamp(THURSDAY, ":R"), "message": "Read it"})
    assert reply.flags & EPHEMERAL
    added = await final(env, "session add", {"title": "Later", "when": "2026-12-10 09:30"})
    assert added.text.startswith("Added session #1"), added.text
    tied = await final(env, "remind add", {"when": stamp(THURSDAY), "message": "A week to go", "session": 1})
    assert tied.flags & EPHEMERAL
    alone, before = await custom_reminders(env)
    assert (alone.due_at, alone.session_id) == (THURSDAY, None)
    starts = datetime(2026, 12, 10, 17, 30, tzinfo=UTC)
    assert (before.due_at, before.session_id, before.offset_minutes) == (
        THURSDAY,
        1,
        int((starts - THURSDAY).total_seconds() // 60),
    )
    after = (stamp(datetime(2026, 12, 11, tzinfo=UTC)), "is not before the session")
    tries = [(bad, message, extra) for bad, message in BAD for extra in ({}, {"session": 1})]
    for bad, message, extra in [*tries, (*after, {"session": 1})]:
        refused = await final(env, "remind add", {"when": bad, "message": "x", **extra})
        assert refused.flags & EPHEMERAL
        assert message in refused.content, (bad, extra, refused.content)
    assert len(await custom_reminders(env)) == 2


async def test_session_add_refuses_bad_timestamps_and_stores_nothing(discord_env: BotEnv) -> None:
    for bad, message in BAD:
        refused = await final(discord_env, "session add", {"title": "Bad", "when": bad})
        assert refused.flags & EPHEMERAL
        assert message in refused.content, (bad, refused.content)
    assert await count(discord_env, ClubSession) == 0


async def test_every_when_autocomplete_echoes_a_pasted_timestamp(discord_env: BotEnv) -> None:
    env = discord_env
    await final(env, "session add", {"title": "One", "when": "2026-12-10 09:30", "timezone": "UK"})
    series_id = await add_thursdays(env)
    for name, extra in (
        ("session add", {"title": "x", "timezone": "IST"}),
        ("session edit", {"session": 1}),
        ("remind add", {}),
        ("remind add", {"session": 1}),
        ("series move", {"series": str(series_id), "date": "2026-12-17"}),
        ("series move", {}),
    ):
        text = stamp(THURSDAY, ":F")
        (choice,) = await env.autocomplete(name, "when", text, options=extra)
        assert choice == {"name": ECHO, "value": text}, (name, extra)
        for bad, message in BAD:
            (refused,) = await env.autocomplete(name, "when", bad, options=extra)
            assert refused["name"].startswith(f"{bad} → ⚠ "), (name, refused)
            assert message in refused["name"], (name, refused)
    # a typed time keeps its own echo (what was typed, then the first two zones)
    (typed,) = await env.autocomplete(
        "series move", "when", "8:00am", options={"series": str(series_id), "date": "2026-12-17"}
    )
    assert typed["name"] == "8:00am → Thursday 17 December 2026, 8:00 AM PT / 4:00 PM GMT"
