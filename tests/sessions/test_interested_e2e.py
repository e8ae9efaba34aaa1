"""*Interested* on a session's Discord event counts as Remind me, through the stand-in's gateway and the real
discord.py client (SQLite and PostgreSQL): one DM for a member who did both, none after unmarking, the
announcement's count edited at most once per 10 s per post, the marks made while the bot was away caught up."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from db.models import ClubSession, SessionSubscription
from tests.sessions.helpers import add_session, announcements, configure, run

STARTS = datetime(2026, 12, 10, 17, 0, tzinfo=UTC)


def from_bot(env, messages) -> list:
    return [m for m in messages if m.author_id == env.standin.bot_user.id]


class Heard:
    """Counts the bot's ``session_subscription_changed`` events (each mark the bot took in)."""

    def __init__(self, env) -> None:
        self.count = 0
        self.reached = asyncio.Event()
        self.want = 0
        env.bot.add_listener(self.on_session_subscription_changed)

    async def on_session_subscription_changed(self, *_args: object) -> None:
        self.count += 1
        if self.count >= self.want:
            self.reached.set()

    async def until(self, total: int) -> None:
        self.want = total
        if self.count < total:
            self.reached.clear()
            await asyncio.wait_for(self.reached.wait(), 15)


async def announced(env) -> tuple[int, int, object]:
    await configure(env)
    session_id = await add_session(env, "Worlds", "2026-12-10 17:00", timezone="UTC")
    await run(env, "organize session announce", {"session": session_id})
    (posted,) = announcements(env)
    async with env.bot.session_factory() as db:
        event_id = (await db.get(ClubSession, session_id)).event_id
    return session_id, event_id, posted


async def rows(env, session_id: int) -> dict[int, tuple[bool, bool]]:
    async with env.bot.session_factory() as db:
        found = await db.scalars(
            select(SessionSubscription).where(SessionSubscription.session_id == session_id)
        )
        return {row.user_id: (row.asked, row.interested) for row in found}


def edits_of(env, message_id: int) -> int:
    return sum(1 for r in env.requests if r.method == "PATCH" and r.path.endswith(f"/messages/{message_id}"))


async def shows(env, posted, text: str) -> None:
    await env.standin.wait_until(lambda: text in env.standin.message(posted.id).text)


async def test_interested_and_remind_me_give_one_dm_and_unmarking_stops_it(env) -> None:
    session_id, event_id, posted = await announced(env)
    heard = Heard(env)
    both, marked_then_not = env.members[1], env.members[2]
    await env.standin.mark_interested(event_id, both)
    await shows(env, posted, "**Coming:** 1")
    pressed = await (await env.click(posted, f"session:remind:{session_id}", member=both)).final()
    assert pressed.text.startswith("I'll remind you")
    await env.standin.mark_interested(event_id, marked_then_not)
    await env.standin.unmark_interested(event_id, marked_then_not)
    await heard.until(4)
    assert await rows(env, session_id) == {both.id: (True, True)}
    await env.clock.advance(timedelta(seconds=10))  # the deferred edit
    await shows(env, posted, "**Coming:** 1")

    # Remind me off while still Interested: still one DM, and the member is told so
    off = await (await env.click(posted, f"session:remind:{session_id}", member=both)).final()
    assert "You marked *Interested*" in off.text
    await env.bot.get_cog("RemindersCog").settle()
    await env.clock.set(STARTS - timedelta(hours=1))
    (dm,) = from_bot(env, env.dm_messages(both))
    assert dm.content.startswith("⏰ **Worlds** starts")
    assert from_bot(env, env.dm_messages(marked_then_not)) == []


async def test_a_burst_of_marks_edits_the_announcement_twice(env) -> None:
    session_id, event_id, posted = await announced(env)
    heard = Heard(env)
    readers = [await env.standin.create_member(env.world.guild, f"reader{n}") for n in range(100)]
    before = edits_of(env, posted.id)
    for reader in readers:
        await env.standin.mark_interested(event_id, reader)
    await heard.until(100)
    await env.bot.get_cog("SessionsCog").announcements_refreshed()
    await env.clock.advance(timedelta(seconds=10))
    await shows(env, posted, "**Coming:** 100")
    assert edits_of(env, posted.id) - before == 2  # the first mark at once, the other 99 in one edit
    assert len(await rows(env, session_id)) == 100


async def test_marks_over_a_minute_edit_at_most_once_per_ten_seconds(env) -> None:
    session_id, event_id, posted = await announced(env)
    heard = Heard(env)
    readers = [await env.standin.create_member(env.world.guild, f"reader{n}") for n in range(100)]
    before = edits_of(env, posted.id)
    for n, reader in enumerate(readers, 1):
        await env.standin.mark_interested(event_id, reader)
        await heard.until(n)
        await env.clock.advance(timedelta(seconds=0.6))
    await env.clock.advance(timedelta(seconds=10))
    await shows(env, posted, "**Coming:** 100")
    edits = edits_of(env, posted.id) - before
    assert edits <= 7  # 60 s of marks: one edit per 10 s, and the last after them
    print(f"100 Interested marks over 60 s: {edits} announcement edits")


async def test_marks_made_while_the_bot_was_away_are_caught_up(env) -> None:
    session_id, event_id, posted = await announced(env)
    early, late = env.members[1], env.members[2]
    heard = Heard(env)
    await env.standin.mark_interested(event_id, early)
    await heard.until(1)
    await env.stop_bot()
    await env.standin.unmark_interested(event_id, early)
    await env.standin.mark_interested(event_id, late)
    for n in range(150):  # more than a page of GET .../users
        await env.standin.mark_interested(event_id, await env.standin.create_member(env.world.guild, f"r{n}"))
    await env.start_bot()
    await env.bot.get_cog("SessionsCog").events_caught_up(env.world.guild.id).wait()
    found = await rows(env, session_id)
    assert early.id not in found
    assert found[late.id] == (False, True)
    assert len(found) == 151
