"""Tour: an organizer's reminder and a member's /remind me DM, then the clock runs to each reminder."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from bot.demo.stage import Demo
from bot.demo.tours.sessions import TITLE
from db.models.reminders import CUSTOM, Reminder

ORDER = 40


async def tour(demo: Demo) -> None:
    """Schedule a chat reminder and a member's DM, then fast-forward to each reminder going out."""
    readers = demo.world.readers
    rita, sam, tom = demo.members[:3]
    session = await demo.session_titled(TITLE)

    demo.narrate("An organizer schedules a reminder in #general; mentions in its text will not ping anyone")
    await demo.invoke(
        "organize reminder add",
        {"when": "tomorrow 9am", "message": "Vote for next week's paper in #suggestions today! @everyone"},
    )

    demo.narrate("Tom asks for a DM two hours before the demo session; the organizer lists the reminders")
    await demo.invoke("remind me", {"session": session.id, "before": "2h"}, member=tom)
    await demo.invoke("organize reminder list")

    due = await demo.stored(
        select(Reminder.due_at)
        .where(Reminder.guild_id == demo.guild.id, Reminder.kind == CUSTOM)
        .order_by(Reminder.id.desc())
        .limit(1),
        "found no organizer's reminder in the store",
    )
    demo.narrate(
        f"Fast-forward to {demo.club_time(due)}: the organizer's reminder goes out in #general, pinging nobody; "
        "on the way, Sam, the presenter, got a DM three days before his session"
    )
    mark = await demo.fast_forward(due)
    demo.show_pings(demo.since(demo.general, mark, "sent no reminder in #general")[-1])
    demo.show(demo.since(sam, mark, "sent no DM to the presenter")[-1])

    day_before = session.starts_at - timedelta(hours=24)
    demo.narrate(
        f"Fast-forward to {demo.club_time(day_before)}, a day before the session: the automatic reminder in "
        "#announcements pings @Readers only"
    )
    mark = await demo.fast_forward(day_before)
    posted = demo.since(demo.announcements, mark, "sent no 24-hour reminder in #announcements")[-1]
    if str(readers.id) not in (posted.payload.get("mention_roles") or []):
        demo.fail("sent its 24-hour reminder without pinging the ping role")
    demo.show_pings(posted)

    two_hours = session.starts_at - timedelta(hours=2)
    demo.narrate(
        f"{demo.club_time(two_hours)}, two hours before: Tom, who asked with /remind me, gets his DM"
    )
    mark = await demo.fast_forward(two_hours)
    demo.show(demo.since(tom, mark, "sent no DM to Tom")[-1])

    hour = session.starts_at - timedelta(hours=1)
    demo.narrate(
        f"{demo.club_time(hour)}, an hour before: the 1-hour reminder, and a DM for Rita, who pressed Remind me"
    )
    mark = await demo.fast_forward(hour)
    demo.show(demo.since(demo.announcements, mark, "sent no 1-hour reminder in #announcements")[-1])
    demo.show(demo.since(rita, mark, "sent no DM to Rita")[-1])
