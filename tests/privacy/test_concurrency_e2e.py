"""*Delete my data* while a reminder to the member is being sent, through the stand-in: refused with a clear
message and nothing deleted; once the send ended, deleted, and no reminder DM comes afterwards."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import select

from bot.demo.botenv import BotEnv
from bot.services.privacy.actions import SENDING_NOW
from db.models.reminders import SENDING, Reminder
from tests.privacy.helpers import ask, club, confirm, counts, press, privacy, settle


async def test_a_delete_during_a_reminder_send_is_refused_then_done(discord_env: BotEnv) -> None:
    env = discord_env
    rita = env.members[0]
    done = await club(env, website=False)
    dm = env.standin.state.dm_channel(rita.user)
    held = env.standin.hold("POST", rf"^/channels/{dm.id}/messages$")
    # Session A's presenter DM to rita falls due half an hour on (3 days before it): its send hangs
    moving = asyncio.create_task(env.clock.advance(timedelta(hours=1)))
    await env.standin.wait_until(lambda: held.waiting == 1)
    async with env.bot.session_factory() as session:
        sending = await session.scalar(
            select(Reminder.id).where(Reminder.user_id == rita.id, Reminder.status == SENDING)
        )
    assert sending is not None
    before = await counts(env, rita.id)
    refused = await press(env, await ask(env, await privacy(env, rita), rita), rita)
    assert refused.text == SENDING_NOW
    assert await counts(env, rita.id) == before  # nothing deleted, not even in part
    held.release()
    await moving
    await settle(env)
    sent = len(env.dm_messages(rita))
    assert sent == 1  # the DM in flight before the delete was asked for
    confirmation = await ask(env, await privacy(env, rita), rita)
    outcome = await confirm(env, confirmation, rita)
    assert "Your data in Paper Club is deleted:" in outcome.text
    await env.clock.advance(timedelta(days=11))
    await settle(env)
    assert len(env.dm_messages(rita)) == sent  # none afterwards
    assert done.presented
