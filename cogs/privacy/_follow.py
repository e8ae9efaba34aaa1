"""After a member's data is deleted, the Discord side follows: the features hear what changed in their rows
(events their cogs listen to), and the sessions that lost their presenter are published again."""

from __future__ import annotations

import logging
from collections import defaultdict
from typing import Protocol, runtime_checkable

from bot.client import PaperclubBot
from bot.services.privacy.member import Deletion
from bot.services.privacy.rows import SESSION, SUBSCRIPTION, SUGGESTION
from bot.services.sessions import publish
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
        for warning in await publish.saved_by_id(
            sessions_of(bot), change.guild_id, change.id, bot.clock.now()
        ):
            log.warning("session %s without its presenter: %s", change.id, warning)
