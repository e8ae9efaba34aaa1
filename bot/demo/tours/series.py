"""Tour: the demo's weekly series: a week skipped, an open week claimed, the organizers' nudge."""

from __future__ import annotations

from sqlalchemy import select

from bot.demo.stage import Demo
from bot.services.series.store import get_series, get_settings
from bot.services.series.weeks import weeks_view
from db.models.reminders import NUDGE, PENDING, Reminder

ORDER = 50  # after the reminders tour: the clock is then Thursday 3 December, an hour before the nudge
NAME = "Demo Thursdays"


async def tour(demo: Demo) -> None:
    """Make a series, skip a week, claim an open week and show the organizers' nudge."""
    demo.narrate(
        f"An organizer makes a weekly series, “{NAME}”: every Thursday at 9:30 AM club time from 10 "
        "December; the next eight weeks get their sessions and Discord events"
    )
    await demo.invoke(
        "organize series add",
        {
            "name": NAME,
            "day": "Thursday",
            "time": "9:30am",
            "first": "2026-12-10",
            "signup_url": "https://lu.ma/paperclub",
        },
    )

    demo.narrate("Christmas Eve is a holiday: the organizer skips that week")
    await demo.invoke(
        "organize series skip", {"series": NAME, "date": "2026-12-24", "reason": "Christmas Eve"}
    )

    demo.narrate("The open weeks go up in #announcements, each with a claim button; Tom takes 17 December")
    await demo.invoke("organize series open", {"series": NAME}, quiet=True)
    async with demo.bot.session_factory() as db:
        info = await get_series(db, demo.guild.id, NAME)
        settings = await get_settings(db, demo.guild.id)  # the open weeks opened the organizers' thread
        weeks = await weeks_view(db, info, demo.clock.now(), settings.horizon_weeks)
    board = demo.message(info.board_message_id, "open-weeks message")
    demo.show(board, "#announcements")
    to_claim = next((w.session for w in weeks if w.week_date.isoformat() == "2026-12-17" and w.session), None)
    if to_claim is None:
        demo.fail("found no week on 17 December")
    await demo.press(board, f"series:present:{to_claim.id}", member=demo.members[2])
    demo.show(demo.message(board.id, "open-weeks message"), "the open weeks now")

    thread = demo.channel(settings.organizer_thread_id, "organizers' thread")
    due = await demo.stored(
        select(Reminder.due_at)
        .where(Reminder.guild_id == demo.guild.id, Reminder.kind == NUDGE, Reminder.status == PENDING)
        .order_by(Reminder.due_at)
        .limit(1),
        "found no nudge planned for an open week",
    )
    demo.narrate(
        "A week before the next open week (10 December), the organizers' thread gets its nudge: no presenter, "
        "no paper yet"
    )
    mark = await demo.fast_forward(max(due, demo.clock.now()))
    demo.show(f"  #{thread.name}, the thread the organizers were added to:")
    for message in demo.since(thread, mark, "posted no nudge in the organizers' thread"):
        demo.show(message)

    demo.narrate("Everyone can see the programme: who presents when, what is read, and the week off")
    await demo.invoke("series show", {"series": NAME}, member=demo.members[0])
