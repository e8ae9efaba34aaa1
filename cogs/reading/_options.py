"""Slash-command option types and autocomplete for /reading."""

from __future__ import annotations

from typing import Any

from discord import app_commands
from sqlalchemy.ext.asyncio import AsyncSession

from bot.client import Interaction
from bot.errors import BadInput
from bot.papers import MAX_URL_LENGTH
from bot.replies import CHOICE_NAME_LIMIT, one_line
from bot.services.reading import lists as svc
from bot.services.reading.autocomplete import suggest
from bot.services.reading.exports import ExportFormat
from bot.services.reading.terms import MAX_QUERY_LENGTH
from bot.transformers import MAX_CHOICES, OptionTransformer, guild_choices

EXPORT_NAMES: dict[ExportFormat, str] = {
    "markdown": "Markdown",
    "bibtex": "BibTeX",
    "csv": "CSV",
    "json": "JSON",
}
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
        return svc.read_paper_input(str(value))


def export_format(value: str) -> ExportFormat:
    for fmt in EXPORT_NAMES:
        if fmt == value:
            return fmt
    raise BadInput("Pick a format: Markdown, BibTeX, CSV or JSON.")


PaperArg = app_commands.Transform[svc.PaperInput, PaperInputTransformer]


def _choice(name: str, value: str) -> tuple[str, str]:
    return one_line(name, CHOICE_NAME_LIMIT) or "—", value[:100]


async def list_name_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    async def query(session: AsyncSession, guild_id: int) -> list[tuple[str, str]]:
        names = await svc.list_name_choices(session, guild_id, current, MAX_CHOICES)
        return [_choice(name, name) for name in names]

    return await guild_choices(interaction, query)


async def any_paper_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Stored papers matching what is typed; the value is the paper's key, so the exact paper is used."""

    async def query(session: AsyncSession, guild_id: int) -> list[tuple[str, str]]:
        found = [s for s in await suggest(session, guild_id, current) if s.kind == "paper"]
        infos = await svc.paper_infos(session, [s.ref_id for s in found])
        return [_choice(info.title, svc.choice_value(info)) for info in infos]

    return await guild_choices(interaction, query)


async def list_paper_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The papers on the list chosen in the `list` option."""
    list_name = getattr(interaction.namespace, "list", None)
    if not list_name:
        return []

    async def query(session: AsyncSession, guild_id: int) -> list[tuple[str, str]]:
        pairs = await svc.list_paper_choices(session, guild_id, str(list_name), current, MAX_CHOICES)
        return [_choice(name, value) for name, value in pairs]

    return await guild_choices(interaction, query)


async def query_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Paper titles and list names for the words typed so far."""

    async def query(session: AsyncSession, guild_id: int) -> list[tuple[str, str]]:
        found = await suggest(session, guild_id, current)
        return [
            _choice(
                f"{item.name} (reading list)" if item.kind == "list" else item.name, one_line(item.name, 100)
            )
            for item in found
        ]

    return await guild_choices(interaction, query)
