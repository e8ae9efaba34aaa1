"""Slash-command option types for suggestions: a paper reference, a suggestion (by id, with
autocomplete by title) and the guild's topics."""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands

from bot.errors import BadInput
from bot.papers import MAX_URL_LENGTH, PaperRef, parse_paper_ref
from bot.replies import CHOICE_NAME_LIMIT
from bot.services.guild_settings import get_config
from bot.services.suggestions_queries import search_suggestions
from cogs.suggestions._render import choice_name

MAX_CHOICES = 25
_SUGGESTION_ID = re.compile(r"#?\s*(\d{1,9})\b.*", re.DOTALL)


class PaperTransformer(app_commands.Transformer):
    """arXiv id or link, DOI, OpenReview/ACL Anthology link, any http(s) link, or a title."""

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.string

    @property
    def min_value(self) -> int:
        return 1

    @property
    def max_value(self) -> int:
        return MAX_URL_LENGTH

    async def transform(self, interaction: discord.Interaction[Any], value: Any) -> PaperRef:
        return parse_paper_ref(str(value))


def parse_suggestion_id(text: str) -> int:
    match = _SUGGESTION_ID.fullmatch(text.strip())
    if not match:
        raise BadInput("Pick a suggestion from the list, or type its number (e.g. 12).")
    return int(match.group(1))


async def suggestion_choices(
    interaction: discord.Interaction[Any], current: str, *, active_only: bool
) -> list[app_commands.Choice[str]]:
    if interaction.guild_id is None:
        return []
    async with interaction.client.session_factory() as session:
        items = await search_suggestions(
            session, interaction.guild_id, current[:100], active_only=active_only, limit=MAX_CHOICES
        )
    return [
        app_commands.Choice(name=choice_name(item)[:CHOICE_NAME_LIMIT], value=str(item.id)) for item in items
    ]


class SuggestionTransformer(app_commands.Transformer):
    """A suggestion picked from autocomplete (or typed as '12' / '#12'); gives its id. The service
    checks that it belongs to the guild."""

    active_only = False

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.string

    @property
    def max_value(self) -> int:
        return 100

    async def transform(self, interaction: discord.Interaction[Any], value: Any) -> int:
        return parse_suggestion_id(str(value))

    async def autocomplete(  # type: ignore[override]  # discord.py types `value` loosely
        self, interaction: discord.Interaction[Any], value: int | float | str
    ) -> list[app_commands.Choice[str]]:
        return await suggestion_choices(interaction, str(value), active_only=self.active_only)


class ActiveSuggestionTransformer(SuggestionTransformer):
    """Same, but autocomplete offers only open, shortlisted and accepted suggestions."""

    active_only = True


async def topic_autocomplete(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    if interaction.guild_id is None:
        return []
    async with interaction.client.session_factory() as session:
        config = await get_config(session, interaction.guild_id)
    wanted = current.strip().casefold()
    return [
        app_commands.Choice(name=topic[:CHOICE_NAME_LIMIT], value=topic)
        for topic in config.suggestion_topics
        if wanted in topic.casefold()
    ][:MAX_CHOICES]


PaperOption = app_commands.Transform[PaperRef, PaperTransformer]
SuggestionOption = app_commands.Transform[int, SuggestionTransformer]
ActiveSuggestionOption = app_commands.Transform[int, ActiveSuggestionTransformer]
