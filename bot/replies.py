"""Sending replies safely: ephemeral by default where asked, never pinging, never over Discord's limits."""

from __future__ import annotations

from typing import Any

import discord

NO_MENTIONS = discord.AllowedMentions.none()

CONTENT_LIMIT = 2000
EMBED_TITLE_LIMIT = 256
EMBED_DESCRIPTION_LIMIT = 4096
EMBED_FIELD_NAME_LIMIT = 256
EMBED_FIELD_VALUE_LIMIT = 1024
EMBED_FOOTER_LIMIT = 2048
EMBED_TOTAL_LIMIT = 6000
BUTTON_LABEL_LIMIT = 80
CHOICE_NAME_LIMIT = 100
THREAD_NAME_LIMIT = 100


def cut(text: str | None, limit: int) -> str:
    """Cut text to `limit` characters with an ellipsis (for display only; stored text stays whole)."""
    if text is None:
        return ""
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def one_line(text: str, limit: int = 100) -> str:
    return cut(" ".join(text.split()), limit)


def embed_size(embed: discord.Embed) -> int:
    return len(embed)


def fit_embed(embed: discord.Embed) -> discord.Embed:
    """Trim fields from the end (then the description) until the embed fits Discord's 6000 total."""
    while len(embed) > EMBED_TOTAL_LIMIT and embed.fields:
        embed.remove_field(len(embed.fields) - 1)
    if len(embed) > EMBED_TOTAL_LIMIT and embed.description:
        over = len(embed) - EMBED_TOTAL_LIMIT
        embed.description = cut(embed.description, max(1, len(embed.description) - over - 1))
    return embed


async def send_reply(
    interaction: discord.Interaction[Any],
    content: str | None = None,
    *,
    embed: discord.Embed | None = None,
    view: discord.ui.View | None = None,
    public: bool = False,
    **kwargs: Any,
) -> None:
    """Reply (ephemerally unless ``public``), whether or not the interaction was already responded to
    or deferred. Never pings, cuts the content to Discord's limit; ``view`` None means no buttons."""
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
    interaction: discord.Interaction[Any],
    content: str | None = None,
    *,
    embed: discord.Embed | None = None,
    **kwargs: Any,
) -> None:
    """Reply ephemerally, whether or not the interaction was already responded to or deferred."""
    await send_reply(interaction, content, embed=embed, **kwargs)
