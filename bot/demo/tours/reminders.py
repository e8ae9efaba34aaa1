"""Tour: an organizer schedules a reminder in chat; fast-forward to it, to a session's automatic reminder
in #announcements (pinging the Readers role, with the papers), and to a member's DM before the session."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from bot.services.sessions.store import get_session

ORDER = 40


async def _settle(demo: Any) -> None:
    """After a clock move: let the reminders cog finish sending what fell due (steps settle by themselves)."""
    await demo.settle()


async def tour(demo: Any) -> None:
    """Schedule a chat reminder and fast-forward to it, a session reminder and a member's DM."""
    readers = demo.world.readers
    await demo.invoke("setup announcements", {"channel": demo.announcements}, member=demo.admin, quiet=True)
    await demo.invoke("setup ping_role", {"role": readers}, member=demo.admin, quiet=True)

    demo.narrate("An organizer schedules a reminder in #general; mentions in its text will not ping anyone")
    await demo.invoke(
        "remind add",
        {"when": "tomorrow 9am", "message": "Vote for next week's paper in #suggestions today! @everyone"},
    )

    demo.narrate("A session with a presenter and papers; a member asks for a DM two hours before it")
    added = await demo.invoke(
        "session add",
        {
            "title": "Environment synthesis at scale",
            "when": "in 3 days",
            "presenter": demo.members[1],
            "papers": "arXiv:2401.12345; Terminal-World",
            "signup_url": "https://lu.ma/paperclub",
        },
        quiet=True,
    )
    reply = await added.final()
    match = re.search(r"session #(\d+)", reply.content)
    if match is None:
        demo.show(reply)
        return
    session_id = int(match.group(1))
    await demo.invoke("remind me", {"session": session_id, "before": "2h"}, member=demo.members[0])
    await demo.invoke("remind list")

    demo.narrate(
        "Fast-forward one day: the organizer's reminder goes out in #general, without pinging @everyone"
    )
    await demo.clock.advance(timedelta(days=1))
    await _settle(demo)
    demo.show_channel(demo.general)

    async with demo.bot.session_factory() as db:
        starts = (await get_session(db, demo.guild.id, session_id)).starts_at
    demo.narrate("Fast-forward to 24 hours before the session: the automatic reminder pings Readers only")
    await demo.clock.set(starts - timedelta(hours=24))
    await _settle(demo)
    demo.show_channel(demo.announcements)

    demo.narrate("Two hours before: the member who asked gets a DM")
    await demo.clock.set(starts - timedelta(hours=2))
    await _settle(demo)
    demo.show_dms(demo.members[0])
