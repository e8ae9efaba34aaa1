"""After a member's data is deleted, the Discord side follows: each feature hears of what changed in its
rows (events its cog listens to), and sessions that lost their presenter are published again.

- ``suggestions_changed(guild_id, suggestion_ids)``: the suggestions cog edits their posts (votes, offers,
  who suggested and reviewed them).
- ``session_subscription_changed(guild_id, session_id, user_id, False)``: as if *Remind me* was pressed
  off (the reminders cog plans again).
- a session without its presenter: :func:`bot.services.sessions.publish.saved` (its announcement, event
  and series week).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from typing import Protocol, runtime_checkable

from bot.client import PaperclubBot
from bot.errors import PaperclubError
from bot.services.config.guild import get_config
from bot.services.privacy.member import Deletion
from bot.services.privacy.rows import SESSION, SUBSCRIPTION, SUGGESTION
from bot.services.sessions import publish
from bot.services.sessions.store import get_session
from cogs.sessions.publish import sessions_of

log = logging.getLogger("paperclub.privacy")


@runtime_checkable
class Follows(Protocol):
    """What the confirmation hands the deletion's follow-ups to (the cog, which tracks them)."""

    def follow(self, done: Deletion, user_id: int) -> None:
        """Bring the Discord side in line with ``done``, in the background."""


async def follow(bot: PaperclubBot, done: Deletion, user_id: int) -> None:
    """Tell the features what changed, and publish the sessions that lost their presenter."""
    posts: defaultdict[int, set[int]] = defaultdict(set)
    for change in sorted(done.follow, key=lambda f: (f.guild_id, f.id)):
        if change.what == SUGGESTION:
            posts[change.guild_id].add(change.id)
        elif change.what == SUBSCRIPTION:
            bot.dispatch("session_subscription_changed", change.guild_id, change.id, user_id, False)
    for guild_id, ids in posts.items():
        bot.dispatch("suggestions_changed", guild_id, tuple(sorted(ids)))
    for change in sorted(f for f in done.follow if f.what == SESSION):
        try:
            async with bot.session_factory() as session:
                info = await get_session(session, change.guild_id, change.id)
                zones = (await get_config(session, change.guild_id)).display_zones
        except PaperclubError:  # deleted meanwhile: nothing to publish
            continue
        for warning in await publish.saved(sessions_of(bot), info, zones, bot.clock.now()):
            log.warning("session %s without its presenter: %s", change.id, warning)
