"""Tour: an organizer's reminder and a member's /remind me DM, then the clock runs to each reminder."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from bot.demo.stage import Demo
from bot.demo.tours.sessions import TITLE
from db.models.reminders import CUSTOM, Reminder
from standin.state import Channel, Member, Message

ORDER = 40


def _posted(demo: Demo, channel: Channel | Member, mark: int, what: str) -> Message:
    """The one message the bot posted in ``channel`` (or a member's DMs) since ``mark``."""
    found = demo.since(channel, mark)
    if not found:
        demo.fail(f"sent no {what}")
    return found[-1]


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
    posted = _posted(demo, demo.general, mark, "reminder in #general")
    demo.show(posted)
    demo.show_pings(posted)
    demo.show(_posted(demo, sam, mark, "DM to the presenter"))

    day_before = session.starts_at - timedelta(hours=24)
    demo.narrate(
        f"Fast-forward to {demo.club_time(day_before)}, a day before the session: the automatic reminder in "
        "#announcements pings @Readers only"
    )
    mark = await demo.fast_forward(day_before)
    posted = _posted(demo, demo.announcements, mark, "24-hour reminder in #announcements")
    if str(readers.id) not in (posted.payload.get("mention_roles") or []):
        demo.fail("sent its 24-hour reminder without pinging the ping role")
    demo.show(posted)
    demo.show_pings(posted)

    two_hours = session.starts_at - timedelta(hours=2)
    demo.narrate(
        f"{demo.club_time(two_hours)}, two hours before: Tom, who asked with /remind me, gets his DM"
    )
    mark = await demo.fast_forward(two_hours)
    demo.show(_posted(demo, tom, mark, "DM to Tom"))

    hour = session.starts_at - timedelta(hours=1)
    demo.narrate(
        f"{demo.club_time(hour)}, an hour before: the 1-hour reminder, and a DM for Rita, who pressed Remind me"
    )
    mark = await demo.fast_forward(hour)
    demo.show(_posted(demo, demo.announcements, mark, "1-hour reminder in #announcements"))
    demo.show(_posted(demo, rita, mark, "DM to Rita"))
