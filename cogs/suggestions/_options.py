"""Slash-command option types for suggestions: a paper, a suggestion (autocompleted) and the topics."""

from __future__ import annotations

from typing import Any

from discord import app_commands
from sqlalchemy.ext.asyncio import AsyncSession

from bot.client import Interaction
from bot.ids import require_id
from bot.papers import MAX_TITLE_LENGTH, MAX_URL_LENGTH, PaperRef, parse_paper_ref
from bot.replies import CHOICE_NAME_LIMIT
from bot.services.config.guild import MAX_TOPIC, get_config
from bot.services.suggestions.actions import MAX_NOTE_LENGTH, MAX_REASON_LENGTH
from bot.services.suggestions.queries import search_suggestions
from bot.transformers import MAX_CHOICES, OptionTransformer, guild_choices
from cogs.suggestions._render import choice_name


class PaperTransformer(OptionTransformer):
    """arXiv id or link, DOI, OpenReview/ACL Anthology link, any http(s) link, or a title."""

    minimum = 1
    maximum = MAX_URL_LENGTH

    async def transform(self, interaction: Interaction, value: Any) -> PaperRef:
        return parse_paper_ref(str(value))


class SuggestionTransformer(OptionTransformer):
    """A suggestion picked from autocomplete (or typed as '12', '#12'); its id (the service checks its guild)."""

    active_only = False
    maximum = 100

    async def transform(self, interaction: Interaction, value: Any) -> int:
        return require_id(str(value), "suggestion", pasted_name=True)

    async def autocomplete(  # type: ignore[override]  # discord.py types `value` loosely
        self, interaction: Interaction, value: int | float | str
    ) -> list[app_commands.Choice[str]]:
        async def query(session: AsyncSession, guild_id: int) -> list[tuple[str, str]]:
            items = await search_suggestions(
                session, guild_id, str(value)[:100], active_only=self.active_only, limit=MAX_CHOICES
            )
            return [(choice_name(item)[:CHOICE_NAME_LIMIT], str(item.id)) for item in items]

        return await guild_choices(interaction, query)


class ActiveSuggestionTransformer(SuggestionTransformer):
    """Same, but autocomplete offers only open, shortlisted and accepted suggestions."""

    active_only = True


async def topic_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    wanted = current.strip().casefold()

    async def query(session: AsyncSession, guild_id: int) -> list[tuple[str, str]]:
        topics = (await get_config(session, guild_id)).suggestion_topics
        return [(topic[:CHOICE_NAME_LIMIT], topic) for topic in topics if wanted in topic.casefold()]

    return await guild_choices(interaction, query)


PaperOption = app_commands.Transform[PaperRef, PaperTransformer]
SuggestionOption = app_commands.Transform[int, SuggestionTransformer]
ActiveSuggestionOption = app_commands.Transform[int, ActiveSuggestionTransformer]
Why = app_commands.Range[str, 1, MAX_REASON_LENGTH]
Topic = app_commands.Range[str, 1, MAX_TOPIC]
PaperTitle = app_commands.Range[str, 1, MAX_TITLE_LENGTH]
ReviewNote = app_commands.Range[str, 1, MAX_NOTE_LENGTH]
