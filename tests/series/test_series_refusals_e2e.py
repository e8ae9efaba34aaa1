"""Every bad input of /series through the stand-in (SQLite and PostgreSQL): a clear, ephemeral message, and
nothing stored — no series, week, session, nudge, Discord event or message more than before."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import text

from bot.demo.botenv import BotEnv
from tests.series.helpers import add_thursdays, configure, from_bot, is_ephemeral, press, run, store_counts

OTHER_GUILD = 424242


async def snapshot(env: BotEnv) -> tuple[Any, ...]:
    return (
        *await store_counts(env),
        len(env.scheduled_events()),
        sorted((e["id"], e["status"], e["scheduled_start_time"]) for e in env.scheduled_events()),
        len(env.standin.requests_to("POST", r"/channels/\d+/messages$")),
    )


async def refused(env: BotEnv, name: str, options: dict[str, Any], member: Any = None) -> str:
    before = await snapshot(env)
    reply = await run(env, name, options, member=member)
    assert is_ephemeral(reply), reply.text
    assert await snapshot(env) == before, reply.text
    return reply.text


ADD = {"name": "Thursday paper club", "day": "Thursday", "time": "9:30am"}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"day": "Funday"},
            "“Funday” is not a day of the week; pick one of Monday, Tuesday, Wednesday, Thursday, Friday, "
            "Saturday or Sunday.",
        ),
        (
            {"day": "Sunday", "time": "2:30am", "timezone": "America/Los_Angeles"},
            "2:30 AM on Sunday 14 March 2027 does not exist in America/Los_Angeles (clocks spring forward); "
            "pick a time outside 2:00–3:00 AM.",
        ),
        (
            {"every": 3},
            "A series meets every week (every: 1) or every other week (every: 2), not every 3 weeks.",
        ),
        (
            {"until": "2026-11-26"},
            "until (Thursday 26 November 2026) is before the first week (Thursday 3 December 2026); give a later "
            "until, or leave it out.",
        ),
        ({"time": "25:00"}, "“25:00” is not a valid time of day."),
        ({"first": "2026-12-04"}, "This series meets on Thursdays; 4 December (first) is a Friday."),
    ],
)
async def test_add_refuses(env, options: dict[str, Any], message: str) -> None:
    await configure(env)
    assert await refused(env, "series add", {**ADD, **options}) == message


async def test_a_second_series_of_the_same_name(env) -> None:
    await configure(env)
    await add_thursdays(env)
    shown = await refused(env, "series add", {**ADD, "name": "thursday  PAPER club", "day": "Friday"})
    assert shown == (
        "There is already a series called “Thursday paper club” (#1); pick another name, or change that one "
        "with `/series edit`."
    )


@pytest.mark.parametrize("command", ["series skip", "series move", "series unskip"])
async def test_a_date_the_series_does_not_meet_on(env, command: str) -> None:
    await configure(env)
    await add_thursdays(env)
    extra = {"when": "8:00am"} if command == "series move" else {}
    shown = await refused(env, command, {"series": "Thursday paper club", "date": "4 December", **extra})
    assert shown == "This series meets on Thursdays; 4 December is a Friday."
    fortnight = await add_thursdays(env, "Fortnightly", every=2)
    shown = await refused(env, command, {"series": str(fortnight), "date": "2026-12-10", **extra})
    assert shown == (
        "This series meets every other Thursday; 10 December is not one of its weeks (3 December and "
        "17 December are)."
    )


@pytest.mark.parametrize("command", ["series skip", "series move"])
async def test_a_past_week(env, command: str) -> None:
    await configure(env)
    await add_thursdays(env)
    await env.clock.set(datetime(2026, 12, 3, 17, 35, tzinfo=UTC))  # 3 December's session has begun
    extra = {"when": "8:00am"} if command == "series move" else {}
    shown = await refused(env, command, {"series": "1", "date": "2026-12-03", **extra})
    assert (
        shown == "The week of Thursday 3 December 2026 has already begun or taken place; pick a coming week."
    )


async def test_moving_to_a_past_time_or_unskipping_a_week_that_is_not_skipped(env) -> None:
    await configure(env)
    await add_thursdays(env)
    shown = await refused(
        env, "series move", {"series": "1", "date": "2026-12-10", "when": "2026-11-29 08:00"}
    )
    assert "is in the past; pick a time in the future." in shown
    assert await refused(env, "series unskip", {"series": "1", "date": "2026-12-10"}) == (
        "Thursday 10 December 2026 is not skipped."
    )
    await run(env, "series skip", {"series": "1", "date": "2026-12-10"})
    assert await refused(env, "series skip", {"series": "1", "date": "2026-12-10"}) == (
        "Thursday 10 December 2026 is already skipped."
    )
    assert await refused(env, "series move", {"series": "1", "date": "2026-12-10", "when": "8am"}) == (
        "Thursday 10 December 2026 is skipped; `/series unskip` it first, then move it."
    )


async def test_editing_or_ending_with_bad_values(env) -> None:
    await configure(env)
    await add_thursdays(env)
    assert await refused(env, "series edit", {"series": "1", "every": 4}) == (
        "A series meets every week (every: 1) or every other week (every: 2), not every 4 weeks."
    )
    assert "is not a day of the week" in await refused(env, "series edit", {"series": "1", "day": "Caturday"})
    assert await refused(env, "series edit", {"series": "1", "until": "2026-11-02"}) == (
        "until (Monday 2 November 2026) has passed; to stop the series now, use `/series end`."
    )
    assert await refused(env, "series end", {"series": "1", "after": "2026-11-02"}) == (
        "Monday 2 November 2026 has passed; leave `after` out to end the series now."
    )


async def test_a_member_may_not_press_another_members_claim_away(env) -> None:
    await configure(env)
    await add_thursdays(env)
    sam, tom = env.members[:2]
    await run(env, "series open", {"series": "1"})
    board = from_bot(env, env.messages_in(env.announcements))[-1]
    claim = "series:present:1"
    assert (await press(env, board, claim, sam)).content.startswith("🎤 You present")
    await run(env, "session announce", {"session": 1})
    announcement = from_bot(env, env.messages_in(env.announcements))[-1]
    before = await snapshot(env)
    reply = await press(env, announcement, claim, tom)
    assert is_ephemeral(reply)
    assert reply.text == (
        f"<@{sam.id}> presents Thursday 3 December 2026. Only they can step down; an organizer can change it "
        "with `/session edit`."
    )
    assert await snapshot(env) == before


async def test_a_series_of_another_server_is_not_found(env) -> None:
    await configure(env)
    await add_thursdays(env)
    async with env.bot.session_factory() as db, db.begin():
        for table in ("series", "series_weeks", "sessions"):
            await db.execute(text(f"UPDATE {table} SET guild_id = :other"), {"other": OTHER_GUILD})
    for options in ({"series": "1"}, {"series": "#1"}):
        assert (
            await refused(env, "series show", options, member=env.member)
            == "There is no series #1 in this server."
        )
    assert await refused(env, "series show", {"series": "Thursday paper club"}, member=env.member) == (
        "There is no series called “Thursday paper club” in this server; `/series list` shows them."
    )
    for command, extra in (
        ("series skip", {"date": "2026-12-10"}),
        ("series move", {"date": "2026-12-10", "when": "8am"}),
        ("series edit", {"time": "10am"}),
        ("series end", {}),
        ("series open", {}),
    ):
        assert (
            await refused(env, command, {"series": "1", **extra}) == "There is no series #1 in this server."
        )
    listed = await run(env, "series list", member=env.member)
    assert listed.text_displays == ["## Series\nNo series yet. Organizers add one with `/series add`."]


async def test_members_may_not_change_a_series(env) -> None:
    await configure(env)
    await add_thursdays(env)
    for command, options in (
        ("series add", {**ADD, "name": "Mine"}),
        ("series skip", {"series": "1", "date": "2026-12-10"}),
        ("series move", {"series": "1", "date": "2026-12-10", "when": "8am"}),
        ("series edit", {"series": "1", "time": "10am"}),
        ("series end", {"series": "1"}),
        ("series open", {"series": "1"}),
    ):
        shown = await refused(env, command, options, member=env.member)
        assert shown == "Only organizers can do this (Manage Events or the organizer role).", command
