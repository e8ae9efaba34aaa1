"""Tour: an organizer creates and announces the club's next session; members press Remind me and
Add to calendar, and list what is coming."""

from __future__ import annotations

import re
from typing import Any

ORDER = 20


async def tour(demo: Any) -> None:
    """Add and announce a session; members ask for a reminder and a calendar file, and list what is coming."""
    await demo.invoke("setup announcements", {"channel": demo.announcements}, member=demo.admin, quiet=True)

    demo.narrate("An organizer adds the club's next session: Thursday at 9:30 AM club time, with papers")
    added = await demo.invoke(
        "session add",
        {
            "title": "Building data recipes for terminal agents",
            "when": "Thursday 9:30am",
            "presenter": demo.members[1],
            "papers": "TMax\narXiv:2401.12345\nhttps://arxiv.org/abs/2402.00001",
            "signup_url": "https://lu.ma/paperclub",
            "description": "Where tasks come from, how they are checked, what the reward sees, and SFT versus RL.",
        },
    )
    match = re.search(r"session #(\d+)", (await added.final()).content)
    if match is None:
        return
    session_id = int(match.group(1))

    demo.narrate("…and announces it: every reader sees the club's three zones and their own time")
    await demo.invoke("session announce", {"session": session_id})
    announcement = demo.messages_in(demo.announcements)[-1]
    demo.show(announcement, "#announcements")
    thread = next((t for t in demo.standin.threads if t.parent_id == demo.announcements.id), None)
    if thread is not None:
        demo.show(f"  (a discussion thread “{thread.name}” is open on it, with the presenter added)")
    events = demo.scheduled_events()
    if events:
        event = events[-1]
        demo.show(
            f"  (Discord event “{event['name']}” at {event['scheduled_start_time']}, "
            f"location {event['entity_metadata']['location']})"
        )

    demo.narrate("A member presses Remind me, then Add to calendar (both answer only them)")
    await demo.click(
        announcement, f"session:remind:{session_id}", member=demo.members[0], label="⏰ Remind me"
    )
    await demo.click(
        announcement, f"session:ics:{session_id}", member=demo.members[0], label="📅 Add to calendar"
    )

    demo.narrate("A member lists what is coming; another tries to cancel the session and is refused")
    await demo.invoke("session list", member=demo.members[2])
    await demo.invoke("session cancel", {"session": session_id}, member=demo.members[2])
