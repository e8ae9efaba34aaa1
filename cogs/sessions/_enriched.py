"""When the outside sources' fields of papers land (``paper_enriched``), the announcements of the sessions
still to come that read those papers are edited to show them.

Each edit renders the session from the store as it is now, so it is idempotent: two processes (or two
events) editing the same post leave the same card, and no lock is needed for that to hold.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from bot.client import PaperclubBot
from bot.services.config.guild import get_config
from bot.services.sessions import queries
from cogs.sessions._announcements import refresh_announcement

log = logging.getLogger("paperclub.sessions")


async def refresh_enriched(bot: PaperclubBot, guild_id: int, paper_ids: Sequence[int]) -> int:
    """Edit the guild's upcoming announcements that show any of ``paper_ids``; returns how many were edited."""
    async with bot.session_factory() as session:
        config = await get_config(session, guild_id)
        infos = await queries.announced_with_papers(session, guild_id, paper_ids, bot.clock.now())
    edited = 0
    for info in infos:
        warning = await refresh_announcement(bot, info, config.display_zones)
        if warning:
            log.info("session %s after enrichment: %s", info.id, warning)
        else:
            edited += 1
    return edited
