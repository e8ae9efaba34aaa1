"""Interested on a scheduled event, as Discord models it: marking and unmarking send GUILD_SCHEDULED_EVENT_USER_ADD
/ _REMOVE (intent GUILD_SCHEDULED_EVENTS), the event's ``user_count`` follows, and ``GET .../users`` pages at
most 100 users in ascending id order, ``after`` or ``before`` a user id (before wins), refusing a limit over 100."""

from __future__ import annotations

import asyncio
import datetime as dt

import discord
import pytest

from standin import StandIn
from standin.server import DefaultGuild
from tests.standin.helpers import BareBot


async def _event(bot: BareBot, world: DefaultGuild) -> discord.ScheduledEvent:
    guild = bot.get_guild(world.guild.id)
    assert guild is not None
    start = discord.utils.utcnow() + dt.timedelta(days=2)
    return await guild.create_scheduled_event(
        name="Reading",
        start_time=start,
        end_time=start + dt.timedelta(hours=1),
        entity_type=discord.EntityType.external,
        location="Room 4",
        privacy_level=discord.PrivacyLevel.guild_only,
    )


async def test_marks_are_dispatched_and_counted(bot: BareBot, standin: StandIn, world: DefaultGuild) -> None:
    event = await _event(bot, world)
    heard: list[tuple[str, int]] = []
    three = asyncio.Event()

    async def add(scheduled: discord.ScheduledEvent, user: discord.User) -> None:
        heard.append(("add", user.id))
        if len(heard) == 3:
            three.set()

    async def remove(scheduled: discord.ScheduledEvent, user: discord.User) -> None:
        heard.append(("remove", user.id))
        if len(heard) == 3:
            three.set()

    bot.add_listener(add, "on_scheduled_event_user_add")
    bot.add_listener(remove, "on_scheduled_event_user_remove")
    first, second = world.members[0], world.members[1]
    await standin.mark_interested(event.id, first)
    await standin.mark_interested(event.id, first)  # a toggle already on: nothing new
    await standin.mark_interested(event.id, second)
    await standin.unmark_interested(event.id, first)
    await asyncio.wait_for(three.wait(), 10)
    assert heard == [("add", first.id), ("add", second.id), ("remove", first.id)]
    assert standin.scheduled_events()[0]["user_count"] == 1


async def test_users_come_in_pages_of_at_most_100(
    bot: BareBot, standin: StandIn, world: DefaultGuild
) -> None:
    event = await _event(bot, world)
    members = [await standin.create_member(world.guild, f"reader{n}") for n in range(230)]
    for member in members:
        await standin.mark_interested(event.id, member)
    ids = sorted(m.id for m in members)
    http = bot.http
    first = await http.get_scheduled_event_users(world.guild.id, event.id, limit=100, with_member=False)
    assert [int(u["user"]["id"]) for u in first] == ids[:100]
    after = await http.get_scheduled_event_users(
        world.guild.id, event.id, limit=100, with_member=False, after=ids[99]
    )
    assert [int(u["user"]["id"]) for u in after] == ids[100:200]
    before = await http.get_scheduled_event_users(
        world.guild.id, event.id, limit=10, with_member=False, before=ids[50], after=ids[0]
    )
    assert [int(u["user"]["id"]) for u in before] == ids[40:50]  # before wins over after
    with pytest.raises(discord.HTTPException) as refused:
        await http.get_scheduled_event_users(world.guild.id, event.id, limit=101, with_member=False)
    assert (refused.value.status, refused.value.code) == (400, 50035)
    standin.take_violations()  # the refused request is outside Discord's description on purpose
