"""Helpers for the end-to-end suggestion tests (the stand-in, the real discord.py client, our bot)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from bot.errors import PaperclubError
from bot.services.suggestions.queries import SuggestionCard, card_by_id
from bot.services.suggestions.votes import Press, ToggleResult, toggle_votes
from tests.cards import card_title

EPHEMERAL = 1 << 6


async def toggle_vote(
    session: Any, guild_id: int, suggestion_id: int, user_id: int, now: datetime
) -> ToggleResult:
    """One press written in the caller's transaction (the bot batches presses through a VoteWriter)."""
    (outcome,) = await toggle_votes(session, [Press(guild_id, suggestion_id, user_id, now)])
    if isinstance(outcome, PaperclubError):
        raise outcome
    return outcome


def cog(env: Any) -> Any:
    return env.bot.get_cog("SuggestionsCog")


async def use_channel(env: Any, channel: Any = None) -> None:
    response = await (
        await env.invoke("setup suggestions", {"channel": channel or env.suggestions}, member=env.admin)
    ).response()
    assert card_title(response) == "Saved."


async def suggest(env: Any, member: Any, **options: Any) -> Any:
    """Run /suggest and return the final (ephemeral) answer after the defer."""
    result = await env.invoke("suggest paper", options, member=member)
    first = await result.response()
    if not first.deferred:
        return first
    return await result.final()


async def card(env: Any, suggestion_id: int) -> SuggestionCard:
    async with env.bot.session_factory() as session:
        found = await card_by_id(session, suggestion_id)
    assert found is not None
    return found


async def post_of(env: Any, suggestion_id: int) -> Any:
    """The suggestion's post as the stand-in holds it, after pending re-renders."""
    await cog(env).settle()
    found = await card(env, suggestion_id)
    assert found.message_id is not None
    return env.standin.message(found.message_id)


def button(message: Any, prefix: str) -> dict[str, Any]:
    return next(b for b in message.buttons if str(b.get("custom_id", "")).startswith(prefix))


def fields(embed: dict[str, Any]) -> dict[str, str]:
    """An embed's fields by name (/suggest show, the ephemeral answers)."""
    return {f["name"]: f["value"] for f in embed.get("fields", [])}


_FACT = re.compile(r"^\*\*(?P<name>[^*]+?):\*\* ?(?P<value>.*)$")


def post_fields(message: Any) -> dict[str, str]:
    """A suggestion post's labelled lines ("**Votes:** 2") by label, and its paper block as "The paper"."""
    found: dict[str, str] = {}
    for text in message.text_displays:
        if text.startswith("**The paper**\n"):
            found["The paper"] = text.split("\n", 1)[1]
            continue
        for line in text.split("\n"):
            if match := _FACT.match(line):
                found[match["name"]] = match["value"]
    return found


def paper_link(message: Any) -> str | None:
    """The post's link button to the paper."""
    return next((b["url"] for b in message.buttons if b.get("style") == 5), None)


def post_title(message: Any) -> str:
    """The post's heading, as the member sees it (markdown escapes taken out)."""
    heading = message.text_displays[0].split("\n", 1)[0]
    assert heading.startswith("## "), heading
    return re.sub(r"\\(.)", r"\1", heading[3:])


async def latest_suggestion_id(env: Any) -> int:
    from sqlalchemy import func, select

    from db.models.suggestions import Suggestion

    async with env.bot.session_factory() as session:
        return int((await session.execute(select(func.max(Suggestion.id)))).scalar_one())


async def invoke_to_completion(
    env: Any, name: str, options: dict[str, Any] | None = None, **kwargs: Any
) -> Any:
    """Invoke a command and wait until its callback has finished (work after the reply included)."""
    import asyncio

    done = asyncio.ensure_future(
        env.bot.wait_for("app_command_completion", check=lambda _i, c: c.qualified_name == name, timeout=10)
    )
    result = await env.invoke(name, options, **kwargs)
    await done
    return result
