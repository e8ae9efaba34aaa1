"""The hour of a session held in a voice or stage channel (bot/services/sessions/events.py), on the store with a
recording Discord side: the event started at the start and completed at the end, once; the voice status set
and cleared; a cancelled or moved session left alone or followed; a whole hour missed caught up."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.claims import claim
from bot.services.sessions import events, publish, store
from bot.services.sessions.rules import Place, new_session, session_changes
from bot.timeutil import DEFAULT_DISPLAY_ZONES
from tests.sessions.fakes import FakeSessionsDiscord, context

NOW = datetime(2026, 10, 20, 12, 0, tzinfo=UTC)
GUILD = 111
START = datetime(2026, 11, 5, 16, 0, tzinfo=UTC)
VOICE = 900
ZONES = DEFAULT_DISPLAY_ZONES
ROOM = Place(VOICE, "reading-room")


async def _channel_session(
    ctx,
    *,
    place: Place | None = ROOM,
    title: str = "Environment generation",
    **kw: object,
):
    draft = new_session(
        title=title,
        when=START,
        zone="UTC",
        default_zone="UTC",
        now=NOW,
        channel=place,
        **kw,
    )
    published = await publish.create(ctx, GUILD, draft, created_by=1, zones=ZONES, now=NOW)
    return await _stored(ctx, published.info.id)  # with its event


async def _stored(ctx, session_id: int):
    async with ctx.store() as session:
        return await store.get_session(session, GUILD, session_id)


async def test_a_channel_event_is_started_and_completed_once(session_factory) -> None:
    discord = FakeSessionsDiscord()
    ctx = context(session_factory, discord)
    info = await _channel_session(ctx)
    assert info.event_id is not None
    _, fields = discord.events[info.event_id]
    assert (fields.channel_id, fields.location) == (VOICE, None)  # a channel event: no location

    assert await events.run_hour(ctx, [GUILD], START - timedelta(seconds=1)) == 0
    assert await events.run_hour(ctx, [GUILD], START) == 1
    assert discord.events[info.event_id][0] == "active"
    assert discord.voice_status == {VOICE: "Environment generation"}
    assert await events.run_hour(ctx, [GUILD], START + timedelta(minutes=30)) == 0  # nothing due mid-hour
    assert await events.run_hour(ctx, [GUILD], info.ends_at) == 1
    assert discord.events[info.event_id][0] == "completed"
    assert discord.voice_status == {VOICE: None}  # cleared
    assert await events.run_hour(ctx, [GUILD], info.ends_at + timedelta(hours=1)) == 0
    assert discord.calls.count("start_event") == discord.calls.count("complete_event") == 1
    assert (await _stored(ctx, info.id)).hour_stage == events.COMPLETED


async def test_a_link_session_is_left_to_discord(session_factory) -> None:
    discord = FakeSessionsDiscord()
    ctx = context(session_factory, discord)
    info = await _channel_session(ctx, place=None, signup_url="https://lu.ma/paperclub")
    assert await events.run_hour(ctx, [GUILD], info.ends_at) == 0
    assert "start_event" not in discord.calls


async def test_a_held_claim_leaves_the_step_to_its_holder(session_factory) -> None:
    discord = FakeSessionsDiscord()
    ctx = context(session_factory, discord)
    info = await _channel_session(ctx)
    async with session_factory() as session, session.begin():
        assert await claim(session, events.hour_claim_key(GUILD, info.id), "other", START, events.CLAIM_LEASE)
    assert await events.run_hour(ctx, [GUILD], START) == 0
    assert "start_event" not in discord.calls
    # the holder died: its lease runs out, and the step is taken
    assert await events.run_hour(ctx, [GUILD], START + events.CLAIM_LEASE) == 1


async def test_cancelled_or_moved_meanwhile(session_factory) -> None:
    discord = FakeSessionsDiscord()
    ctx = context(session_factory, discord)
    cancelled = await _channel_session(ctx)
    await publish.cancel(ctx, GUILD, cancelled.id, reason=None, zones=ZONES, now=NOW)
    moved = await _channel_session(ctx, place=Place(VOICE + 1), title="Verifier soundness")
    later = START + timedelta(days=1)
    await publish.change(
        ctx, GUILD, moved.id, session_changes(now=NOW, when=later, zone="UTC"), zones=ZONES, now=NOW
    )
    assert (
        await events.run_hour(ctx, [GUILD], START + timedelta(minutes=5)) == 0
    )  # cancelled: left alone; moved: not yet
    assert "start_event" not in discord.calls
    assert await events.run_hour(ctx, [GUILD], later) == 1  # follows its new time
    assert discord.events[moved.event_id][0] == "active"


async def test_an_hour_missed_while_down_is_caught_up_without_a_status(session_factory) -> None:
    discord = FakeSessionsDiscord()
    ctx = context(session_factory, discord)
    info = await _channel_session(ctx)
    assert await events.run_hour(ctx, [GUILD], info.ends_at + timedelta(hours=2)) == 2
    assert discord.events[info.event_id][0] == "completed"  # started, then completed, as Discord allows
    assert discord.voice_status == {}  # nobody is in the channel for a status that would be cleared at once


async def test_an_event_ended_or_deleted_by_hand_is_left_as_it_is(session_factory) -> None:
    discord = FakeSessionsDiscord()
    ctx = context(session_factory, discord)
    info = await _channel_session(ctx)
    discord.events.pop(info.event_id)
    assert await events.run_hour(ctx, [GUILD], START) == 1
    assert (await _stored(ctx, info.id)).hour_stage == events.COMPLETED
    assert "start_event" not in discord.calls


def test_the_voice_status_names_the_papers_within_discords_limit() -> None:
    from dataclasses import replace

    from bot.services.papers.store import PaperInfo

    paper = PaperInfo(id=1, key="k", kind="title", title="TMax " * 80, url=None, arxiv_id=None, doi=None)
    base = _info_stub()
    text = events.voice_status(replace(base, papers=[paper]))
    assert text.startswith("Environment generation · TMax")
    assert len(text) <= events.VOICE_STATUS_LIMIT


def _info_stub():
    from bot.services.sessions.info import SessionInfo

    return SessionInfo(
        id=1,
        guild_id=GUILD,
        title="Environment generation",
        description=None,
        starts_at=START,
        ends_at=START + timedelta(hours=1),
        duration_minutes=60,
        timezone="UTC",
        presenter_id=None,
        presenter_name=None,
        papers=[],
        signup_url=None,
        recording_url=None,
        notes_url=None,
        wiki_url=None,
        status="scheduled",
        announcement_channel_id=None,
        announcement_message_id=None,
        thread_id=None,
        event_id=None,
        sequence=0,
    )
