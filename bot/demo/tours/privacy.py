"""Tour: a member sees what the bot keeps about her and deletes it (her suggestion stays, uncredited)."""

from __future__ import annotations

from bot.demo.stage import Demo

ORDER = 90  # last: after every other tour has given Rita something to delete


async def tour(demo: Demo) -> None:
    """Rita's /privacy, then *Delete my data…* and its confirmation."""
    rita = demo.members[0]
    demo.narrate("Rita asks what the bot keeps about her, and deletes it")
    shown = await (await demo.invoke("privacy", member=rita)).final()
    asked = await (await demo.press(shown, "privacy:ask:", member=rita)).final()
    await demo.press(asked, "privacy:delete:", member=rita)
