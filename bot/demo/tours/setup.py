"""Tour: an admin points the bot at the club's channels and roles."""

from __future__ import annotations

from bot.demo.stage import Demo

ORDER = 10


async def tour(demo: Demo) -> None:
    """Point the bot at the club's channels and roles."""
    demo.narrate(
        "An admin sets the club up: where announcements and suggestions go, who organizes, who gets pinged"
    )
    await demo.invoke("setup announcements", {"channel": demo.announcements}, member=demo.admin, quiet=True)
    await demo.invoke("setup suggestions", {"channel": demo.suggestions}, member=demo.admin, quiet=True)
    await demo.invoke("setup organizer_role", {"role": demo.world.organizers}, member=demo.admin, quiet=True)
    await demo.invoke("setup ping_role", {"role": demo.world.readers}, member=demo.admin)
    demo.narrate("An organizer checks the settings; a member may not change them")
    await demo.invoke("setup show", member=demo.organizer)
    await demo.invoke("setup timezone", {"zone": "UTC"}, member=demo.members[0])
