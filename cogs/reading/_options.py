"""Slash-command option types and autocomplete for /reading."""

from __future__ import annotations

from typing import Any, cast

from discord import app_commands
from sqlalchemy.ext.asyncio import AsyncSession

from bot.client import Interaction
from bot.errors import BadInput
from bot.papers import MAX_URL_LENGTH
from bot.services.reading import autocomplete as choices
from bot.services.reading import lists as svc
from bot.services.reading.exports import FORMATS, ExportFormat
from bot.services.reading.search import MAX_QUERY_LENGTH
from bot.transformers import OptionTransformer, guild_choices

EXPORT_CHOICES = [
    app_commands.Choice(name="Markdown (the club page's “Reading so far”)", value="markdown"),
    app_commands.Choice(name="BibTeX", value="bibtex"),
    app_commands.Choice(name="CSV (spreadsheets)", value="csv"),
    app_commands.Choice(name="JSON", value="json"),
]
ListName = app_commands.Range[str, 1, svc.MAX_LIST_NAME]
Note = app_commands.Range[str, 1, svc.MAX_NOTE]
Query = app_commands.Range[str, 1, MAX_QUERY_LENGTH]
PageNumber = app_commands.Range[int, 1, 10_000]


class PaperInputTransformer(OptionTransformer):
    """A paper as typed (arXiv id or link, DOI, any http(s) link, a title) or picked from autocomplete."""

    minimum = 1
    maximum = MAX_URL_LENGTH

    async def transform(self, interaction: Interaction, value: Any) -> svc.PaperInput:
        """The paper, checked."""
        return svc.read_paper_input(str(value))


def export_format(value: str) -> ExportFormat:
    """The export format picked."""
    if value not in FORMATS:
        raise BadInput("Pick a format: Markdown, BibTeX, CSV or JSON.")
    return cast(ExportFormat, value)


PaperArg = app_commands.Transform[svc.PaperInput, PaperInputTransformer]


async def list_name_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The guild's lists matching what is typed."""

    async def query(session: AsyncSession, guild_id: int) -> list[tuple[str, str]]:
        return [(name, name) for name in await choices.list_name_choices(session, guild_id, current)]

    return await guild_choices(interaction, query)


async def any_paper_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Stored papers matching what is typed."""
    return await guild_choices(
        interaction, lambda session, guild_id: choices.paper_choices(session, guild_id, current)
    )


async def list_paper_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The papers on the list chosen in the `list` option."""
    list_name = str(getattr(interaction.namespace, "list", None) or "")
    if not list_name:
        return []
    return await guild_choices(
        interaction,
        lambda session, guild_id: choices.list_paper_choices(session, guild_id, list_name, current),
    )


async def query_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Paper titles and list names for the words typed so far."""
    return await guild_choices(
        interaction, lambda session, guild_id: choices.query_choices(session, guild_id, current)
    )
