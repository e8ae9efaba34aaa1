"""Helpers for the /privacy tests: a club where members did things through Discord, read back from the
store and the stand-in."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select

from bot.demo.botenv import BotEnv
from bot.services.privacy.actions import Overview, overview
from bot.services.privacy.rows import Who
from db.models import ClubSession, SessionSubscription
from db.models.core import CalendarToken
from db.models.reminders import Reminder
from db.models.suggestions import Suggestion, SuggestionVolunteer, SuggestionVote
from standin.state import Message
from tests.sessions.helpers import add_session, configure, run
from tests.suggestions.helpers import latest_suggestion_id, post_of, suggest, use_channel

URL = re.compile(r"<(http://127\.0\.0\.1:\d+/[^>\s]+\.ics)>")
SESSION_A = "2026-12-03 09:30"  # Thursday, three days after the env's clock (Monday 30 November)
SESSION_B = "2026-12-10 09:30"


@dataclass
class Club:
    """What the members did: ``mine`` was suggested by rita, ``theirs`` by sam (rita voted for it and
    offered to present it, sam voted for ``mine``); rita presents ``presented`` and asked to be reminded of
    ``reminded``; ``feed`` is rita's personal calendar feed (None without the website)."""

    mine: int
    theirs: int
    presented: int
    reminded: int
    feed: str | None


async def turn_site_on(env: BotEnv, slug: str = "paper-club") -> None:
    reply = await (
        await env.invoke("setup website", {"enabled": True, "slug": slug}, member=env.admin)
    ).response()
    assert reply.content.startswith("Website on:"), reply.content


async def club(env: BotEnv, *, website: bool) -> Club:
    """rita's and sam's doings, through the stand-in and the real discord.py client."""
    rita, sam = env.members[0], env.members[1]
    await configure(env)
    await use_channel(env, env.general)
    await suggest(env, rita, paper="https://example.org/mine", title="Paper Mine", why="Worth it")
    mine = await latest_suggestion_id(env)
    await suggest(env, sam, paper="https://example.org/theirs", title="Paper Theirs")
    theirs = await latest_suggestion_id(env)
    post = await post_of(env, theirs)
    assert (
        "Your vote is in"
        in (await (await env.click(post, f"sugg:vote:{theirs}", member=rita)).response()).content
    )
    await (await env.click(post, f"sugg:present:{theirs}", member=rita)).response()
    mine_post = await post_of(env, mine)
    await (await env.click(mine_post, f"sugg:vote:{mine}", member=sam)).response()
    presented = await add_session(env, "Session A", SESSION_A, presenter=rita)
    await run(env, "organize session announce", {"session": presented})
    reminded = await add_session(env, "Session B", SESSION_B)
    await run(env, "remind me", {"session": reminded}, member=rita)
    await run(env, "remind me", {"session": reminded}, member=sam)
    feed = None
    if website:
        await turn_site_on(env)
        link = await (await env.invoke("calendar link", member=rita)).response()
        found = URL.search(link.content)
        assert found is not None, link.content
        feed = found.group(1)
    await settle(env)
    return Club(mine, theirs, presented, reminded, feed)


async def settle(env: BotEnv) -> None:
    """Until the features' background work after an action is done (posts, plans, follow-ups)."""
    await env.bot.get_cog("PrivacyCog").settle()  # type: ignore[union-attr]
    await env.bot.get_cog("RemindersCog").settle()  # type: ignore[union-attr]
    await env.bot.get_cog("SuggestionsCog").settle()  # type: ignore[union-attr]


async def held(env: BotEnv, user_id: int, guild_id: int | None = None) -> Overview:
    """What the store holds of the member (in one server, or all)."""
    async with env.bot.session_factory() as session:
        return await overview(session, Who(user_id, frozenset({guild_id}) if guild_id else None))


