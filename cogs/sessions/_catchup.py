"""Upcoming sessions without a Discord event get one once the bot sees their server.

Sessions imported with ``paperclub import`` (or whose event failed for want of Create Events) have no
scheduled event; when their guild becomes available or the bot joins it, each gets one through
:func:`cogs.sessions._events.sync_event`, whose claim in the store means a restart or a second process makes
none twice. Announcements are never automatic: organizers use ``/session announce``.
"""

from __future__ import annotations

import logging

import discord

from bot.client import PaperclubBot
from bot.services.config.guild import get_config
from bot.services.sessions import event_claims
from bot.services.sessions import store as svc
from cogs.sessions._events import sync_event

log = logging.getLogger("paperclub.sessions")


async def catch_up(bot: PaperclubBot, guild: discord.Guild) -> int:
    """Give each upcoming session of ``guild`` that lacks one its Discord event; returns how many it
    brought in step (made here, or left to another process holding the claim). Stops at the first
    refusal (a missing permission refuses them all alike)."""
    now = bot.clock.now()
    async with bot.session_factory() as session:
        config = await get_config(session, guild.id)
        missing = await event_claims.sessions_missing_events(session, guild.id, now)
    made = 0
    for session_id in missing:
        async with bot.session_factory() as session:
            info = await svc.get_session(session, guild.id, session_id)
        if info.event_id is not None:
            continue  # made meanwhile (by an organizer's edit, or another process)
        warning = await sync_event(bot, guild, info, config.display_zones)
        if warning is not None:
            log.warning(
                "guild %s: %d upcoming session(s) still have no Discord event: %s",
                guild.id,
                len(missing) - made,
                warning,
            )
            break
        made += 1
    if made:
        log.info("guild %s: %d upcoming session(s) got their Discord event", guild.id, made)
    return made
