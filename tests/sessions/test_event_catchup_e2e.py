"""Upcoming sessions that came in by `paperclub import` get their Discord event once the bot sees the
server: once (a restart makes none), by one process when two start at once on one store, and later when
Create Events was missing. No announcement is posted for them (organizers announce)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import timedelta

import discord
from sqlalchemy import select

from bot.client import build_bot
from bot.demo.botenv import BotEnv
from bot.demo.running import connected
from bot.permissions import REQUIRED_PERMISSIONS
from bot.services.programme.files import import_text
from bot.services.sessions import events as session_events
from db.engine import create_engine, create_session_factory
from db.models import ClubSession
from db.models.core import Claim
from standin.state import CREATE_EVENTS
from tests.sessions.helpers import configure

# The clock starts on Monday 30 November 2026; two sessions are ahead, one was read in October.
PROGRAMME = """\
sessions:
  - title: Environment generation at scale
    starts_at: 2026-12-03 09:30
    papers: [TMax]
  - title: Verifier soundness
    starts_at: 2026-12-10 09:30
  - title: Already read
    starts_at: 2026-10-15 09:30
"""
UPCOMING = {
    "Environment generation at scale": "2026-12-03T17:30:00",
    "Verifier soundness": "2026-12-10T17:30:00",
}
EVENT_POSTS = r"^/guilds/\d+/scheduled-events$"


async def _import_while_down(env: BotEnv) -> None:
    """`paperclub import` while the bot is stopped: its own engine on the same store."""
    await env.stop_bot()
    engine = env.engine_factory() if env.engine_factory else create_engine(env.database_url)
    try:
        await import_text(create_session_factory(engine), PROGRAMME, suffix=".yaml", guild_id=env.guild.id)
    finally:
        await engine.dispose()


async def _caught_up(bot, guild_id: int) -> None:
    await asyncio.wait_for(bot.get_cog("SessionsCog").events_caught_up(guild_id).wait(), timeout=10)


def _events(env: BotEnv) -> dict[str, str]:
    return {e["name"]: e["scheduled_start_time"][:19] for e in env.scheduled_events()}


async def _event_ids(env: BotEnv) -> dict[str, int | None]:
    async with env.bot.session_factory() as session:
        rows = await session.execute(select(ClubSession.title, ClubSession.event_id))
    return dict(rows.tuples().all())


async def test_imported_sessions_get_their_events_once(env) -> None:
    await configure(env)
    await _import_while_down(env)
    await env.start_bot()
    await _caught_up(env.bot, env.guild.id)
    assert _events(env) == UPCOMING
    ids = await _event_ids(env)
    by_name = {e["name"]: int(e["id"]) for e in env.scheduled_events()}
    assert ids == {**by_name, "Already read": None}
    assert len(env.standin.requests_to("POST", EVENT_POSTS)) == 2
    assert env.messages_in(env.announcements) == []  # organizers announce: nothing posted on their behalf
    async with env.bot.session_factory() as session:
        claims = (await session.execute(select(Claim.key).where(Claim.key.like("event-claim:%")))).all()
    assert claims == []  # every claim released

    await env.restart_bot()
    await _caught_up(env.bot, env.guild.id)
    assert len(env.standin.requests_to("POST", EVENT_POSTS)) == 2  # no duplicate on restart
    assert _events(env) == UPCOMING

    # an organizer announces one of them as usual; the event is the one made at start-up
    reply = await (await env.invoke("organize session announce", {"session": 1})).final()
    assert reply.text.startswith("Announced session #1"), reply.text
    assert len(env.scheduled_events()) == 2


async def test_two_processes_starting_at_once_make_each_event_once(env, monkeypatch) -> None:
    await _import_while_down(env)
    # The first event is held back until the other process has got as far as it can for the same session:
    # making the event too (no claim), or being refused the claim. Without the claim both make one.
    met = asyncio.Barrier(2)
    first = "Environment generation at scale"
    real_create, real_claim = discord.Guild.create_scheduled_event, session_events.claim_event

    async def create(guild, **fields):
        if fields["name"] == first:
            await asyncio.wait_for(met.wait(), timeout=10)
        return await real_create(guild, **fields)

    async def claim(session, guild_id, session_id, token, now):
        taken = await real_claim(session, guild_id, session_id, token, now)
        if not taken and session_id == 1:
            await asyncio.wait_for(met.wait(), timeout=10)
        return taken

    monkeypatch.setattr(discord.Guild, "create_scheduled_event", create)
    monkeypatch.setattr(session_events, "claim_event", claim)
    second_engine = env.engine_factory() if env.engine_factory else None
    # (the store is migrated already; alembic's module-level context cannot run twice at once in one
    # process, which two real processes never share)
    second = build_bot(env.settings, clock=env.clock, engine=second_engine, migrate=False)
    async with contextlib.AsyncExitStack() as stack:
        await asyncio.gather(env.start_bot(), stack.enter_async_context(connected(second, env.standin)))
        await asyncio.gather(_caught_up(env.bot, env.guild.id), _caught_up(second, env.guild.id))
        assert _events(env) == UPCOMING
        assert len(env.standin.requests_to("POST", EVENT_POSTS)) == 2


async def test_without_create_events_they_wait_for_the_permission(env, caplog) -> None:
    await _import_while_down(env)
    await env.standin.set_bot_permissions(REQUIRED_PERMISSIONS.value & ~CREATE_EVENTS)
    with caplog.at_level(logging.WARNING, logger="paperclub.sessions"):
        await env.start_bot()
        await _caught_up(env.bot, env.guild.id)
    assert env.scheduled_events() == []
    assert len(env.standin.requests_to("POST", EVENT_POSTS)) == 1  # the first refusal stops the round
    (warning,) = [r.getMessage() for r in caplog.records if "have no Discord event" in r.getMessage()]
    assert "2 upcoming session(s)" in warning
    assert "Create Events" in warning
    await env.standin.set_bot_permissions(REQUIRED_PERMISSIONS.value)
    await env.restart_bot()
    await _caught_up(env.bot, env.guild.id)
    assert _events(env) == UPCOMING


async def test_a_session_that_started_meanwhile_gets_no_event(env) -> None:
    await _import_while_down(env)
    await env.clock.set(env.clock.now() + timedelta(days=5))  # 5 December: the first one is over
    await env.start_bot()
    await _caught_up(env.bot, env.guild.id)
    assert _events(env) == {"Verifier soundness": UPCOMING["Verifier soundness"]}


async def test_the_claim_is_taken_once_and_taken_over_when_its_lease_runs_out(session_factory) -> None:
    from bot.clock import FakeClock
    from bot.demo.botenv import DEFAULT_START

    now = FakeClock(DEFAULT_START).now()
    async with session_factory() as session, session.begin():
        assert await session_events.claim_event(session, 7, 1, "first", now)
    async with session_factory() as session, session.begin():
        assert not await session_events.claim_event(session, 7, 1, "second", now)
        assert await session_events.claim_event(session, 7, 2, "second", now)  # another session: free
        await session_events.release_event_claim(session, 7, 1, "second")  # not its claim: kept
    later = now + session_events.CLAIM_LEASE
    async with session_factory() as session, session.begin():
        assert not await session_events.claim_event(session, 7, 1, "third", later - timedelta(seconds=1))
        assert await session_events.claim_event(session, 7, 1, "third", later)  # its holder died
    async with session_factory() as session, session.begin():
        await session_events.release_event_claim(session, 7, 1, "third")
        assert await session_events.claim_event(session, 7, 1, "fourth", later)
