"""The members' flows (bot/services/sessions/members.py, publish.py) on the store, SQLite and
PostgreSQL, with a recording Discord side: what each writes, what it refuses, and what it tells."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from bot.errors import BadInput, Conflict, NotAllowed, NotFound
from bot.services.reminders import plan
from bot.services.sessions import members, publish
from db.models import SessionSubscription
from db.models.reminders import RECORDING, Reminder
from tests.sessions.fakes import FakeSessionsDiscord, context
from tests.sessions.test_flows import GUILD, NOV5, NOW, create, stored

PRESENTER, RITA, SAM = 501, 502, 503


async def test_keep_out_toggles_and_always_covers_every_session(session_factory) -> None:
    ctx = context(session_factory)
    info = (await create(ctx, presenter_id=PRESENTER)).info
    other = (await create(ctx, "Verifiers", NOV5 + timedelta(days=7), presenter_id=PRESENTER)).info
    first = await members.keep_out(ctx.store, GUILD, info.id, RITA, "Rita  R.", NOW)
    assert (first.out, first.always) == (True, False)
    assert not (await members.keep_out(ctx.store, GUILD, info.id, RITA, "Rita", NOW)).out
    await members.keep_out(ctx.store, GUILD, info.id, RITA, "Rita  R.", NOW)
    always = await members.keep_out_always(ctx.store, GUILD, info.id, SAM, "Sam", NOW)
    assert (always.out, always.always) == (False, True)
    assert (await members.for_presenter(ctx.store, GUILD, info.id)).names == ("Rita R.", "Sam")
    assert (await members.for_presenter(ctx.store, GUILD, other.id)).names == ("Sam",)
    assert not (await members.keep_out_always(ctx.store, GUILD, info.id, SAM, "Sam", NOW)).always
    assert (await members.for_presenter(ctx.store, GUILD, other.id)).names == ()
    with pytest.raises(NotFound):
        await members.keep_out(ctx.store, GUILD + 1, info.id, RITA, "Rita", NOW)
    with pytest.raises(Conflict):  # started
        await members.keep_out(ctx.store, GUILD, info.id, SAM, "Sam", NOV5 + timedelta(minutes=1))


@pytest.mark.parametrize(
    ("text", "refusal"),
    [
        ("   ", "Write a question first."),
        ("x" * 1001, "within 1000 characters"),
        ("ask <@42> about it", "without @ mentions"),
        ("hello @here", "without @ mentions"),
        ("pinging <@&7>", "without @ mentions"),
    ],
)
async def test_a_bad_question_is_refused_and_nothing_stored(session_factory, text: str, refusal: str) -> None:
    ctx = context(session_factory)
    info = (await create(ctx, presenter_id=PRESENTER)).info
    with pytest.raises(BadInput, match=refusal):
        await members.ask(ctx.store, GUILD, info.id, RITA, text=text, name=None, now=NOW)
    assert (await members.for_presenter(ctx.store, GUILD, info.id)).questions == ()


async def test_questions_named_or_not_and_at_most_five(session_factory) -> None:
    ctx = context(session_factory)
    info = (await create(ctx, presenter_id=PRESENTER)).info
    await members.ask(ctx.store, GUILD, info.id, RITA, text=" Scale? ", name="Rita", now=NOW)
    for n in range(4):
        await members.ask(ctx.store, GUILD, info.id, SAM, text=f"Q{n}", name=None, now=NOW)
    await members.ask(ctx.store, GUILD, info.id, SAM, text="Q4", name=None, now=NOW)
    with pytest.raises(Conflict, match="5 questions"):
        await members.ask(ctx.store, GUILD, info.id, SAM, text="Q5", name=None, now=NOW)
    found = await members.for_presenter(ctx.store, GUILD, info.id)
    assert [(q.name, q.text) for q in found.questions][:2] == [("Rita", "Scale?"), (None, "Q0")]
    no_presenter = (await create(ctx, "Nobody yet", NOV5 + timedelta(days=1))).info
    with pytest.raises(Conflict, match="no presenter"):
        await members.ask(ctx.store, GUILD, no_presenter.id, RITA, text="Hi?", name=None, now=NOW)


async def subscription(ctx, session_id: int, user_id: int):
    async with ctx.store() as session:
        row = await session.get(SessionSubscription, (session_id, user_id))
        return None if row is None else (row.asked, row.interested)


async def test_interested_joins_remind_me_in_one_row(session_factory) -> None:
    discord = FakeSessionsDiscord()
    ctx = context(session_factory, discord)
    info = await stored(ctx, (await create(ctx)).info.id)
    event_id = info.event_id or 0
    assert await members.interest_marked(ctx, GUILD, event_id, RITA, True, NOW) == info.id
    assert await members.interest_marked(ctx, GUILD, event_id, RITA, True, NOW) is None  # already marked
    assert await subscription(ctx, info.id, RITA) == (False, True)
    assert (
        await members.interest_marked(ctx, GUILD + 1, event_id, RITA, True, NOW) is None
    )  # not this server's
    assert await members.interest_marked(ctx, GUILD, 999, RITA, True, NOW) is None  # not a session's event
    assert await members.interest_marked(ctx, GUILD, event_id, RITA, False, NOW) == info.id
    assert await subscription(ctx, info.id, RITA) is None
    assert ("session_subscription_changed", GUILD, info.id, RITA, False) in discord.dispatched
    # after the start, a mark changes nothing
    assert await members.interest_marked(ctx, GUILD, event_id, SAM, True, NOV5) is None


async def test_the_catch_up_follows_discords_list(session_factory) -> None:
    discord = FakeSessionsDiscord()
    ctx = context(session_factory, discord)
    info = await stored(ctx, (await create(ctx)).info.id)
    event_id = info.event_id or 0
    await members.interest_marked(ctx, GUILD, event_id, RITA, True, NOW)
    discord.interested[event_id] = {SAM, PRESENTER}
    assert await members.catch_up_interest(ctx, GUILD, NOW) == 3
    assert await subscription(ctx, info.id, RITA) is None
    assert await subscription(ctx, info.id, SAM) == (False, True)
    assert await members.catch_up_interest(ctx, GUILD, NOW) == 0
    del discord.interested[event_id]  # Discord would not say: the marks stay
    assert await members.catch_up_interest(ctx, GUILD, NOW) == 0
    assert await subscription(ctx, info.id, SAM) == (False, True)


async def test_the_recording_form_is_the_presenters_and_the_organizers(session_factory) -> None:
    discord = FakeSessionsDiscord()
    ctx = context(session_factory, discord)
    info = (await create(ctx, presenter_id=PRESENTER)).info
    after = NOV5 + timedelta(hours=2)
    with pytest.raises(NotAllowed):
        await publish.form_session(ctx, info.id, RITA, guild_id=None, organizer=True)  # a DM: presenter only
    with pytest.raises(NotFound):
        await publish.form_session(ctx, info.id, PRESENTER, guild_id=GUILD + 1, organizer=False)
    links = {"recording_url": "ftp://x", "notes_url": None, "wiki_url": None}
    with pytest.raises(BadInput):
        await publish.submit_form(ctx, info.id, PRESENTER, guild_id=None, organizer=False, now=after, **links)
    links["recording_url"] = "https://youtu.be/x"
    saved, _warnings = await publish.submit_form(
        ctx, info.id, RITA, guild_id=GUILD, organizer=True, now=after, **links
    )
    assert saved.recording_url == "https://youtu.be/x"
    assert ("session_recorded", GUILD, info.id) in discord.dispatched


async def test_the_recording_dm_is_planned_once_per_member(session_factory) -> None:
    ctx = context(session_factory)
    info = (await create(ctx)).info
    async with ctx.store() as session, session.begin():
        session.add(SessionSubscription(session_id=info.id, user_id=RITA, before_minutes=60))
    for _ in range(2):
        async with ctx.store() as session, session.begin():
            await plan.plan_recording(session, GUILD, info.id, now=NOW)
    async with ctx.store() as session, session.begin():
        await plan.plan_session(session, GUILD, info.id, now=NOW, presenter_dm_days=3)  # leaves it alone
    async with ctx.store() as session:
        rows = (
            await session.execute(select(Reminder.user_id, Reminder.status).where(Reminder.kind == RECORDING))
        ).all()
    assert [tuple(row) for row in rows] == [(RITA, "pending")]