async def counts(env: BotEnv, user_id: int) -> dict[str, int]:
    """The member's rows, table by table, read without the privacy service."""
    async with env.bot.session_factory() as session:

        async def n(statement: Any) -> int:
            return int(await session.scalar(statement) or 0)

        return {
            "suggestions": await n(select(func.count()).where(Suggestion.submitter_id == user_id)),
            "votes": await n(select(func.count()).where(SuggestionVote.user_id == user_id)),
            "offers": await n(select(func.count()).where(SuggestionVolunteer.user_id == user_id)),
            "subscriptions": await n(select(func.count()).where(SessionSubscription.user_id == user_id)),
            "reminders": await n(select(func.count()).where(Reminder.user_id == user_id)),
            "feeds": await n(select(func.count()).where(CalendarToken.user_id == user_id)),
            "presenting": await n(select(func.count()).where(ClubSession.presenter_id == user_id)),
        }


async def privacy(env: BotEnv, member: Any, channel: Any = None) -> Message:
    """/privacy's (deferred, ephemeral) answer."""
    return await (await env.invoke("privacy", member=member, channel=channel)).final()


def button(message: Message, prefix: str) -> dict[str, Any]:
    return next(b for b in message.buttons if str(b.get("custom_id", "")).startswith(prefix))


async def delete_my_data(env: BotEnv, member: Any, channel: Any = None) -> tuple[Message, Message]:
    """/privacy, *Delete my data…*, then the confirmation's *Delete my data*: (the confirmation, the outcome)."""
    shown = await privacy(env, member, channel)
    confirmation = await ask(env, shown, member)
    done = await confirm(env, confirmation, member)
    return confirmation, done


async def ask(env: BotEnv, shown: Message, member: Any) -> Message:
    """Press /privacy's *Delete my data…*: the confirmation (an ephemeral message with its button)."""
    return await (await env.click(shown, button(shown, "privacy:ask:")["custom_id"], member=member)).final()


async def press(env: BotEnv, confirmation: Message, member: Any, **kwargs: Any) -> Message:
    """Press the confirmation's button; what the member then sees (the confirmation edited, or a refusal)."""
    custom_id = kwargs.pop("custom_id", None) or button(confirmation, "privacy:delete:")["custom_id"]
    result = await env.standin.click(confirmation, custom_id, member=member, **kwargs)
    return await result.final()


async def confirm(env: BotEnv, confirmation: Message, member: Any, **kwargs: Any) -> Message:
    """:func:`press`, then the background work it set off is done."""
    answer = await press(env, confirmation, member, **kwargs)
    await settle(env)
    return answer


NOW = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)


async def other_server(env: BotEnv, member: Any) -> int:
    """A second server the bot and ``member`` are in, where the member asked to be reminded of a session and
    has a personal feed (rows made in the store): its id."""
    from standin.state import Member

    guild = await env.standin.create_guild("Other Club")
    user = member.user
    guild.members[user.id] = Member(user=user, guild_id=guild.id)
    async with env.bot.session_factory() as session, session.begin():
        row = ClubSession(
            guild_id=guild.id,
            title="Elsewhere",
            starts_at=datetime(2026, 12, 20, 18, 0, tzinfo=UTC),
            timezone="UTC",
        )
        session.add(row)
        await session.flush()
        session.add(SessionSubscription(session_id=row.id, user_id=user.id))
        session.add(CalendarToken(guild_id=guild.id, user_id=user.id, token_hash="f" * 64))
    return guild.id


async def guild_rows(env: BotEnv, guild_id: int) -> dict[str, int]:
    """Rows of ``guild_id`` in every table of the store with a ``guild_id`` column, read from the store's
    own schema (not the models): the search index included."""
    from sqlalchemy import inspect, text

    def tables(connection: Any) -> list[str]:
        found = inspect(connection)
        return [
            t for t in found.get_table_names() if any(c["name"] == "guild_id" for c in found.get_columns(t))
        ]

    async with env.bot.engine.connect() as conn:
        names = await conn.run_sync(tables)
        counted = {}
        for name in names:
            n = await conn.scalar(text(f'SELECT count(*) FROM "{name}" WHERE guild_id = :g'), {"g": guild_id})
            if n:
                counted[name] = int(n)
    return counted
