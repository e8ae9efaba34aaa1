"""Sending replies safely: ephemeral by default where asked, never pinging, never over Discord's limits."""

from __future__ import annotations

from typing import Any

import discord

from bot.text import (
    BUTTON_LABEL_LIMIT,
    CHOICE_NAME_LIMIT,
    CONTENT_LIMIT,
    THREAD_NAME_LIMIT,
    cut,
    markdown_link,
    one_line,
)

# Re-exported for the features.
__all__ = ["BUTTON_LABEL_LIMIT", "CHOICE_NAME_LIMIT", "THREAD_NAME_LIMIT", "markdown_link", "one_line"]

NO_MENTIONS = discord.AllowedMentions.none()


def member_mention(user_id: int | None) -> str:
    """``<@id>`` (which never pings: :data:`NO_MENTIONS`), or "a member" for one who deleted their data."""
    return f"<@{user_id}>" if user_id else "a member"


async def send_reply(
    interaction: discord.Interaction[Any],
    content: str | None = None,
    *,
    embed: discord.Embed | None = None,
    view: discord.ui.View | discord.ui.LayoutView | None = None,
    public: bool = False,
    **kwargs: Any,
) -> None:
    """Reply (ephemerally unless ``public``), answered or deferred before or not; never pings, content cut."""
    kwargs.setdefault("allowed_mentions", NO_MENTIONS)
    if content is not None:
        content = cut(content, CONTENT_LIMIT)
    if embed is not None:
        kwargs["embed"] = embed
    if view is not None:
        kwargs["view"] = view
    if interaction.response.is_done():
        await interaction.followup.send(
            content=content or discord.utils.MISSING, ephemeral=not public, **kwargs
        )
    else:
        await interaction.response.send_message(content=content, ephemeral=not public, **kwargs)


async def send_ephemeral(
    interaction: discord.Interaction[Any], content: str | None = None, **kwargs: Any
) -> None:
    """Reply ephemerally, whether or not the interaction was already responded to or deferred."""
    await send_reply(interaction, content, **kwargs)
