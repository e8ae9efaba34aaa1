"""Tour: the club's Thursday slot becomes a series (the next eight weeks scheduled, each with its Discord
event); a week is skipped for a holiday; a member claims an open week from the open-weeks message; a week
before the next open week, the organizers' thread gets its nudge."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import select

from db.models import ClubSession
from db.models.series import SeriesWeek

ORDER = 50  # after the reminders tour has moved the clock to Thursday 3 December


async def tour(demo: Any) -> None:
    """Make a series, skip a week, claim an open week and show the organizers' nudge."""
    demo.narrate(
        "An organizer makes the club's Thursday slot a series: every Thursday at 9:30 AM club time, from next "
        "week; the next eight weeks get their sessions and Discord events"
    )
    await demo.invoke(
        "series add",
        {
            "name": "Thursday paper club",
            "day": "Thursday",
            "time": "9:30am",
            "first": "2026-12-10",
            "signup_url": "https://lu.ma/paperclub",
        },
    )

    demo.narrate("Christmas Eve is a holiday: the organizer skips that week")
    await demo.invoke(
        "series skip", {"series": "Thursday paper club", "date": "2026-12-24", "reason": "Christmas Eve"}
    )

    demo.narrate(
        "The open weeks go up in #announcements, each with a claim button; a member takes 17 December"
    )
    await demo.invoke("series open", {"series": "Thursday paper club"}, quiet=True)
    board = demo.messages_in(demo.announcements)[-1]
    demo.show(board, "#announcements")
    async with demo.bot.session_factory() as db:
        week = await db.scalar(
            select(ClubSession.id)
            .join(SeriesWeek, SeriesWeek.session_id == ClubSession.id)
            .where(ClubSession.guild_id == demo.guild.id, ClubSession.title == "Thursday paper club")
            .order_by(ClubSession.starts_at)
            .offset(1)
        )
    await demo.click(board, f"series:present:{week}", member=demo.members[2], label="Thu 17 Dec")
    demo.show(demo.standin.message(board.id), "the open weeks now")

    demo.narrate("A week before the next open week (10 December), the organizers' thread gets a nudge")
    await demo.clock.set(demo.clock.now().replace(hour=17, minute=31))  # Thursday 3 December, 9:31 AM PT
    await demo.clock.advance(timedelta(minutes=1))
    await demo.settle()
    thread = next(t for t in demo.standin.threads if t.name == "Programme · organizers")
    demo.show_channel(thread, last=2)

    demo.narrate("Everyone can see the programme: who presents when, what is read, and the week off")
    await demo.invoke("series show", {"series": "Thursday paper club"}, member=demo.members[0])
