"""The sessions' flows (bot/services/sessions) on the store, SQLite and PostgreSQL, with a recording Discord
side: what each one writes, what it asks of Discord, and what it leaves when Discord refuses."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.errors import BadInput, Conflict, NotConfigured
from bot.services.sessions import events, members, publish, queries, store
from bot.services.sessions.rules import new_session, session_changes
from bot.timeutil import DEFAULT_DISPLAY_ZONES
from tests.sessions.fakes import FakeSessionsDiscord, context

NOW = datetime(2026, 10, 20, 12, 0, tzinfo=UTC)
GUILD = 111
NOV5 = datetime(2026, 11, 5, 16, 0, tzinfo=UTC)
ZONES = DEFAULT_DISPLAY_ZONES


def draft(title: str = "Environment generation", start: datetime = NOV5, **kw: object):
    return new_session(title=title, when=start, zone="America/Los_Angeles", default_zone="UTC", now=NOW, **kw)


async def create(ctx, title: str = "Environment generation", start: datetime = NOV5, **kw: object):
    return await publish.create(ctx, GUILD, draft(title, start, **kw), created_by=1, zones=ZONES, now=NOW)


async def stored(ctx, session_id: int):
    async with ctx.store() as session:
        return await store.get_session(session, GUILD, session_id)


async def test_create_saves_tells_and_makes_the_event_once(session_factory) -> None:
    discord = FakeSessionsDiscord()
    ctx = context(session_factory, discord)
    published = await create(ctx, signup_url="https://lu.ma/paperclub", papers="TMax")
    info = await stored(ctx, published.info.id)
    assert discord.dispatched == [("session_saved", GUILD, info.id)]
    assert info.event_id is not None
    status, fields = discord.events[info.event_id]
    assert (status, fields.name, fields.location, fields.start) == (
        "scheduled",
        "Environment generation",
        "https://lu.ma/paperclub",
        NOV5,
    )
    assert published.warnings == ()
    # in step already: another sync edits the event it finds, never makes a second one
    assert await events.sync_event(ctx, info, ZONES, NOW) is None
    assert list(discord.events) == [info.event_id]
    # another session at that time is kept, with a heads-up
    other = await create(ctx, "Verifier soundness", NOV5 + timedelta(minutes=30))
    assert [o.id for o in other.overlaps] == [info.id]


async def test_a_refused_event_keeps_the_session_and_its_claim_free(session_factory) -> None:
    discord = FakeSessionsDiscord(refuse_events="grant Create Events")
    ctx = context(session_factory, discord)
    published = await create(ctx)
    assert published.warnings == ("grant Create Events",)
    info = await stored(ctx, published.info.id)
    assert info.event_id is None
    discord.refuse_events = None  # granted: the catch-up makes it (the refused attempt held no claim)
    assert await events.catch_up(ctx, GUILD, NOW) == 1
    assert (await stored(ctx, info.id)).event_id in discord.events
    assert await events.catch_up(ctx, GUILD, NOW) == 0


async def test_a_claimed_event_is_left_to_its_holder(session_factory) -> None:
    discord = FakeSessionsDiscord(refuse_events="not asked")
    ctx = context(session_factory, discord)
    info = (await create(ctx)).info
    async with session_factory() as session, session.begin():
        assert await events.claim_event(session, GUILD, info.id, "another process", NOW)
    discord.refuse_events = None
    assert await events.sync_event(ctx, info, ZONES, NOW) is None
    assert discord.events == {}  # the holder makes it
    later = NOW + events.CLAIM_LEASE
    assert await events.sync_event(ctx, info, ZONES, later) is None  # its holder died: taken over
    assert len(discord.events) == 1


async def test_change_moves_the_event_and_nothing_when_nothing_changed(session_factory) -> None:
    discord = FakeSessionsDiscord()
    ctx = context(session_factory, discord)
    info = (await create(ctx)).info
    discord.dispatched.clear()
    same = await publish.change(
        ctx, GUILD, info.id, session_changes(now=NOW, title=info.title), zones=ZONES, now=NOW
    )
    assert same.changed == frozenset()
    assert discord.dispatched == []
    moved = await publish.change(
        ctx,
        GUILD,
        info.id,
        lambda zone: session_changes(now=NOW, session_zone=zone, when="2026-11-05 09:30"),
        zones=ZONES,
        now=NOW,
    )
    assert moved.changed == {"starts_at"}
    assert moved.info.starts_at == datetime(2026, 11, 5, 17, 30, tzinfo=UTC)  # read in the session's zone
    assert discord.dispatched == [("session_saved", GUILD, info.id)]
    assert discord.events[moved.info.event_id or 0][1].start == moved.info.starts_at


async def test_cancel_cancels_the_event_and_marks_only_a_posted_announcement(session_factory) -> None:
    discord = FakeSessionsDiscord()
    ctx = context(session_factory, discord)
    quiet, announced = (await create(ctx)).info, (await create(ctx, "Verifier soundness")).info
    await publish.announce(
        ctx, GUILD, announced.id, channel_id=500, default_channel_id=None, zones=ZONES, now=NOW
    )
    discord.calls.clear()
    cancelled = await publish.cancel(ctx, GUILD, quiet.id, reason="Presenter ill", zones=ZONES, now=NOW)
    assert cancelled.info.is_cancelled
    assert cancelled.info.event_id is not None
    assert discord.events[cancelled.info.event_id][0] == "canceled"
    assert "post_cancellation" not in discord.calls
    assert "refresh_card" not in discord.calls
    await publish.cancel(ctx, GUILD, announced.id, reason=None, zones=ZONES, now=NOW)
    assert discord.calls[-2:] == ["refresh_card", "post_cancellation"]
    assert ("session_cancelled", GUILD, announced.id) in discord.dispatched
    with pytest.raises(Conflict):
        await publish.cancel(ctx, GUILD, quiet.id, reason=None, zones=ZONES, now=NOW)


async def test_announce_posts_opens_the_thread_edits_and_moves(session_factory) -> None:
    discord = FakeSessionsDiscord()
    ctx = context(session_factory, discord)
    info = (await create(ctx, presenter_id=42, presenter_name="Sam")).info
    with pytest.raises(NotConfigured):  # no channel asked for, none configured
        await publish.announce(
            ctx, GUILD, info.id, channel_id=None, default_channel_id=None, zones=ZONES, now=NOW
        )
    with pytest.raises(NotConfigured):  # one the bot cannot post in: nothing posted or recorded
        await publish.announce(
            ctx, GUILD, info.id, channel_id=9, default_channel_id=None, zones=ZONES, now=NOW
        )
    assert discord.posts == {}
    first = await publish.announce(
        ctx, GUILD, info.id, channel_id=None, default_channel_id=500, zones=ZONES, now=NOW
    )
    assert not first.edited
    thread = first.info.thread_id
    assert thread is not None
    assert discord.threads[thread] == [42]
    again = await publish.announce(
        ctx, GUILD, info.id, channel_id=None, default_channel_id=501, zones=ZONES, now=NOW
    )
    assert again.edited
    assert again.info.announcement_message_id == first.info.announcement_message_id
    assert again.info.thread_id == thread  # where it was posted, not the new default
    moved = await publish.announce(
        ctx, GUILD, info.id, channel_id=501, default_channel_id=None, zones=ZONES, now=NOW
    )
    assert not moved.edited
    assert list(discord.posts.values()) == [501]  # no copy left behind
    assert moved.info.thread_id != thread
    discord.posts.clear()  # deleted by someone: posted again
    again = await publish.announce(
        ctx, GUILD, info.id, channel_id=None, default_channel_id=None, zones=ZONES, now=NOW
    )
    assert not again.edited
    assert list(discord.posts.values()) == [501]


async def test_an_over_or_cancelled_session_is_not_announced(session_factory) -> None:
    ctx = context(session_factory)
    info = (await create(ctx)).info
    with pytest.raises(BadInput, match="is over"):
        await publish.announce(
            ctx,
            GUILD,
            info.id,
            channel_id=500,
            default_channel_id=None,
            zones=ZONES,
            now=NOV5 + timedelta(hours=2),
        )
    await publish.cancel(ctx, GUILD, info.id, reason=None, zones=ZONES, now=NOW)
    with pytest.raises(Conflict, match="cancelled"):
        await publish.announce(
            ctx, GUILD, info.id, channel_id=500, default_channel_id=None, zones=ZONES, now=NOW
        )


async def test_recap_refreshes_and_posts_in_the_thread_once_there_is_one(session_factory) -> None:
    discord = FakeSessionsDiscord()
    ctx = context(session_factory, discord)
    info = (await create(ctx)).info
    after = NOV5 + timedelta(hours=2)
    saved, warnings = await publish.recap(
        ctx,
        GUILD,
        info.id,
        recording_url="https://youtu.be/x",
        notes_url=None,
        wiki_url=None,
        zones=ZONES,
        now=after,
    )
    assert saved.recording_url == "https://youtu.be/x"
    assert warnings == ()
    assert "post_recap" not in discord.calls  # not announced: no thread to post in
    async with session_factory() as session, session.begin():
        await store.record_announcement(session, GUILD, info.id, channel_id=500, message_id=7, thread_id=8)
    await publish.recap(
        ctx,
        GUILD,
        info.id,
        recording_url=None,
        notes_url="https://n.example",
        wiki_url=None,
        zones=ZONES,
        now=after,
    )
    assert discord.calls[-2:] == ["refresh_card", "post_recap"]


async def test_remind_me_toggles_and_tells_the_reminders(session_factory) -> None:
    discord = FakeSessionsDiscord()
    ctx = context(session_factory, discord)
    info = (await create(ctx)).info
    assert (await members.remind_me(ctx, GUILD, info.id, 7, NOW))[0].subscribed is True
    assert (await members.remind_me(ctx, GUILD, info.id, 7, NOW))[0].subscribed is False
    assert discord.dispatched[-2:] == [
        ("session_subscription_changed", GUILD, info.id, 7, True),
        ("session_subscription_changed", GUILD, info.id, 7, False),
    ]


async def test_a_page_of_the_upcoming_sessions(session_factory) -> None:
    ctx = context(session_factory)
    for week in range(3):
        await create(ctx, f"Week {week + 1}", NOV5 + timedelta(weeks=week))
    page = await queries.upcoming_page(ctx.store, GUILD, NOW, page=5, per_page=2)
    assert (page.page, page.pages, page.total) == (1, 2, 3)  # clamped to the last page
    assert [info.title for info in page.sessions] == ["Week 3"]


async def test_saved_by_id_publishes_the_session_as_stored_and_nothing_once_it_is_gone(
    session_factory,
) -> None:
    discord = FakeSessionsDiscord()
    ctx = context(session_factory, discord)
    info = (await create(ctx)).info
    discord.dispatched.clear()
    assert await publish.saved_by_id(ctx, GUILD, info.id, NOW) == ()
    assert discord.dispatched == [("session_saved", GUILD, info.id)]
    discord.dispatched.clear()
    assert await publish.saved_by_id(ctx, GUILD + 1, info.id, NOW) == ()  # not this server's
    assert await publish.saved_by_id(ctx, GUILD, info.id + 1, NOW) == ()  # no such session
    assert discord.dispatched == []
