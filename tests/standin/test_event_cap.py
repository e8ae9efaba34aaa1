"""The stand-in holds a server to Discord's cap of 100 uncompleted scheduled events: the 101st is refused
with JSON error 30038 (docs: Opcodes and Status Codes → JSON Error Codes, "Maximum number of uncompleted
guild scheduled events reached (100)"); a cancelled or completed one no longer counts."""

from __future__ import annotations

import datetime as dt

import discord
import pytest

from standin import StandIn
from standin.rest_events import MAX_UNCOMPLETED_EVENTS
from standin.server import DefaultGuild
from tests.standin.helpers import BareBot

EXTERNAL = {
    "entity_type": discord.EntityType.external,
    "location": "Room 1",
    "privacy_level": discord.PrivacyLevel.guild_only,
}


async def test_the_101st_uncompleted_event_is_refused(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    guild = bot.get_guild(world.guild.id)
    assert guild is not None
    start = discord.utils.utcnow() + dt.timedelta(days=1)
    events = []
    for n in range(MAX_UNCOMPLETED_EVENTS):
        events.append(
            await guild.create_scheduled_event(
                name=f"Week {n}",
                start_time=start + dt.timedelta(weeks=n),
                end_time=start + dt.timedelta(weeks=n, hours=1),
                **EXTERNAL,
            )
        )
    with pytest.raises(discord.HTTPException) as refused:
        await guild.create_scheduled_event(
            name="One more", start_time=start, end_time=start + dt.timedelta(hours=1), **EXTERNAL
        )
    assert refused.value.status == 400
    assert refused.value.code == 30038
    await events[0].cancel()
    again = await guild.create_scheduled_event(
        name="One more", start_time=start, end_time=start + dt.timedelta(hours=1), **EXTERNAL
    )
    assert again.name == "One more"
    assert MAX_UNCOMPLETED_EVENTS == 100
