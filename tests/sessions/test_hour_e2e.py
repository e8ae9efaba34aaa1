"""A session held in a voice or stage channel, end to end through the stand-in with the real discord.py client
(SQLite and PostgreSQL): its event is a VOICE or STAGE_INSTANCE event in that channel; the bot starts and
completes it as the clock passes its times (once, also with two processes), sets the voice channel's status
where the server granted it; a stage without what Discord asks, a hidden or a text channel are refused."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta

from bot import claims
from bot.client import build_bot
from bot.demo.running import connected
from bot.permissions import REQUIRED_PERMISSIONS
from standin.messages import parse_time
from standin.state import (
    GUILD_STAGE_VOICE,
    GUILD_VOICE,
    MANAGE_CHANNELS,
    MOVE_MEMBERS,
    MUTE_MEMBERS,
    SET_VOICE_CHANNEL_STATUS,
    VIEW_CHANNEL,
)
from tests.sessions.helpers import configure, is_ephemeral, run

WHEN = "2026-12-03 09:30"  # PT: 17:30 UTC; the clock starts on Monday 30 November
STATUS_PATCHES = r"^/guilds/\d+/scheduled-events/\d+$"
VOICE_STATUS = r"^/channels/\d+/voice-status$"
VOICE_ENTITY, STAGE_ENTITY, ACTIVE, COMPLETED = 2, 1, 2, 3


def _status_patches(env) -> list[int]:
    return [r.json["status"] for r in env.standin.requests_to("PATCH", STATUS_PATCHES) if "status" in r.json]


async def _add(env, channel, title: str = "Environment generation", **options) -> tuple[object, dict | None]:
    reply = await run(
        env,
        "organize session add",
        {"title": title, "when": WHEN, "timezone": "PT", "channel": channel, **options},
    )
    events = [e for e in env.scheduled_events() if e["name"] == title]
    return reply, (events[0] if events else None)


async def _to(env, event: dict | str, *, end: bool = False) -> None:
    """Move the clock to the event's start (or end), or to an ISO time; the hour's job runs on the move."""
    key = "scheduled_end_time" if end else "scheduled_start_time"
    moment = parse_time(event if isinstance(event, str) else event[key])
    assert moment is not None
    await env.clock.set(moment)


async def test_a_voice_session_is_started_and_completed_with_its_status(env) -> None:
    await configure(env)
    room = await env.standin.create_channel(env.guild, "reading-room", type=GUILD_VOICE)
    # the server grants what a voice status asks, in that channel only (the invite stays as it is)
    await env.standin.set_overwrite(
        room, env.world.bot_role, allow=SET_VOICE_CHANNEL_STATUS | MANAGE_CHANNELS
    )
    reply, event = await _add(env, room, papers="TMax")
    assert is_ephemeral(reply)
    assert f"**Where:** <#{room.id}>" in reply.text
    assert event is not None
    assert (event["entity_type"], event["channel_id"], event["entity_metadata"]) == (
        VOICE_ENTITY,
        str(room.id),
        None,
    )

    await _to(env, event)
    assert env.scheduled_events()[0]["status"] == ACTIVE
    assert room.status == "Environment generation · TMax"
    await env.clock.advance(timedelta(minutes=30))
    await _to(env, event, end=True)
    assert env.scheduled_events()[0]["status"] == COMPLETED
    assert room.status is None
    await env.clock.advance(timedelta(hours=1))
    assert _status_patches(env) == [ACTIVE, COMPLETED]  # each once
    assert len(env.standin.requests_to("PUT", VOICE_STATUS)) == 2  # set, cleared


async def test_without_the_voice_status_permission_the_event_still_runs(env) -> None:
    await configure(env)
    room = await env.standin.create_channel(env.guild, "reading-room", type=GUILD_VOICE)
    _, event = await _add(env, room)
    assert event is not None
    await _to(env, event)
    assert env.scheduled_events()[0]["status"] == ACTIVE
    await _to(env, event, end=True)
    assert env.scheduled_events()[0]["status"] == COMPLETED
    assert env.standin.requests_to("PUT", VOICE_STATUS) == []  # not tried: the server did not grant it
    assert room.status is None


async def test_a_link_session_is_started_and_ended_by_discord(env) -> None:
    await configure(env)
    reply = await run(env, "organize session add", {"title": "Linked", "when": WHEN, "timezone": "PT"})
    assert "Where" not in reply.text
    (event,) = env.scheduled_events()
    assert event["entity_type"] == 3
    await _to(env, event)
    assert env.scheduled_events()[0]["status"] == ACTIVE  # Discord's own doing
    await _to(env, event, end=True)
    assert env.scheduled_events()[0]["status"] == COMPLETED
    assert _status_patches(env) == []  # the bot never touched it


async def test_a_stage_needs_what_discord_asks(env) -> None:
    await configure(env)
    stage = await env.standin.create_channel(env.guild, "stage", type=GUILD_STAGE_VOICE)
    reply, event = await _add(env, stage)
    assert is_ephemeral(reply)
    assert "Manage Channels, Mute Members, Move Members" in reply.text, reply.text
    assert "README" in reply.text
    assert event is None
    assert env.scheduled_events() == []  # nothing half-written
    assert await run(env, "session list") is not None

    await env.standin.set_overwrite(
        stage, env.world.bot_role, allow=MANAGE_CHANNELS | MUTE_MEMBERS | MOVE_MEMBERS
    )
    reply, event = await _add(env, stage)
    assert event is not None, reply.text
    assert (event["entity_type"], event["channel_id"]) == (STAGE_ENTITY, str(stage.id))
    await _to(env, event)
    assert env.scheduled_events()[0]["status"] == ACTIVE


async def test_a_hidden_or_text_channel_is_refused(env) -> None:
    await configure(env)
    room = await env.standin.create_channel(env.guild, "private-room", type=GUILD_VOICE)
    await env.standin.set_overwrite(room, env.world.bot_role, deny=VIEW_CHANNEL)
    reply, event = await _add(env, room)
    assert is_ephemeral(reply)
    assert "I can't see" in reply.text, reply.text
    assert event is None
    reply, event = await _add(env, env.general)
    assert is_ephemeral(reply)
    assert "voice or stage channel" in reply.text, reply.text
    assert event is None
    assert env.scheduled_events() == []


async def test_edit_moves_a_session_into_a_channel_and_back_to_its_link(env) -> None:
    await configure(env)
    room = await env.standin.create_channel(env.guild, "reading-room", type=GUILD_VOICE)
    await run(
        env,
        "organize session add",
        {"title": "Moving", "when": WHEN, "timezone": "PT", "signup_url": "https://lu.ma/x"},
    )
    reply = await run(env, "organize session edit", {"session": 1, "channel": room})
    assert "changed where" in reply.text, reply.text
    (event,) = env.scheduled_events()
    assert (event["entity_type"], event["channel_id"], event["entity_metadata"]) == (
        VOICE_ENTITY,
        str(room.id),
        None,
    )
    reply = await run(env, "organize session edit", {"session": 1, "link_only": True})
    (event,) = env.scheduled_events()
    assert (event["entity_type"], event["channel_id"]) == (3, None)
    assert event["entity_metadata"] == {"location": "https://lu.ma/x"}


async def test_a_moved_session_follows_its_new_time(env) -> None:
    await configure(env)
    room = await env.standin.create_channel(env.guild, "reading-room", type=GUILD_VOICE)
    _, event = await _add(env, room)
    assert event is not None
    first_start = event["scheduled_start_time"]
    reply = await run(
        env, "organize session edit", {"session": 1, "when": "2026-12-04 09:30", "timezone": "PT"}
    )
    assert "changed time" in reply.text, reply.text
    await _to(env, first_start)  # the old start: nothing
    assert env.scheduled_events()[0]["status"] == 1
    await _to(env, env.scheduled_events()[0])
    assert env.scheduled_events()[0]["status"] == ACTIVE
    assert _status_patches(env) == [ACTIVE]


async def test_two_processes_start_and_complete_it_once(env, monkeypatch) -> None:
    await configure(env)
    room = await env.standin.create_channel(env.guild, "reading-room", type=GUILD_VOICE)
    _, event = await _add(env, room)
    assert event is not None
    start = parse_time(event["scheduled_start_time"])
    assert start is not None
    # Both processes run the hour at once. The first start is held back until the other process has got as
    # far as it can: starting the event too (no claim), or being refused the claim. Without the claim, two.
    met = asyncio.Barrier(2)
    real_claim = claims.claim

    async def claim(session, key, owner, now, lease):
        taken = await real_claim(session, key, owner, now, lease)
        if not taken and key.startswith("hour:"):
            await asyncio.wait_for(met.wait(), timeout=10)
        return taken

    def held_back(discord):
        real_start = discord.start_event

        async def start_event(guild_id, event_id):
            await asyncio.wait_for(met.wait(), timeout=10)
            return await real_start(guild_id, event_id)

        return start_event

    second_engine = env.engine_factory() if env.engine_factory else None
    second = build_bot(env.settings, clock=env.clock, engine=second_engine, migrate=False)
    async with contextlib.AsyncExitStack() as stack:
        await stack.enter_async_context(connected(second, env.standin))
        await asyncio.wait_for(second.get_cog("SessionsCog").events_caught_up(env.guild.id).wait(), 10)
        cogs = [bot.get_cog("SessionsCog") for bot in (env.bot, second)]
        monkeypatch.setattr(claims, "claim", claim)
        for cog in cogs:  # on each bot's own Discord side
            monkeypatch.setattr(cog.context.discord, "start_event", held_back(cog.context.discord))
        steps = await asyncio.gather(*(cog.run_hour(start) for cog in cogs))
        monkeypatch.undo()
        assert sorted(steps) == [0, 1]
        await _to(env, event)  # both processes' jobs on the clock's move: nothing more
        await _to(env, event, end=True)
        await env.clock.advance(timedelta(minutes=5))
    assert env.scheduled_events()[0]["status"] == COMPLETED
    assert _status_patches(env) == [ACTIVE, COMPLETED]


async def test_a_restart_after_the_start_catches_up(env) -> None:
    await configure(env)
    room = await env.standin.create_channel(env.guild, "reading-room", type=GUILD_VOICE)
    _, event = await _add(env, room)
    assert event is not None
    await env.stop_bot()
    await _to(env, event)
    await env.clock.advance(timedelta(minutes=10))
    assert env.scheduled_events()[0]["status"] == 1  # nobody there to start it
    await env.start_bot()
    await asyncio.wait_for(env.bot.get_cog("SessionsCog").events_caught_up(env.guild.id).wait(), 10)
    assert env.scheduled_events()[0]["status"] == ACTIVE
    assert REQUIRED_PERMISSIONS.manage_channels is False  # the invite asks nothing more for this


async def test_setup_show_says_what_a_voice_status_needs(env) -> None:
    await configure(env)
    room = await env.standin.create_channel(env.guild, "reading-room", type=GUILD_VOICE)
    await _add(env, room)
    shown = await run(env, "setup show", member=env.admin)
    assert f"**Manage Channels, Set Voice Channel Status** in <#{room.id}>" in shown.text, shown.text
    await env.standin.set_overwrite(
        room, env.world.bot_role, allow=SET_VOICE_CHANNEL_STATUS | MANAGE_CHANNELS
    )
    shown = await run(env, "setup show", member=env.admin)
    assert "Set Voice Channel Status" not in shown.text


async def test_a_series_in_a_voice_channel_holds_every_week_there(env) -> None:
    await configure(env)
    room = await env.standin.create_channel(env.guild, "reading-room", type=GUILD_VOICE)
    reply = await run(
        env,
        "organize series add",
        {"name": "Thursdays", "day": "Thursday", "time": "9:30am", "channel": room},
    )
    assert reply.text.startswith("Added series"), reply.text
    assert f"in <#{room.id}>" in reply.text
    events = env.scheduled_events()
    assert len(events) > 1
    assert {(e["entity_type"], e["channel_id"]) for e in events} == {(VOICE_ENTITY, str(room.id))}
    await _to(env, min(events, key=lambda e: e["scheduled_start_time"]))
    assert sorted(e["status"] for e in env.scheduled_events())[-1] == ACTIVE
