"""A series' weeks changed from elsewhere, and its settings (SQLite and PostgreSQL): the open-weeks buttons
after a restart; /session edit setting a week's presenter and /session cancel skipping a week, followed by
the open-weeks message, /series show and the nudges; /setup series_horizon and series_nudge."""

from __future__ import annotations

from sqlalchemy import select

from db.models.reminders import NUDGE, PENDING, Reminder
from db.models.series import SeriesWeek
from tests.cards import card_fields
from tests.series.helpers import add_thursdays, configure, from_bot, is_ephemeral, press, run, week_lines


async def pending_nudges(env) -> list[tuple[int, str]]:
    async with env.bot.session_factory() as db:
        rows = await db.execute(
            select(Reminder.session_id, Reminder.plan_key).where(
                Reminder.kind == NUDGE, Reminder.status == PENDING
            )
        )
        return sorted(rows.all())


def labels(env, message) -> list[str]:
    return [b["label"] for b in env.standin.message(message.id).buttons]


async def test_the_open_weeks_buttons_work_after_a_restart(env) -> None:
    await configure(env)
    await add_thursdays(env)
    await run(env, "series open", {"series": "1"})
    board = from_bot(env, env.messages_in(env.announcements))[-1]
    await env.restart_bot()
    await env.bot.get_cog("SeriesCog").background.ready(env.guild.id).wait()
    reply = await press(env, board, "series:present:3", env.member)
    assert reply.text.startswith("🎤 You present **Thursday paper club** on Thursday 17 December")
    assert "Thu 17 Dec" not in labels(env, board)


async def test_a_presenter_set_with_session_edit_and_a_week_cancelled_with_session_cancel(env) -> None:
    await configure(env)
    await add_thursdays(env)
    await run(env, "series open", {"series": "1"})
    board = from_bot(env, env.messages_in(env.announcements))[-1]
    assert (2, "nudge:presenter") in await pending_nudges(env)

    await run(env, "session edit", {"session": 2, "presenter_name": "Hamish Ivison", "papers": "TMax"})
    assert "Thu 10 Dec" not in labels(env, board)
    assert not [n for n in await pending_nudges(env) if n[0] == 2]  # it has a presenter and a paper now
    lines = week_lines(await run(env, "series show", {"series": "1"}, member=env.member))
    assert lines[1].endswith("— 🎤 Hamish Ivison · 📄 TMax · #2")

    reply = await run(env, "session cancel", {"session": 4, "reason": "The room is booked"})
    assert reply.text.startswith("Cancelled session #4.")
    lines = week_lines(await run(env, "series show", {"series": "1"}, member=env.member))
    assert lines[3] == "~~Thursday 24 December 2026~~ — **skipped**: The room is booked"
    assert "Thu 24 Dec" not in labels(env, board)
    assert not [n for n in await pending_nudges(env) if n[0] == 4]
    # and it can be brought back: the same session, scheduled again, with a new Discord event
    await run(env, "series unskip", {"series": "1", "date": "2026-12-24"})
    lines = week_lines(await run(env, "series show", {"series": "1"}, member=env.member))
    assert lines[3].endswith("— 🙋 **open** · 📄 **no paper yet** · #4")
    events = [e for e in env.scheduled_events() if e["scheduled_start_time"].startswith("2026-12-24")]
    assert sorted(e["status"] for e in events) == [1, 4]  # the cancelled one, and its successor


async def test_the_series_settings(env) -> None:
    await configure(env)
    await add_thursdays(env)
    reply = await run(env, "setup series_horizon", {"weeks": 10}, member=env.admin)
    assert is_ephemeral(reply)
    assert reply.text.startswith("Saved. Series: 10 weeks ahead · nudges 7 days before an open week in <#")
    async with env.bot.session_factory() as db:
        assert len(list(await db.scalars(select(SeriesWeek.id)))) == 10
    assert await pending_nudges(env)
    reply = await run(env, "setup series_nudge", {"days": 0}, member=env.admin)
    assert reply.text == "Saved. Series: 10 weeks ahead · nudges off."
    assert await pending_nudges(env) == []
    shown = await run(env, "setup show", member=env.organizer)
    fields = card_fields(shown)
    assert fields["Series"] == "10 weeks ahead · nudges off"
    refused = await run(env, "setup series_horizon", {"weeks": 5}, member=env.organizer)
    assert refused.content == "Only members with Manage Server can change the club's settings."
